#!/usr/bin/env python3
"""Writes the fuzz seed corpora under Fuzz/Corpus/ (committed; rerun only to change them).

Needs the Python `cryptography` package (scripts/perf.sh creates .venv with it) and openssl;
`make-fuzz-seeds.py edges` writes only the endpoint-url and terminal-text seeds, which need neither;
`make-fuzz-seeds.py cbor` only the cbor target's (cbor2 and cryptography, e.g. the interop venv's).
The sealed pending authorizations are sealed with the fuzz fixture key (32 bytes of 0x01,
key id `fuzz`) in Federate's format: v1.<kid>.base64url(nonce || ciphertext || tag), with
"v1.<kid>" as associated data.
"""
import base64, json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "Corpus")
ISS = "https://op.example"
NOW = 1767225600


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def write(target, name, content):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    with open(os.path.join(CORPUS, target, name), "wb") as f:
        f.write(content if isinstance(content, bytes) else content.encode())


def edge_seeds():
    """endpoint-url: a policy byte (0: a loopback issuer's, 1: public addresses only, 2: public
    only except 10.0.0.0/8 and idp.corp), then a URL. terminal-text: two bytes of byte limit
    (big-endian), then text."""
    urls = [
        "https://op.example/keys", "http://127.0.0.1:8080/admin/keys?action=delete-everything", "https://127.1/x",
        "https://2130706433/", "https://0x7f.0.0.1/", "https://0177.0.0.1/", "https://127.0.0.1./", "https://[::ffff:127.0.0.1]/",
        "https://[::ffff:7f00:1]/", "https://[fe80::1%25eth0]/", "https://169.254.169.254/latest/meta-data/",
        "https://10.1.2.3/", "https://172.16.0.1/", "https://192.168.0.1/", "https://[fd00::1]/", "https://0.0.0.0/",
        "https://localhost./", "https://a.localhost/", "https://idp.corp/token", "https://user@op.example/",
        "https://op.example/\x1b[2J", "https://op.example/\u202eevil", "https://op.example/a b", "https://op.\u0435xample/",
    ]
    for i, url in enumerate(urls):
        for policy in sorted({1, i % 3}):  # every URL public-only, a third each loopback and allow-list
            write("endpoint-url", f"url-{i}-{policy}", bytes([policy]) + url.encode("utf-8", "surrogatepass"))
    texts = [
        ("plain", 512, "Sign in at https://op.example/activate"),
        ("escapes", 64, "code\x1b[2J\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ \u009b31m"),
        ("bidi", 40, "user\u202etxt.exe\u2066x\u2069\u200e\u200f\u061c\u2028"),
        ("combining", 128, "A" + "\u0301" * 2000),
        ("emoji-cut", 9, "\U0001F600" * 4),
        ("empty", 0, ""),
    ]
    for name, limit, text in texts:
        write("terminal-text", name, limit.to_bytes(2, "big") + text.encode("utf-8"))


