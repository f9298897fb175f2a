#!/usr/bin/env python3
"""Regenerates Examples/demo-jwks.json and Examples/demo-tokens.txt for the README walkthrough.

Needs the `cryptography` package. Keys are generated afresh and only their public halves are
written; the tokens are signed for `--at 1767225600` (2026-01-01T00:00:00Z).
"""
import base64, json, pathlib
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils

ISS, AUD, AT = "https://demo.federate.dev", "demo-client", 1767225600
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
num = lambda n, size: b64(n.to_bytes(size, "big"))
seg = lambda obj: b64(json.dumps(obj, separators=(",", ":")).encode())

rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
ec_key = ec.generate_private_key(ec.SECP256R1())
rn = rsa_key.public_key().public_numbers()
en = ec_key.public_key().public_numbers()
jwks = {"keys": [
    {"kty": "RSA", "kid": "demo-rsa", "use": "sig", "alg": "RS256", "n": num(rn.n, 256), "e": num(rn.e, 3)},
    {"kty": "EC", "kid": "demo-ec", "use": "sig", "crv": "P-256", "x": num(en.x, 32), "y": num(en.y, 32)},
]}

def sign(header, claims, key="rsa"):
    signing_input = f"{seg(header)}.{seg(claims)}".encode()
    if key == "rsa":
        sig = rsa_key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    else:
        r, s = utils.decode_dss_signature(ec_key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        sig = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return f"{signing_input.decode()}.{b64(sig)}"

claims = {"iss": ISS, "aud": AUD, "sub": "alice", "email": "alice@example.com", "iat": AT - 60, "exp": AT + 3540}
valid = sign({"alg": "RS256", "kid": "demo-rsa", "typ": "JWT"}, claims)
h, p, s = valid.split(".")
tokens = [
    ("valid RS256", valid),
    ("valid ES256", sign({"alg": "ES256", "kid": "demo-ec"}, dict(claims, sub="bob"), key="ec")),
    ("expired", sign({"alg": "RS256", "kid": "demo-rsa"}, dict(claims, iat=AT - 7200, exp=AT - 3600))),
    ("wrong audience", sign({"alg": "RS256", "kid": "demo-rsa"}, dict(claims, aud="someone-else"))),
    ("tampered payload", f"{h}.{seg(dict(claims, sub='mallory'))}.{s}"),
    ("alg none", f"{seg({'alg': 'none'})}.{p}."),
    ("RS256 header on the EC key", sign({"alg": "RS256", "kid": "demo-ec"}, claims)),
    ("unknown kid", sign({"alg": "RS256", "kid": "rotated-away"}, claims)),
]
root = pathlib.Path(__file__).resolve().parent.parent / "Examples"
(root / "demo-jwks.json").write_text(json.dumps(jwks, indent=2) + "\n")
(root / "demo-tokens.txt").write_text("".join(t + "\n" for _, t in tokens))
print("\n".join(name for name, _ in tokens))
