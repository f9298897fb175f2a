#!/usr/bin/env python3
"""WebAuthn (Level 3) ceremonies across implementations, for Federate's interop test.

  python webauthn_interop.py INPUT.json

INPUT (written by the Swift test): rp_id, origin, registration_challenge and
authentication_challenge (base64url), the options Federate issued (registration_options,
authentication_options), and "ours": ceremonies Federate's test authenticator made
({name, registration, authentication, sign_count}).

Prints one JSON object:
  "options":  what py_webauthn's and fido2's option parsers read from Federate's options;
  "verified": Federate's ceremonies as py_webauthn (verify_registration_response, then
              verify_authentication_response with the key it extracted) and fido2's
              Fido2Server see them;
  "theirs":   ceremonies made by authenticators written here, with cryptography and cbor2
              (ES256, EdDSA, RS256; none and packed self-attestation) and by soft-webauthn
              (on fido2's CBOR), each with its COSE public key, for Federate to verify;
  "hostile":  responses built with cbor2 that Federate must refuse, each with the code it must give.
"""
import base64, hashlib, json, os, struct, sys, warnings

warnings.simplefilter("ignore")

import cbor2
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from fido2.server import Fido2Server
from fido2.webauthn import AttestedCredentialData, PublicKeyCredentialCreationOptions, PublicKeyCredentialRequestOptions
from fido2.webauthn import PublicKeyCredentialRpEntity
import fido2.ctap2
# soft-webauthn 0.1.2 imports AttestedCredentialData from fido2.ctap2, where fido2 1.x had it;
# fido2 2.x keeps it in fido2.webauthn. Its create/get use only fido2's CBOR and ES256 COSE key.
fido2.ctap2.AttestedCredentialData = AttestedCredentialData
from soft_webauthn import SoftWebauthnDevice  # noqa: E402
from webauthn import verify_authentication_response, verify_registration_response
from webauthn.helpers import parse_authentication_options_json, parse_registration_options_json

