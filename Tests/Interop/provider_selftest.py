#!/usr/bin/env python3
"""A relying party written in Python, run against the DOT provider to prove the provider side
of the harness works independently of Federate (so a failing scenario points at Federate).

    provider_selftest.py --provider-json FILE --login-port L [--client basic|post|public ...]

For each client: authorization code + PKCE S256 with state and nonce through the scripted
browser (browser_login.drive) into a one-shot listener on http://127.0.0.1:L/callback, code
exchange with the client's auth method, ID token signature and claims checks (RS256 via the
JWKS), userinfo, refresh, revocation of the refresh token and a refresh afterwards that must
fail with invalid_grant, and a token request with a wrong secret that must fail with
invalid_client. Prints ONE JSON object: {"ok": bool, "checks": [...], "observed": {...}}.
"""
import argparse
import base64
import hashlib
import http.server
import json
import secrets
import sys
import threading
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import requests
from jwcrypto import jwk, jws

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_login import drive  # noqa: E402


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class OneShotCallback:
    """Listens on 127.0.0.1:port for a single GET /callback and keeps its query."""

    def __init__(self, port):
        self.query = None
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                outer.query = dict(parse_qsl(urlsplit(self.path).query, keep_blank_values=True))
                body = b"ok, you can close this window"
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.server.handle_request, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.thread.join(timeout=5)
        self.server.server_close()


class Checker:
    def __init__(self):
        self.checks = []

    def check(self, name, ok, detail=None):
        entry = {"check": name, "ok": bool(ok)}
        if not ok and detail is not None:
            entry["detail"] = detail if isinstance(detail, (str, int, float, bool)) else json.loads(json.dumps(detail, default=str))
        self.checks.append(entry)
        return ok

    @property
    def ok(self):
        return all(c["ok"] for c in self.checks)


def client_auth(client, secret=None):
    """Returns (auth, extra form fields) for the client's token endpoint auth method."""
    secret = client["client_secret"] if secret is None else secret
    method = client["auth_method"]
    if method == "client_secret_basic":
        return (client["client_id"], secret), {}
    if method == "client_secret_post":
        return None, {"client_id": client["client_id"], "client_secret": secret}
    return None, {"client_id": client["client_id"]}


