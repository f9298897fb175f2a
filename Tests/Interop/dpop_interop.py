#!/usr/bin/env python3
"""DPoP (RFC 9449) proofs across implementations, for Federate's interop test.

  python dpop_interop.py HTU [FEDERATE_PROOF ACCESS_TOKEN RESOURCE_URL]

Prints one JSON object:
  "proofs":   proofs for POST HTU made by idpy-oidc's DPoPProof (ES256, PS256, RS256) and by
              joserfc (ES256, EdDSA), each with the RFC 7638 thumbprint cryptojwt/joserfc compute;
  "verified": when FEDERATE_PROOF is given (a GET proof for RESOURCE_URL with ath of ACCESS_TOKEN), what
              idpy-oidc's server-side check (signature with the jwk, htm, htu) and joserfc
              found: its claims and thumbprint, and ath recomputed as RFC 9449 §4.2 defines it.
"""
import base64, hashlib, json, sys, time, uuid, warnings

warnings.simplefilter("ignore")  # joserfc warns that RFC 9864 deprecates the name EdDSA

from cryptojwt.jwk.ec import new_ec_key
from cryptojwt.jwk.jwk import key_from_jwk_dict
from cryptojwt.jwk.rsa import new_rsa_key
from idpyoidc.server.oauth2.add_on.dpop import DPoPProof
from joserfc import jws
from joserfc.jwk import ECKey, OKPKey


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def idpy_proof(key, alg, htu):
    proof = DPoPProof(typ="dpop+jwt", alg=alg, jwk=key.serialize(), jti=uuid.uuid4().hex, htm="POST", htu=htu, iat=int(time.time()))
    proof.key = key
    return {"by": "idpy-oidc " + alg, "proof": proof.create_header(), "jkt": key.thumbprint("SHA-256").decode()}


def joserfc_proof(key, alg, htu):
    header = {"typ": "dpop+jwt", "alg": alg, "jwk": key.as_dict(private=False)}
    claims = {"jti": uuid.uuid4().hex, "htm": "POST", "htu": htu, "iat": int(time.time())}
    token = jws.serialize_compact(header, json.dumps(claims).encode(), key, algorithms=[alg])
    return {"by": "joserfc " + alg, "proof": token, "jkt": key.thumbprint()}


def main():
    htu = sys.argv[1]
    out = {"proofs": [
        idpy_proof(new_ec_key("P-256"), "ES256", htu),
        idpy_proof(new_rsa_key(2048), "PS256", htu),
        idpy_proof(new_rsa_key(2048), "RS256", htu),
        joserfc_proof(ECKey.generate_key("P-256"), "ES256", htu),
        joserfc_proof(OKPKey.generate_key("Ed25519"), "EdDSA", htu),
    ]}
    if len(sys.argv) > 4:
        proof, token, resource = sys.argv[2], sys.argv[3], sys.argv[4]
        checked = DPoPProof().verify_header(proof)  # signature with the header's jwk
        checked.verify()  # typ dpop+jwt, not alg none, required members
        claims = {k: checked[k] for k in ("jti", "htm", "htu", "iat", "ath") if k in checked}
        assert checked["htm"] == "GET" and checked["htu"] == resource.split("?")[0], claims
        header = json.loads(base64.urlsafe_b64decode(proof.split(".")[0] + "=="))
        key = ECKey.import_key(header["jwk"])
        jws.deserialize_compact(proof, key, algorithms=[header["alg"]])  # joserfc agrees on the signature
        out["verified"] = {
            "claims": claims, "jkt": key_from_jwk_dict(checked["jwk"]).thumbprint("SHA-256").decode(), "joserfc_jkt": key.thumbprint(),
            "ath": b64(hashlib.sha256(token.encode()).digest()), "private_members": sorted(set(header["jwk"]) & {"d", "p", "q", "dp", "dq", "qi", "k"}),
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