def cbor_seeds():
    """cbor (Fuzz/Sources/FederateFuzz/WebAuthnTarget.swift): attestation objects for RP ID
    fuzz.example and credential ID 16 x 0x01 that verify against the target's client data
    (challenge 32 x 0x02), COSE keys, and hostile CBOR. Needs cbor2 and cryptography (the
    interop venv has both)."""
    import cbor2, hashlib, struct
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
    challenge = b64(b"\x02" * 32)
    client = ('{"type":"webauthn.create","challenge":"%s","origin":"https://fuzz.example","crossOrigin":false}' % challenge).encode()
    p256 = ec.generate_private_key(ec.SECP256R1())
    n = p256.public_key().public_numbers()
    es256 = {1: 2, 3: -7, -1: 1, -2: n.x.to_bytes(32, "big"), -3: n.y.to_bytes(32, "big")}
    eddsa = {1: 1, 3: -8, -1: 6, -2: ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw)}
    r = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key().public_numbers()
    rs256 = {1: 3, 3: -257, -1: r.n.to_bytes(256, "big"), -2: r.e.to_bytes(3, "big")}

    def auth_data(key, flags=0x45, extensions=b""):
        return (hashlib.sha256(b"fuzz.example").digest() + bytes([flags]) + struct.pack(">I", 0) + b"\0" * 16
                + struct.pack(">H", 16) + b"\x01" * 16 + cbor2.dumps(key) + extensions)

    data = auth_data(es256)
    write("cbor", "none-es256", cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": data}))
    write("cbor", "none-eddsa", cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data(eddsa, 0x5D)}))
    write("cbor", "none-rs256", cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data(rs256)}))
    extensions = auth_data(es256, 0xC5, cbor2.dumps({"credProtect": 2, "hmac-secret": True}))
    write("cbor", "none-extensions", cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": extensions}))
    signature = p256.sign(data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256()))
    write("cbor", "packed-es256", cbor2.dumps({"fmt": "packed", "attStmt": {"alg": -7, "sig": signature}, "authData": data}))
    for name, key in (("cose-es256", es256), ("cose-eddsa", eddsa), ("cose-rs256", rs256)):
        write("cbor", name, cbor2.dumps(key))
    write("cbor", "indefinite", b"\xbf\x63fmt\x64none\xff")
    write("cbor", "deep", b"\x81" * 20 + b"\x00")
    write("cbor", "tag", cbor2.dumps(cbor2.CBORTag(24, b"\xa0")))
    write("cbor", "huge-length", b"\x5b" + b"\xff" * 8)