UP, UV, BE, BS, AT, ED = 0x01, 0x04, 0x08, 0x10, 0x40, 0x80


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def value(member):
    """An enum member's value (py_webauthn returns some as plain strings)."""
    return getattr(member, "value", member)


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Authenticator:
    """A software authenticator: cryptography keys, cbor2 encoding, nothing from Federate."""

    def __init__(self, kind: str, user_handle: bytes = b"py-user"):
        self.kind = kind
        self.credential_id = os.urandom(32)
        self.user_handle = user_handle
        if kind == "es256":
            self.key, self.alg = ec.generate_private_key(ec.SECP256R1()), -7
        elif kind == "eddsa":
            self.key, self.alg = ed25519.Ed25519PrivateKey.generate(), -8
        elif kind.startswith("rs256"):
            bits = int(kind[5:] or 2048)
            self.key, self.alg = rsa.generate_private_key(public_exponent=65537, key_size=bits), -257
        else:
            raise ValueError(kind)

    def cose(self) -> dict:
        public = self.key.public_key()
        if self.kind == "es256":
            numbers = public.public_numbers()
            return {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
        if self.kind == "eddsa":
            return {1: 1, 3: -8, -1: 6, -2: public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)}
        numbers = public.public_numbers()
        return {1: 3, 3: -257, -1: numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big"), -2: numbers.e.to_bytes(3, "big")}

    def sign(self, message: bytes) -> bytes:
        if self.kind == "es256":
            return self.key.sign(message, ec.ECDSA(hashes.SHA256()))  # DER, as WebAuthn carries it
        if self.kind == "eddsa":
            return self.key.sign(message)
        return self.key.sign(message, padding.PKCS1v15(), hashes.SHA256())

    @staticmethod
    def client_data(kind, challenge, origin, **extra) -> bytes:
        data = {"type": kind, "challenge": b64(challenge), "origin": origin, "crossOrigin": False}
        data.update(extra)
        return json.dumps(data, separators=(",", ":")).encode()

    def auth_data(self, rp_id, flags, count, cose_bytes=None, credential_id=None, extensions=None) -> bytes:
        data = hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", count)
        if flags & AT:
            cid = self.credential_id if credential_id is None else credential_id
            data += b"\0" * 16 + struct.pack(">H", len(cid)) + cid + (cbor2.dumps(self.cose()) if cose_bytes is None else cose_bytes)
        if extensions is not None:
            data += extensions
        return data

    def register(self, rp_id, origin, challenge, fmt="none", flags=UP | UV | AT, attestation=None, client_data=None, **auth) -> dict:
        client = client_data or self.client_data("webauthn.create", challenge, origin)
        data = self.auth_data(rp_id, flags, 0, **auth)
        statement = {}
        if fmt == "packed":
            statement = {"alg": self.alg, "sig": self.sign(data + hashlib.sha256(client).digest())}
        if attestation is None:
            attestation = cbor2.dumps({"fmt": fmt, "attStmt": statement, "authData": data})
        return {
            "id": b64(self.credential_id), "rawId": b64(self.credential_id), "type": "public-key",
            "response": {"clientDataJSON": b64(client), "attestationObject": b64(attestation), "transports": ["usb"]},
            "clientExtensionResults": {}, "authenticatorAttachment": "cross-platform",
        }

    def authenticate(self, rp_id, origin, challenge, count=1, flags=UP | UV, extensions=None) -> dict:
        client = self.client_data("webauthn.get", challenge, origin)
        data = self.auth_data(rp_id, flags, count, extensions=extensions)
        return {
            "id": b64(self.credential_id), "rawId": b64(self.credential_id), "type": "public-key",
            "response": {
                "clientDataJSON": b64(client), "authenticatorData": b64(data),
                "signature": b64(self.sign(data + hashlib.sha256(client).digest())), "userHandle": b64(self.user_handle),
            },
            "clientExtensionResults": {},
        }


def soft_webauthn_ceremony(rp_id, origin, registration_challenge, authentication_challenge, user_handle):
    """soft-webauthn's device (fido2's CBOR and COSE), its output put in the Level 3 JSON form."""
    device = SoftWebauthnDevice()
    options = {"publicKey": {
        "challenge": registration_challenge, "rp": {"id": rp_id, "name": "Example"},
        "user": {"id": user_handle, "name": "soft", "displayName": "Soft"},
        "pubKeyCredParams": [{"alg": -7, "type": "public-key"}], "attestation": "none",
    }}
    created = device.create(options, origin)
    asserted = device.get({"publicKey": {"challenge": authentication_challenge, "rpId": rp_id}}, origin)
    registration = {
        "id": b64(created["rawId"]), "rawId": b64(created["rawId"]), "type": "public-key",
        "response": {k: b64(v) for k, v in created["response"].items()}, "clientExtensionResults": {},
    }
    authentication = {
        "id": b64(asserted["rawId"]), "rawId": b64(asserted["rawId"]), "type": "public-key",
        "response": {k: b64(v) for k, v in asserted["response"].items()}, "clientExtensionResults": {},
    }
    return registration, authentication


def theirs(rp_id, origin, reg, auth, user_handle):
    """Registered for the user the options name, so their assertions return that user handle."""
    out = []
    for kind in ("es256", "eddsa", "rs256"):
        for fmt in ("none", "packed"):
            a = Authenticator(kind, user_handle)
            out.append({
                "by": f"python {kind} {fmt}", "registration": a.register(rp_id, origin, reg, fmt=fmt),
                "authentication": a.authenticate(rp_id, origin, auth, count=7), "sign_count": 7,
                "public_key": b64(cbor2.dumps(a.cose())), "credential_id": b64(a.credential_id),
            })
    registration, authentication = soft_webauthn_ceremony(rp_id, origin, reg, auth, user_handle)
    out.append({"by": "soft-webauthn", "registration": registration, "authentication": authentication, "sign_count": 1,
                "public_key": None, "credential_id": registration["rawId"]})
    return out


def hostile(rp_id, origin, reg, auth):
    """(name, ceremony, response, code, public key for an authentication)."""
    a = Authenticator("es256")
    data = a.auth_data(rp_id, UP | UV | AT, 0)
    fmt, none, att_stmt, auth_data = cbor2.dumps("fmt"), cbor2.dumps("none"), cbor2.dumps("attStmt"), cbor2.dumps("authData")
    cases = [
        ("duplicate fmt", a.register(rp_id, origin, reg, attestation=b"\xa4" + fmt + none + fmt + none + att_stmt + b"\xa0" + auth_data + cbor2.dumps(data)), "cbor_duplicate_key"),
        ("indefinite map", a.register(rp_id, origin, reg, attestation=b"\xbf" + fmt + none + att_stmt + b"\xa0" + auth_data + cbor2.dumps(data) + b"\xff"), "cbor_indefinite_length"),
        ("indefinite authData", a.register(rp_id, origin, reg, attestation=b"\xa3" + fmt + none + att_stmt + b"\xa0" + auth_data + b"\x5f" + cbor2.dumps(data) + b"\xff"), "cbor_indefinite_length"),
        ("10,000 deep", a.register(rp_id, origin, reg, attestation=b"\x81" * 10000 + b"\x00"), "cbor_too_deep"),
        ("2^64-1 byte string", a.register(rp_id, origin, reg, attestation=b"\xa3" + fmt + none + att_stmt + b"\xa0" + auth_data + b"\x5b" + b"\xff" * 8), "cbor_truncated"),
        ("2^64-1 integer", a.register(rp_id, origin, reg, attestation=b"\xa1" + fmt + b"\x1b" + b"\xff" * 8), "cbor_integer_out_of_range"),
        ("tagged authData", a.register(rp_id, origin, reg, attestation=cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": cbor2.CBORTag(24, data)})), "cbor_unsupported_item"),
        ("float in attStmt", a.register(rp_id, origin, reg, attestation=cbor2.dumps({"fmt": "none", "attStmt": {"x": 1.5}, "authData": data})), "cbor_unsupported_item"),
        ("undefined", a.register(rp_id, origin, reg, attestation=cbor2.dumps({"fmt": "none", "attStmt": cbor2.undefined, "authData": data})), "cbor_unsupported_item"),
        ("truncated", a.register(rp_id, origin, reg, attestation=cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": data})[:-5]), "cbor_truncated"),
        ("1,024-byte credential ID", a.register(rp_id, origin, reg, credential_id=b"\x01" * 1024), "webauthn_credential_id_too_long"),
        ("COSE alg -35", a.register(rp_id, origin, reg, cose_bytes=cbor2.dumps({1: 2, 3: -35, -1: 2, -2: b"\x01" * 48, -3: b"\x01" * 48})), "webauthn_unsupported_algorithm"),
        ("COSE alg -65535", a.register(rp_id, origin, reg, cose_bytes=cbor2.dumps({1: 3, 3: -65535, -1: b"\x01" * 256, -2: b"\x01\x00\x01"})), "webauthn_unsupported_algorithm"),
        ("point off the curve", a.register(rp_id, origin, reg, cose_bytes=cbor2.dumps({1: 2, 3: -7, -1: 1, -2: b"\x01" * 32, -3: b"\x02" * 32})), "webauthn_invalid_public_key"),
        ("RSA-1024", Authenticator("rs2561024").register(rp_id, origin, reg), "webauthn_weak_rsa_key"),
        ("UP off", a.register(rp_id, origin, reg, flags=UV | AT), "webauthn_user_presence"),
        ("BS without BE", a.register(rp_id, origin, reg, flags=UP | UV | AT | BS), "webauthn_backup_state"),
        ("wrong RP ID hash", a.register("evil.example", origin, reg), "webauthn_rp_id_mismatch"),
        ("wrong origin", a.register(rp_id, "https://evil.example", reg), "webauthn_origin_mismatch"),
        ("wrong challenge", a.register(rp_id, origin, os.urandom(32)), "webauthn_challenge_mismatch"),
        ("get as create", a.register(rp_id, origin, reg, client_data=Authenticator.client_data("webauthn.get", reg, origin)), "webauthn_ceremony_mismatch"),
        ("cross-origin", a.register(rp_id, origin, reg, client_data=Authenticator.client_data("webauthn.create", reg, origin, crossOrigin=True, topOrigin="https://evil.example")), "webauthn_cross_origin"),
        ("fido-u2f", a.register(rp_id, origin, reg, attestation=cbor2.dumps({"fmt": "fido-u2f", "attStmt": {"sig": b"\x30", "x5c": [b"\x30"]}, "authData": data})), "webauthn_attestation_format"),
        ("packed with x5c", a.register(rp_id, origin, reg, attestation=cbor2.dumps({"fmt": "packed", "attStmt": {"alg": -7, "sig": b"\x30", "x5c": [b"\x30"]}, "authData": data})), "webauthn_attestation_format"),
        ("extensions not consumed", a.register(rp_id, origin, reg, extensions=cbor2.dumps({"credProtect": 1})), "webauthn_malformed"),
    ]
    out = [{"name": n, "ceremony": "registration", "response": r, "code": c} for n, r, c in cases]
    key = b64(cbor2.dumps(a.cose()))
    for name, response, code, count in [
        ("UV off where required", a.authenticate(rp_id, origin, auth, flags=UP), "webauthn_user_verification", 0),
        ("counter went back", a.authenticate(rp_id, origin, auth, count=4), "webauthn_counter_regressed", 5),
        ("counter stayed", a.authenticate(rp_id, origin, auth, count=5), "webauthn_counter_regressed", 5),
        ("wrong origin", a.authenticate("example.com", "https://evil.example", auth), "webauthn_origin_mismatch", 0),
        ("extensions 10,000 deep", a.authenticate(rp_id, origin, auth, flags=UP | UV | ED, extensions=b"\xa1" * 10000), "cbor_too_deep", 0),
    ]:
        out.append({"name": name, "ceremony": "authentication", "response": response, "code": code, "public_key": key, "sign_count": count,
                    "require_uv": name.startswith("UV")})
    return out


def verify_ours(given):
    rp_id, origin = given["rp_id"], given["origin"]
    reg, auth = unb64(given["registration_challenge"]), unb64(given["authentication_challenge"])
    server = Fido2Server(PublicKeyCredentialRpEntity(id=rp_id, name="Example"))
    results = []
    for case in given["ours"]:
        registered = verify_registration_response(
            credential=case["registration"], expected_challenge=reg, expected_rp_id=rp_id, expected_origin=origin,
            require_user_verification=True)
        asserted = verify_authentication_response(
            credential=case["authentication"], expected_challenge=auth, expected_rp_id=rp_id, expected_origin=origin,
            credential_public_key=registered.credential_public_key, credential_current_sign_count=0, require_user_verification=True)
        auth_data = server.register_complete({"challenge": given["registration_challenge"], "user_verification": "required"}, case["registration"])
        fido2_credential = server.authenticate_complete(
            {"challenge": given["authentication_challenge"], "user_verification": "required"}, [auth_data.credential_data], case["authentication"])
        results.append({
            "name": case["name"], "credential_id": b64(registered.credential_id), "public_key": b64(registered.credential_public_key),
            "fmt": value(registered.fmt), "user_verified": registered.user_verified, "sign_count": asserted.new_sign_count,
            "fido2_alg": int(auth_data.credential_data.public_key[3]), "fido2_credential_id": b64(fido2_credential.credential_id),
        })
    return results


def parse_options(given):
    registration = parse_registration_options_json(given["registration_options"])
    authentication = parse_authentication_options_json(given["authentication_options"])
    fido_registration = PublicKeyCredentialCreationOptions.from_dict(given["registration_options"])
    fido_authentication = PublicKeyCredentialRequestOptions.from_dict(given["authentication_options"])
    return {
        "py_webauthn": {
            "challenge": b64(registration.challenge), "rp_id": registration.rp.id, "user_id": b64(registration.user.id),
            "algs": [int(p.alg) for p in registration.pub_key_cred_params], "resident_key": value(registration.authenticator_selection.resident_key),
            "attestation": value(registration.attestation), "timeout": registration.timeout,
            "authentication_challenge": b64(authentication.challenge), "authentication_rp_id": authentication.rp_id,
            "user_verification": value(authentication.user_verification),
        },
        "fido2": {
            "challenge": b64(fido_registration.challenge), "algs": [p.alg for p in fido_registration.pub_key_cred_params],
            "authentication_challenge": b64(fido_authentication.challenge),
        },
    }


def main():
    with open(sys.argv[1]) as f:
        given = json.load(f)
    rp_id, origin = given["rp_id"], given["origin"]
    reg, auth = unb64(given["registration_challenge"]), unb64(given["authentication_challenge"])
    print(json.dumps({
        "options": parse_options(given),
        "verified": verify_ours(given),
        "theirs": theirs(rp_id, origin, reg, auth, unb64(given["registration_options"]["user"]["id"])),
        "hostile": hostile(rp_id, origin, reg, auth),
    }))


if __name__ == "__main__":
    main()
