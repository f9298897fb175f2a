#!/usr/bin/env python3
"""Independent token maker for the multi-tenant and Firebase tests (issue 17, items 4 and 6).

Signs tokens with the `cryptography` package only (no Federate code): an RSA key published
as a JWKS (Entra-style ID tokens) and as a self-signed certificate in a `{kid: PEM}` map
(Firebase session cookies), plus unsigned (`alg: none`) Auth-emulator tokens. Prints one JSON
object: {"jwks": ..., "x509": ..., "now": N, "entra": {name: token}, "firebase": {name: token}}.

    python tenant_tokens.py --now 1760000000 --client-id APP --project dev-project
"""
import argparse, base64, datetime, json

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID

CONTOSO = "72f988bf-86f1-41af-91ab-2d7cd011db47"
FABRIKAM = "0c8d5b9e-2f1a-4c6b-9e3d-7a1b2c3d4e5f"
PERSONAL = "9188040d-6c67-4c5b-b112-36a304b66dad"
HOST = "https://login.microsoftonline.com"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def segment(obj) -> str:
    return b64(json.dumps(obj, separators=(",", ":")).encode())


def sign(key, kid, claims) -> str:
    signing_input = segment({"alg": "RS256", "kid": kid, "typ": "JWT"}) + "." + segment(claims)
    signature = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return signing_input + "." + b64(signature)


def unsigned(claims) -> str:
    return segment({"alg": "none", "typ": "JWT"}) + "." + segment(claims) + "."


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--now", type=int, required=True)
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--project", required=True)
    args = parser.parse_args()
    now = args.now

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    numbers = key.public_key().public_numbers()
    kid = "py-entra-1"
    jwks = {"keys": [{
        "kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
        "n": b64(numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")), "e": b64(numbers.e.to_bytes(3, "big")),
    }]}

    def entra(tid, iss=None, **extra):
        claims = {"iss": iss if iss is not None else f"{HOST}/{tid}/v2.0", "aud": args.client_id, "sub": "pairwise-sub-1",
                  "tid": tid, "oid": "00000000-0000-0000-66f3-3332eca7ea81", "ver": "2.0", "iat": now, "nbf": now, "exp": now + 3600}
        claims.update(extra)
        return sign(key, kid, claims)

    entra_tokens = {
        "contoso": entra(CONTOSO),
        "personal": entra(PERSONAL),
        "fabrikam": entra(FABRIKAM),
        "tid_mismatch": entra(FABRIKAM, iss=f"{HOST}/{CONTOSO}/v2.0"),
        "iss_mismatch": entra(CONTOSO, iss=f"{HOST}/{FABRIKAM}/v2.0"),
        "tid_slash": entra(CONTOSO + "/..", iss=f"{HOST}/{CONTOSO}/../v2.0"),
        "tid_dotdot": entra("..", iss=f"{HOST}/../v2.0"),
        "tid_empty": entra("", iss=f"{HOST}//v2.0"),
        # U+2011 NON-BREAKING HYPHEN in place of the first '-'.
        "tid_lookalike": entra(CONTOSO.replace("-", "\u2011", 1), iss=f"{HOST}/{CONTOSO.replace('-', chr(0x2011), 1)}/v2.0"),
        "template_left": entra(CONTOSO, iss=f"{HOST}/{{tenantid}}/v2.0"),
        "tid_is_template": entra("{tenantid}", iss=f"{HOST}/{{tenantid}}/v2.0"),
        "no_tid": sign(key, kid, {"iss": f"{HOST}/{CONTOSO}/v2.0", "aud": args.client_id, "sub": "s", "iat": now, "exp": now + 3600}),
    }

    # Firebase: session cookies signed by a certificate in a {kid: PEM} map; emulator tokens unsigned.
    cert_kid = "py-session-1"
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "securetoken.system.gserviceaccount.com")])
    start = datetime.datetime.fromtimestamp(now - 86400, tz=datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(start)
                   .not_valid_after(start + datetime.timedelta(days=30)).sign(key, hashes.SHA256()))
    x509_map = {cert_kid: certificate.public_bytes(serialization.Encoding.PEM).decode()}
    project = args.project

    def firebase(base, tenant=None, signed=True, **extra):
        claims = {"iss": base + project, "aud": project, "sub": "uid-1", "user_id": "uid-1", "iat": now, "exp": now + 3600,
                  "auth_time": now - 60, "firebase": {"sign_in_provider": "password", "identities": {}}}
        if tenant is not None:
            claims["firebase"]["tenant"] = tenant
        claims.update(extra)
        return sign(key, cert_kid, claims) if signed else unsigned(claims)

    session = "https://session.firebase.google.com/"
    securetoken = "https://securetoken.google.com/"
    firebase_tokens = {
        "session_cookie": firebase(session),
        "session_cookie_tenant_a": firebase(session, tenant="tenant-a"),
        "session_cookie_tenant_b": firebase(session, tenant="tenant-b"),
        "session_cookie_as_id_token": firebase(securetoken),
        "session_cookie_long_sub": firebase(session, sub="u" * 129),
        "emulator_id_token": firebase(securetoken, signed=False),
        "emulator_id_token_tenant_a": firebase(securetoken, tenant="tenant-a", signed=False),
        "emulator_wrong_audience": firebase(securetoken, signed=False, aud="other-project"),
        "emulator_wrong_issuer": firebase(securetoken, signed=False, iss=session + project),
        "emulator_expired": firebase(securetoken, signed=False, exp=now - 3600, iat=now - 7200),
        "emulator_session_cookie": firebase(session, signed=False),
        "emulator_signed_with_none_alg_and_signature": unsigned({"iss": securetoken + project, "aud": project, "sub": "u",
                                                                  "iat": now, "exp": now + 60, "auth_time": now}) + "c2ln",
    }
    print(json.dumps({"jwks": jwks, "x509": x509_map, "now": now, "entra": entra_tokens, "firebase": firebase_tokens}))


if __name__ == "__main__":
    main()