def main():
    if sys.argv[1:] == ["edges"]:
        edge_seeds()
        return 0
    if sys.argv[1:] == ["cbor"]:
        cbor_seeds()
        return 0
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    edge_seeds()
    # jws: the demo tokens (valid and deliberately invalid ones).
    with open(os.path.join(ROOT, "Examples", "demo-tokens.txt")) as f:
        for i, line in enumerate(l.strip() for l in f if l.strip()):
            write("jws", f"demo-{i}", line)
    write("jws", "alg-none", b64(b'{"alg":"none"}') + "." + b64(b'{"iss":"x"}') + ".")
    write("jws", "crit", b64(b'{"alg":"RS256","crit":["exp"],"exp":1}') + "." + b64(b"{}") + ".AAAA")

    # jwks: the demo set, and sets with skipped and ambiguous keys.
    with open(os.path.join(ROOT, "Examples", "demo-jwks.json")) as f:
        demo = f.read()
    write("jwks", "demo", demo)
    keys = json.loads(demo)["keys"]
    write("jwks", "mixed", json.dumps({"keys": keys + [
        {"kty": "oct", "k": "c2VjcmV0", "kid": "hmac"},
        {"kty": "RSA", "use": "enc", "kid": "enc", "n": keys[0].get("n", "AQAB"), "e": "AQAB"},
        {"kty": "OKP", "crv": "X25519", "kid": "x", "x": "AAAA"},
        dict(keys[0]),
    ]}))

    # x509: a Google-style {kid: PEM} map with a fresh self-signed certificate.
    with tempfile.TemporaryDirectory() as tmp:
        key, cert = os.path.join(tmp, "k.pem"), os.path.join(tmp, "c.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                        "-days", "3650", "-subj", "/CN=securetoken.system.gserviceaccount.com"],
                       check=True, capture_output=True)
        with open(cert) as f:
            pem = f.read()
    write("x509", "map", json.dumps({"a1b2c3": pem}))
    write("x509", "two", json.dumps({"a1b2c3": pem, "d4e5f6": pem.replace("MII", "MIJ", 1)}))

    # discovery: a valid document for ISS (the fixtures load it), and one for another issuer.
    doc = {
        "issuer": ISS, "authorization_endpoint": ISS + "/authorize", "token_endpoint": ISS + "/token",
        "userinfo_endpoint": ISS + "/userinfo", "jwks_uri": ISS + "/jwks", "revocation_endpoint": ISS + "/revoke",
        "response_types_supported": ["code"], "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256", "ES256"], "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": True,
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "private_key_jwt"],
    }
    write("discovery", "valid.json", json.dumps(doc, indent=1))
    write("discovery", "other-issuer.json", json.dumps(dict(doc, issuer="https://evil.example")))

    # token-response
    write("token-response", "full", json.dumps({"access_token": "at", "token_type": "Bearer", "expires_in": 3600,
                                                "refresh_token": "rt", "id_token": "a.b.c", "scope": "openid email"}))
    write("token-response", "string-expiry", json.dumps({"access_token": "at", "token_type": "bearer", "expires_in": "60"}))
    write("token-response", "mac", json.dumps({"access_token": "at", "token_type": "mac"}))

    # callback (the fixture pending authorization's state is below)
    state = "fuzz-state-0123456789abcdefghijklmnopqrstuvw"
    # claims: a selector byte (the header: 0 no typ, 1 JWT, 2 logout+jwt, 3 at+jwt, 4 secevent+jwt,
    # 5 jwt with kid, 6 kid only, 7 application/JWT) then a payload the target signs as it is.
    iss, aud = "https://fuzz.example;", "K-client"
    base = {"iss": iss, "sub": "user-1", "aud": aud, "iat": NOW - 5, "exp": NOW + 600, "auth_time": NOW - 10}
    logout = {"http://schemas.openid.net/event/backchannel-logout": {}}
    claims_seeds = {
        "id-token": (1, base),
        "id-token-nonce": (0, dict(base, nonce="n-\u212a", azp=aud, aud=[aud, "other"])),
        "logout": (2, dict(base, jti="j-1", sid="s-1", events=logout)),
        "security-event": (4, dict(base, jti="j-2", events={"https://schemas.openid.net/secevent/risc/event-type/sessions-revoked": {}})),
        "session": (1, dict(base, sid="s-2")),
        "userinfo": (0, {"sub": "user-1", "email": "a@example.com", "email_verified": "true"}),
        "assertion": (6, {"iss": aud, "sub": aud, "aud": iss, "exp": NOW + 60, "jti": "a-1"}),
        "access-token": (3, dict(base, client_id=aud, scope="openid", jti="j-3")),
        "apple-notification": (1, dict(base, events=json.dumps({"type": "email-disabled", "sub": "u", "event_time": NOW * 1000}))),
        "hostile-numbers": (1, dict(base, iat=2**63 - 1, exp=-1e300, nbf=1e300, auth_time=-9.3e18)),
        "look-alikes": (7, dict(base, iss="https://fuzz.example\u037e", aud="\u212a-client")),
    }
    for name, (selector, payload) in claims_seeds.items():
        write("claims", name, bytes([selector]) + json.dumps(payload, separators=(",", ":")).encode())

    write("callback", "ok", f"code=abc&state={state}&iss=https%3A%2F%2Fop.example")
    write("callback", "error", f"error=access_denied&error_description=no+thanks&state={state}&iss=https%3A%2F%2Fop.example")
    write("callback", "url", f"https://rp.example/cb#code=abc&state={state}&iss=https%3A%2F%2Fop.example")
    write("callback", "duplicate", f"code=a&code=b&state={state}")

    # sealed-pending
    pending = {"iss": ISS, "pid": "oidc.fuzz", "cid": "fuzz-client", "ru": "https://rp.example/cb", "st": state,
               "no": "fuzz-nonce", "cv": "fuzz-verifier-0123456789abcdefghijklmnopqrstuvwxyz", "sc": ["openid"],
               "in": "signIn", "ca": NOW - 60, "ea": NOW + 540, "cx": {"returnTo": "/"}}
    aead, header = AESGCM(bytes([1] * 32)), b"v1.fuzz"
    sealed = []
    for i in range(3):
        nonce = os.urandom(12)
        body = json.dumps(dict(pending, no=f"fuzz-nonce-{i}"), separators=(",", ":")).encode()
        sealed.append("v1.fuzz." + b64(nonce + aead.encrypt(nonce, body, header)))
    write("sealed-pending", "sealed.txt", "\n".join(sealed) + "\n")
    for i, value in enumerate(sealed):
        write("sealed-pending", f"seed-{i}", value)
    write("sealed-pending", "unknown-key", sealed[0].replace("v1.fuzz.", "v1.other."))


if __name__ == "__main__":
    sys.exit(main())
