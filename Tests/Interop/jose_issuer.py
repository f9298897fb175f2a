#!/usr/bin/env python3
"""Tokens signed by joserfc (PyPI), nothing of Federate's: an Entra-shaped loopback issuer and
Firebase session cookies, for `federate verify --provider microsoft|firebase-session` and
`federate serve --config` with a `microsoft` provider.

    jose_issuer.py entra --port P --client-id APP
        Serves Microsoft Entra's v2.0 paths on http://127.0.0.1:P (the authority host): discovery
        at /common, /organizations, /consumers and /TENANT under /v2.0 (the multi-tenant ones with
        the issuer template http://127.0.0.1:P/{tenantid}/v2.0), the key set at
        /common/discovery/v2.0/keys. Prints ONE JSON line {"host", "tenants": {name: tid},
        "tokens": {name: ID token}}, then serves until killed.

    jose_issuer.py firebase --project P --keys-file FILE
        Writes the {kid: PEM certificate} map of the signing key to FILE (the format of Google's
        session-cookie key URL) and prints ONE JSON line {"tokens": {name: cookie}}: session cookies
        (issuer https://session.firebase.google.com/P), an ID token, and unsigned emulator cookies.

Tokens are issued now and live an hour.
"""
import argparse
import base64
import datetime
import http.server
import json
import sys
import threading
import time

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.x509.oid import NameOID
from joserfc import jwk, jwt

CONTOSO = "72f988bf-86f1-41af-91ab-2d7cd011db47"
FABRIKAM = "0c8d5b9e-2f1a-4c6b-9e3d-7a1b2c3d4e5f"
PERSONAL = "9188040d-6c67-4c5b-b112-36a304b66dad"


def rsa_key(kid):
    return jwk.RSAKey.generate_key(2048, parameters={"kid": kid, "use": "sig", "alg": "RS256"}, private=True)


def sign(key, claims):
    return jwt.encode({"alg": "RS256", "kid": key.kid, "typ": "JWT"}, claims, key)


def unsigned(claims):
    def segment(obj):
        return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).rstrip(b"=").decode()
    return segment({"alg": "none", "typ": "JWT"}) + "." + segment(claims) + "."


def entra(args):
    host = f"http://127.0.0.1:{args.port}"
    key = rsa_key("joserfc-entra-1")
    now = int(time.time())

    def token(tid, iss=None, **extra):
        claims = {"iss": iss if iss is not None else f"{host}/{tid}/v2.0", "aud": args.client_id, "sub": f"pairwise-{tid[:8]}",
                  "tid": tid, "oid": "00000000-0000-0000-66f3-3332eca7ea81", "ver": "2.0", "iat": now, "nbf": now, "exp": now + 3600}
        claims.update(extra)
        return sign(key, claims)

    tokens = {
        "contoso": token(CONTOSO),
        "fabrikam": token(FABRIKAM),
        "personal": token(PERSONAL),
        "tid_mismatch": token(FABRIKAM, iss=f"{host}/{CONTOSO}/v2.0"),
        "template_left": token(CONTOSO, iss=f"{host}/{{tenantid}}/v2.0"),
        "other_audience": token(CONTOSO, aud="another-app"),
        "expired": token(CONTOSO, iat=now - 7200, nbf=now - 7200, exp=now - 3600),
    }
    jwks = json.dumps({"keys": [key.as_dict(private=False)]}).encode()

    def document(segment):
        issuer = f"{host}/{{tenantid}}/v2.0" if segment in ("common", "organizations") else \
            f"{host}/{PERSONAL if segment == 'consumers' else segment}/v2.0"
        return json.dumps({
            "issuer": issuer, "authorization_endpoint": f"{host}/{segment}/oauth2/v2.0/authorize",
            "token_endpoint": f"{host}/{segment}/oauth2/v2.0/token", "jwks_uri": f"{host}/common/discovery/v2.0/keys",
            "response_types_supported": ["code", "id_token"], "subject_types_supported": ["pairwise"],
            "id_token_signing_alg_values_supported": ["RS256"], "scopes_supported": ["openid", "profile", "email"],
        }).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            parts = self.path.split("?")[0].strip("/").split("/")
            if self.path.split("?")[0] == "/common/discovery/v2.0/keys":
                body = jwks
            elif len(parts) == 4 and parts[1:] == ["v2.0", ".well-known", "openid-configuration"]:
                body = document(parts[0])
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "max-age=300")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps({"host": host, "tenants": {"contoso": CONTOSO, "fabrikam": FABRIKAM, "personal": PERSONAL}, "tokens": tokens}),
          flush=True)
    threading.Event().wait()


def firebase(args):
    key = rsa_key("joserfc-session-1")
    private = serialization.load_pem_private_key(key.as_pem(private=True), password=None)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "securetoken.system.gserviceaccount.com")])
    start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=1)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(private.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(start)
                   .not_valid_after(start + datetime.timedelta(days=30)).sign(private, hashes.SHA256()))
    with open(args.keys_file, "w") as out:
        json.dump({key.kid: certificate.public_bytes(serialization.Encoding.PEM).decode()}, out)
    now = int(time.time())
    project = args.project
    session = "https://session.firebase.google.com/"

    def cookie(base=session, signed=True, **extra):
        claims = {"iss": base + project, "aud": project, "sub": "uid-1", "user_id": "uid-1", "iat": now, "exp": now + 3600,
                  "auth_time": now - 60, "firebase": {"sign_in_provider": "password", "identities": {}}}
        claims.update(extra)
        return sign(key, claims) if signed else unsigned(claims)

    print(json.dumps({"tokens": {
        "session_cookie": cookie(),
        "id_token": cookie(base="https://securetoken.google.com/"),
        "other_project": cookie(aud="other-project"),
        "expired": cookie(iat=now - 7200, exp=now - 3600),
        "emulator_session_cookie": cookie(signed=False),
        "emulator_id_token": cookie(base="https://securetoken.google.com/", signed=False),
    }}), flush=True)


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    e = commands.add_parser("entra")
    e.add_argument("--port", type=int, required=True)
    e.add_argument("--client-id", required=True)
    f = commands.add_parser("firebase")
    f.add_argument("--project", required=True)
    f.add_argument("--keys-file", required=True)
    args = parser.parse_args()
    entra(args) if args.command == "entra" else firebase(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
