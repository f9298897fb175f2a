#!/usr/bin/env python3
"""A minimal Python stand-in for the `federate` CLI contract (login / token refresh /
token revoke), used only to check the interop harness itself:

    FEDERATE_INTEROP_KEEP=0 bash Tests/Interop/run_interop.sh Tests/Interop/reference_rp.sh

It is not Federate and proves nothing about Federate; it proves the provider, the scripted
browser and the scenario checks agree with the documented contract.
"""
import argparse
import base64
import hashlib
import http.server
import json
import secrets
import sys
import time
from urllib.parse import parse_qsl, urlencode, urlsplit

import requests
from jwcrypto import jwk, jws


class Fail(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def discover(issuer):
    r = requests.get(issuer.rstrip("/") + "/.well-known/openid-configuration", timeout=10)
    if r.status_code != 200:
        raise Fail("discovery_failed", f"HTTP {r.status_code}")
    doc = r.json()
    if doc.get("issuer") != issuer:
        raise Fail("issuer_mismatch", f"{doc.get('issuer')!r} != {issuer!r}")
    return doc


def client_auth(a):
    if a.auth_method == "client_secret_basic":
        return (a.client_id, a.client_secret), {}
    if a.auth_method == "client_secret_post":
        return None, {"client_id": a.client_id, "client_secret": a.client_secret}
    return None, {"client_id": a.client_id}


def token_request(doc, a, form):
    auth, extra = client_auth(a)
    r = requests.post(doc["token_endpoint"], auth=auth, data=dict(extra, **form), timeout=30)
    body = r.json() if r.headers.get("Content-Type", "").startswith("application/json") else {}
    if r.status_code != 200:
        raise Fail(body.get("error", "token_request_failed"), body.get("error_description") or f"HTTP {r.status_code}")
    return body


def verify_id_token(doc, a, id_token, nonce=None):
    keys = jwk.JWKSet.from_json(requests.get(doc["jwks_uri"], timeout=10).text)
    t = jws.JWS()
    t.deserialize(id_token)
    key = keys.get_key(t.jose_header.get("kid"))
    if key is None or t.jose_header.get("alg") != "RS256":
        raise Fail("invalid_id_token", "unknown key or alg")
    t.verify(key, alg="RS256")
    claims = json.loads(t.payload)
    if claims.get("iss") != a.issuer or claims.get("aud") not in (a.client_id, [a.client_id]):
        raise Fail("invalid_id_token", "iss/aud")
    if claims.get("exp", 0) < time.time():
        raise Fail("invalid_id_token", "expired")
    if nonce is not None and claims.get("nonce") != nonce:
        raise Fail("invalid_id_token", "nonce")
    return claims


def login(a):
    doc = discover(a.issuer)
    redirect_uri = f"http://127.0.0.1:{a.port}/callback"
    verifier = b64url(secrets.token_bytes(32))
    state, nonce = b64url(secrets.token_bytes(16)), b64url(secrets.token_bytes(16))
    params = {"response_type": "code", "client_id": a.client_id, "redirect_uri": redirect_uri, "scope": a.scope,
              "state": state, "nonce": nonce, "code_challenge_method": "S256",
              "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest())}
    params.update(dict(kv.split("=", 1) for kv in a.param))
    got = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            got.update(parse_qsl(urlsplit(self.path).query))
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"done")

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", a.port), Handler)
    print("Open this URL to sign in:", file=sys.stderr)
    print(doc["authorization_endpoint"] + "?" + urlencode(params), file=sys.stderr, flush=True)
    server.handle_request()
    server.server_close()
    if got.get("state") != state:
        raise Fail("state_mismatch", "state")
    if "error" in got:
        raise Fail(got["error"], got.get("error_description", ""))
    if "iss" in got and got["iss"] != a.issuer:
        raise Fail("issuer_mismatch", "authorization response iss")
    tokens = token_request(doc, a, {"grant_type": "authorization_code", "code": got["code"],
                                    "redirect_uri": redirect_uri, "code_verifier": verifier})
    claims = verify_id_token(doc, a, tokens["id_token"], nonce)
    ui = requests.get(doc["userinfo_endpoint"], headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=10)
    granted = tokens.get("scope", a.scope).split()
    out = {"claims": claims, "userinfo": ui.json(), "granted_scopes": granted,
           "refused_scopes": [s for s in a.scope.split() if s not in granted],
           "expires_at": int(time.time()) + int(tokens.get("expires_in", 0))}
    if a.show_tokens:
        out["tokens"] = {k: tokens.get(k) for k in ("access_token", "refresh_token", "id_token", "token_type")}
    return out


def refresh(a):
    doc = discover(a.issuer)
    tokens = token_request(doc, a, {"grant_type": "refresh_token", "refresh_token": a.refresh_token})
    out = {"access_token": tokens["access_token"], "refresh_token": tokens.get("refresh_token"),
           "expires_at": int(time.time()) + int(tokens.get("expires_in", 0))}
    if tokens.get("id_token"):
        out["claims"] = verify_id_token(doc, a, tokens["id_token"])
    return out


def revoke(a):
    doc = discover(a.issuer)
    endpoint = a.revocation_endpoint or doc.get("revocation_endpoint")
    if not endpoint:
        raise Fail("revocation_not_supported", "no revocation endpoint")
    auth, extra = client_auth(a)
    form = dict(extra, token=a.token)
    if a.hint:
        form["token_type_hint"] = a.hint
    r = requests.post(endpoint, auth=auth, data=form, timeout=30)
    if r.status_code != 200:
        raise Fail(r.json().get("error", "revocation_failed"), f"HTTP {r.status_code}")
    return {"revoked": True}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("command", choices=["login", "token", "verify"])
    p.add_argument("sub", nargs="?", help="refresh|revoke after token; the ID token after verify")
    p.add_argument("--issuer", required=True)
    p.add_argument("--client-id")
    p.add_argument("--audience")
    p.add_argument("--nonce")
    p.add_argument("--client-secret")
    p.add_argument("--auth-method", default="client_secret_basic")
    p.add_argument("--scope", default="openid email profile")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--no-browser", action="store_true")
    p.add_argument("--param", action="append", default=[])
    p.add_argument("--show-tokens", action="store_true")
    p.add_argument("--refresh-token")
    p.add_argument("--token")
    p.add_argument("--hint")
    p.add_argument("--revocation-endpoint")
    a = p.parse_intermixed_args()
    try:
        if a.command == "verify":
            a.client_id = a.audience
            out = {"valid": True, "claims": verify_id_token(discover(a.issuer), a, a.sub, a.nonce)}
        elif a.command == "login":
            out = login(a)
        elif a.sub == "refresh":
            out = refresh(a)
        else:
            out = revoke(a)
    except Fail as exc:
        print(json.dumps({"error": exc.code, "message": str(exc)}))
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
