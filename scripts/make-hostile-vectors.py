#!/usr/bin/env python3
"""Writes Tests/Vectors/hostile.json: correctly signed ID tokens with hostile but legal
claims and headers, signed by Python's `cryptography` (OpenSSL), independent of Federate's
own signing code. The tests run each through IDTokenVerifier and `federate verify`.

Keys: RSA 2048 (kid "rsa-2048"), RSA 2052 and 3070 bits (odd sizes: 257- and 385-byte
signatures), an RSA key with kid "K1" (for the KELVIN SIGN kid look-alike), and a P-256 and
an RSA 2048 key without kid. Regenerate with `python3 scripts/make-hostile-vectors.py`.
"""
import base64, json, os
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils

AT = 1_700_000_000
ISS = "https://issuer.example;"
AUD = "K-client"

b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
def seg(obj, ascii_only=True):
    return b64(json.dumps(obj, separators=(",", ":"), ensure_ascii=ascii_only).encode())
def num(n):
    return b64(n.to_bytes((n.bit_length() + 7) // 8, "big"))

def rsa_key(bits):
    return rsa.generate_private_key(public_exponent=65537, key_size=bits)

keys = {
    "rsa-2048": rsa_key(2048), "odd-2052": rsa_key(2052), "odd-3070": rsa_key(3070), "K1": rsa_key(2048),
    None: None,
}
kidless_ec = ec.generate_private_key(ec.SECP256R1())
kidless_rsa = rsa_key(2048)

def rsa_jwk(key, kid):
    n = key.public_key().public_numbers()
    jwk = {"kty": "RSA", "n": num(n.n), "e": num(n.e), "alg": "RS256", "use": "sig"}
    if kid is not None: jwk["kid"] = kid
    return jwk

ecn = kidless_ec.public_key().public_numbers()
jwks = {"keys": [rsa_jwk(keys[k], k) for k in ("rsa-2048", "odd-2052", "odd-3070", "K1")] + [
    {"kty": "EC", "crv": "P-256", "x": b64(ecn.x.to_bytes(32, "big")), "y": b64(ecn.y.to_bytes(32, "big")), "use": "sig"},
    rsa_jwk(kidless_rsa, None),
]}

def claims(**overrides):
    c = {"iss": ISS, "sub": "user-1", "aud": AUD, "iat": AT - 10, "exp": AT + 600}
    for k, v in overrides.items():
        if v is None: c.pop(k, None)
        else: c[k] = v
    return c

def sign(payload, kid="rsa-2048", header=None, ascii_only=True, key=None, alg="RS256"):
    h = {"alg": alg, "typ": "JWT"}
    if kid is not None: h["kid"] = kid
    if header: h.update(header)
    h = {k: v for k, v in h.items() if v is not None}
    signing_input = f"{seg(h)}.{seg(payload, ascii_only)}".encode()
    key = key or keys[kid]
    if alg == "ES256":
        der = key.sign(signing_input, ec.ECDSA(hashes.SHA256()))
        r, s = utils.decode_dss_signature(der)
        sig = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    else:
        sig = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input.decode()}.{b64(sig)}"

LOGOUT = {"http://schemas.openid.net/event/backchannel-logout": {}}
vectors = [
    # Traps: time claims outside any sane range, correctly signed.
    ("iat is 2^63-1", sign(claims(iat=2**63 - 1)), "invalid_claim", "iat", []),
    ("exp is -1e300", sign(claims(exp=-1e300)), "invalid_claim", "exp", []),
    ("exp is -9.3e18", sign(claims(exp=-9.3e18)), "invalid_claim", "exp", []),
    ("exp is 1e300", sign(claims(exp=1e300)), "invalid_claim", "exp", []),
    ("exp is 2^53 + 2", sign(claims(exp=2**53 + 2)), "invalid_claim", "exp", []),
    ("exp is 2^64", sign(claims(exp=2**64)), "invalid_claim", "exp", []),
    ("nbf is 1e300", sign(claims(nbf=1e300)), "invalid_claim", "nbf", []),
    ("nbf is -1", sign(claims(nbf=-1)), "invalid_claim", "nbf", []),
    ("auth_time is -1e300 with max-age", sign(claims(auth_time=-1e300)), "invalid_claim", "auth_time", ["--max-age", "300"]),
    ("auth_time is 1e300 with max-age", sign(claims(auth_time=1e300)), "invalid_claim", "auth_time", ["--max-age", "300"]),
    ("exp is a string", sign(claims(exp=str(AT + 600))), "invalid_claim", "exp", []),
    ("exp at 2^53 exactly is a valid NumericDate", sign(claims(exp=2**53)), None, None, []),
    ("fractional times are valid", sign(claims(iat=AT - 0.5, exp=AT + 0.25)), None, None, []),
    # Look-alikes: canonically equivalent, different bytes.
    ("aud with KELVIN SIGN", sign(claims(aud="\u212a-client")), "audience_mismatch", None, []),
    ("aud with KELVIN SIGN, raw UTF-8", sign(claims(aud="\u212a-client"), ascii_only=False), "audience_mismatch", None, []),
    ("aud array with KELVIN SIGN", sign(claims(aud=["\u212a-client"])), "audience_mismatch", None, []),
    ("iss with GREEK QUESTION MARK", sign(claims(iss="https://issuer.example\u037e")), "issuer_mismatch", None, []),
    ("azp with KELVIN SIGN", sign(claims(azp="\u212a-client")), "azp_mismatch", None, []),
    ("kid with KELVIN SIGN", sign(claims(), kid="\u212a1", key=keys["K1"]), "unknown_key", None, []),
    ("kid K1 itself", sign(claims(), kid="K1"), None, None, []),
    # Type confusion.
    ("a back-channel logout token", sign(claims(events=LOGOUT, jti="j-1"), header={"typ": "logout+jwt"}), "token_type_mismatch", None, []),
    ("a logout token without typ", sign(claims(events=LOGOUT, jti="j-1"), header={"typ": None}), "token_type_mismatch", None, []),
    ("an RFC 9068 access token", sign(claims(client_id=AUD, scope="openid", jti="j-2"), header={"typ": "at+jwt"}), "token_type_mismatch", None, []),
    ("typ application/at+jwt", sign(claims(), header={"typ": "application/at+jwt"}), "token_type_mismatch", None, []),
    ("typ application/JWT", sign(claims(), header={"typ": "application/JWT"}), None, None, []),
    ("typ jwt in lower case", sign(claims(), header={"typ": "jwt"}), None, None, []),
    # Odd RSA sizes.
    ("RSA 2052 bits", sign(claims(), kid="odd-2052"), None, None, []),
    ("RSA 3070 bits", sign(claims(), kid="odd-3070"), None, None, []),
    # Keys without kid.
    ("no kid, EC key without kid", sign(claims(), kid=None, key=kidless_ec, alg="ES256"), None, None, []),
    ("no kid, RSA key without kid among several RSA keys", sign(claims(), kid=None, key=kidless_rsa), None, None, []),
    ("no kid, RSA key with kid", sign(claims(), kid=None, key=keys["rsa-2048"]), None, None, []),
    ("kid naming no key, signed by a kid-less key", sign(claims(), kid="absent", key=kidless_rsa), "unknown_key", None, []),
]

out = {
    "comment": "Generated by scripts/make-hostile-vectors.py with Python cryptography (OpenSSL); not Federate's signer.",
    "at": AT, "issuer": ISS, "audience": AUD, "jwks": jwks,
    "vectors": [{"name": n, "token": t, "error": e, "claim": c, "options": o} for (n, t, e, c, o) in vectors],
}
path = os.path.join(os.path.dirname(__file__), "..", "Tests", "Vectors", "hostile.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
print(f"wrote {len(vectors)} vectors to {os.path.normpath(path)}")