def run_client(name, info, login_port, c: Checker, observed, dump):
    client = info["clients"][name]
    disco = requests.get(info["discovery_url"], timeout=10).json()
    jwks = jwk.JWKSet.from_json(requests.get(disco["jwks_uri"], timeout=10).text)
    redirect_uri = f"http://127.0.0.1:{login_port}/callback"
    verifier = b64url(secrets.token_bytes(32))
    challenge = b64url(hashlib.sha256(verifier.encode()).digest())
    state, nonce = b64url(secrets.token_bytes(16)), b64url(secrets.token_bytes(16))
    auth_url = disco["authorization_endpoint"] + "?" + urlencode({
        "response_type": "code", "client_id": client["client_id"], "redirect_uri": redirect_uri,
        "scope": "openid email profile", "state": state, "nonce": nonce,
        "code_challenge": challenge, "code_challenge_method": "S256",
    })
    with OneShotCallback(login_port) as cb:
        report, _ = drive(auth_url, redirect_uri, info["user"]["username"], info["user"]["password"])
    p = f"{name}:"
    if not c.check(p + "browser reached callback", report["error"] is None and cb.query is not None,
                   report["error"] or report):
        return
    q = cb.query
    c.check(p + "state echoed", q.get("state") == state, q)
    if info.get("authorization_response_iss"):
        c.check(p + "RFC 9207 iss in authorization response", q.get("iss") == info["issuer"], q.get("iss"))
    observed["authorization_response_params"] = sorted(q)
    if not c.check(p + "code returned", "code" in q, q):
        return

    auth, extra = client_auth(client)
    token_url = disco["token_endpoint"]
    r = requests.post(token_url, auth=auth, timeout=30, data=dict(extra, grant_type="authorization_code",
                      code=q["code"], redirect_uri=redirect_uri, code_verifier=verifier))
    if not c.check(p + "code exchange 200", r.status_code == 200, r.text[:300]):
        return
    tokens = r.json()
    dump[name] = {"client_id": client["client_id"], "nonce": nonce, "id_token": tokens.get("id_token"),
                  "access_token": tokens.get("access_token")}
    observed[f"{name}_token_response_keys"] = sorted(tokens)
    observed["token_type"] = tokens.get("token_type")
    observed["granted_scope"] = tokens.get("scope")

    idt = jws.JWS()
    idt.deserialize(tokens["id_token"])
    header = idt.jose_header
    key = jwks.get_key(header.get("kid"))
    c.check(p + "id_token kid found in JWKS", key is not None, header)
    try:
        idt.verify(key, alg="RS256")
        sig_ok = True
    except Exception as exc:  # noqa: BLE001
        sig_ok = False
        observed["verify_error"] = str(exc)
    c.check(p + "id_token RS256 signature verifies", sig_ok and header.get("alg") == "RS256", header)
    claims = json.loads(idt.payload)
    observed["id_token_header"] = header
    observed["id_token_claim_names"] = sorted(claims)
    c.check(p + "iss == issuer", claims.get("iss") == info["issuer"], claims.get("iss"))
    c.check(p + "aud == client_id", claims.get("aud") in (client["client_id"], [client["client_id"]]), claims.get("aud"))
    c.check(p + "nonce echoed", claims.get("nonce") == nonce, claims.get("nonce"))
    c.check(p + "exp in the future", claims.get("exp", 0) > time.time(), claims.get("exp"))
    c.check(p + "sub is the user", claims.get("sub") == info["user"]["sub"], claims.get("sub"))
    c.check(p + "email claim", claims.get("email") == info["user"]["email"], claims.get("email"))
    if "at_hash" in claims:
        digest = hashlib.sha256(tokens["access_token"].encode("ascii")).digest()
        c.check(p + "at_hash matches", claims["at_hash"] == b64url(digest[:16]), claims["at_hash"])

    r = requests.get(disco["userinfo_endpoint"], headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=10)
    c.check(p + "userinfo 200", r.status_code == 200, r.text[:300])
    if r.status_code == 200:
        observed["userinfo_content_type"] = r.headers.get("Content-Type")
        observed["userinfo"] = r.json()
        c.check(p + "userinfo sub matches", r.json().get("sub") == claims.get("sub"), r.json())

    refresh = tokens.get("refresh_token")
    if not c.check(p + "refresh_token issued", bool(refresh), sorted(tokens)):
        return
    r = requests.post(token_url, auth=auth, timeout=30, data=dict(extra, grant_type="refresh_token", refresh_token=refresh))
    if c.check(p + "refresh 200", r.status_code == 200, r.text[:300]):
        refreshed = r.json()
        observed["refresh_response_keys"] = sorted(refreshed)
        observed["refresh_rotates_refresh_token"] = refreshed.get("refresh_token") != refresh
        if "id_token" in refreshed:
            t2 = jws.JWS()
            t2.deserialize(refreshed["id_token"])
            t2.verify(jwks.get_key(t2.jose_header.get("kid")), alg="RS256")
            rc = json.loads(t2.payload)
            observed["refresh_id_token_claim_names"] = sorted(rc)
            c.check(p + "refreshed id_token same sub/iss", rc.get("sub") == claims.get("sub") and rc.get("iss") == claims.get("iss"), rc)
        refresh = refreshed.get("refresh_token", refresh)
        # The pre-rotation refresh token is dead now.
        r = requests.post(token_url, auth=auth, timeout=30, data=dict(extra, grant_type="refresh_token", refresh_token=tokens["refresh_token"]))
        observed["old_refresh_token_reuse"] = {"status": r.status_code, "error": _error(r)}

    r = requests.post(info["revocation_endpoint"], auth=auth, timeout=30,
                      data=dict(extra, token=refresh, token_type_hint="refresh_token"))
    c.check(p + "revocation 200", r.status_code == 200, r.text[:300])
    r = requests.post(token_url, auth=auth, timeout=30, data=dict(extra, grant_type="refresh_token", refresh_token=refresh))
    c.check(p + "refresh after revocation -> 400 invalid_grant", r.status_code == 400 and _error(r) == "invalid_grant",
            {"status": r.status_code, "body": r.text[:300]})

    if client["client_secret"]:
        auth, extra = client_auth(client, secret="definitely-not-the-secret")
        r = requests.post(token_url, auth=auth, timeout=30, data=dict(extra, grant_type="authorization_code",
                          code="bogus", redirect_uri=redirect_uri, code_verifier=verifier))
        c.check(p + "wrong secret -> 401 invalid_client", r.status_code == 401 and _error(r) == "invalid_client",
                {"status": r.status_code, "body": r.text[:300], "www_authenticate": r.headers.get("WWW-Authenticate")})


def _error(r):
    try:
        return r.json().get("error")
    except ValueError:
        return None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--provider-json", required=True)
    p.add_argument("--login-port", type=int, required=True)
    p.add_argument("--client", action="append", choices=["basic", "post", "public"])
    p.add_argument("--dump-tokens", help="write {client: {client_id, nonce, id_token, access_token}} here")
    a = p.parse_args()
    with open(a.provider_json) as f:
        info = json.loads(f.readline())
    c, observed, dump = Checker(), {}, {}
    disco = requests.get(info["discovery_url"], timeout=10).json()
    c.check("discovery issuer == issuer", disco.get("issuer") == info["issuer"], disco.get("issuer"))
    observed["discovery"] = {k: disco.get(k) for k in (
        "token_endpoint_auth_methods_supported", "code_challenge_methods_supported",
        "id_token_signing_alg_values_supported", "response_types_supported",
        "authorization_response_iss_parameter_supported", "claims_supported")}
    observed["discovery_advertises_revocation_endpoint"] = "revocation_endpoint" in disco
    rfc8414 = requests.get(info["issuer"] + "/.well-known/oauth-authorization-server", timeout=10)
    if rfc8414.status_code == 200:
        observed["rfc8414_revocation_endpoint"] = rfc8414.json().get("revocation_endpoint")
    for name in a.client or ["basic", "post", "public"]:
        try:
            run_client(name, info, a.login_port, c, observed, dump)
        except Exception as exc:  # noqa: BLE001
            c.check(f"{name}: no exception", False, f"{type(exc).__name__}: {exc}")
    if a.dump_tokens:
        with open(a.dump_tokens, "w") as f:
            json.dump(dump, f)
    print(json.dumps({"ok": c.ok, "checks": c.checks, "observed": observed}))
    return 0 if c.ok else 1


if __name__ == "__main__":
    sys.exit(main())
