#!/usr/bin/env python3
"""Self-check of idpy_provider.py, with `requests` as the relying party.

    python idpy_selftest.py

Starts the provider on a free loopback port, runs the authorization code flow with PKCE S256,
state and nonce, exchanges the code with client_secret_basic (and a second code with
client_secret_post), and checks that the ID token has the nonce but no email or name, while
UserInfo returns sub, email, email_verified and name. Also checks that an unregistered redirect
URI gets no redirect. Prints `idpy selftest ok` and exits 0, or exits 1 with the reason; the
provider is always stopped.
"""

import base64
import hashlib
import json
import os
import secrets
import subprocess
import sys
import threading
import time

from free_ports import free_port
from urllib.parse import parse_qs, urlsplit

import requests

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT_ID = "idpy-selftest"
CLIENT_SECRET = "idpy-selftest-secret"
TIMEOUT = 10


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt_payload(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def start_provider(port, redirect_uri):
    cmd = [sys.executable, os.path.join(HERE, "idpy_provider.py"), "--port", str(port),
           "--client-id", CLIENT_ID, "--client-secret", CLIENT_SECRET, "--redirect-uri", redirect_uri]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stderr_lines = []
    threading.Thread(target=lambda: stderr_lines.extend(proc.stderr), daemon=True).start()
    ready = []
    reader = threading.Thread(target=lambda: ready.append(proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(15)
    issuer = f"http://127.0.0.1:{port}"
    if not ready or ready[0].strip() != f"READY {issuer}":
        proc.kill()
        proc.wait()
        time.sleep(0.2)
        raise Failure(f"provider not ready (got {ready!r}); stderr:\n" + "".join(stderr_lines[-30:]))
    return proc, issuer


def authorize(meta, redirect_uri, scope="openid email profile"):
    """One authorization request; returns (code, verifier, nonce) after checking the redirect."""
    verifier = b64url(secrets.token_bytes(32))
    state, nonce = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
    params = {
        "response_type": "code", "client_id": CLIENT_ID, "redirect_uri": redirect_uri,
        "scope": scope, "state": state, "nonce": nonce,
        "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest()),
        "code_challenge_method": "S256",
    }
    r = requests.get(meta["authorization_endpoint"], params=params, allow_redirects=False, timeout=TIMEOUT)
    check(r.status_code == 302, f"authorization: expected 302, got {r.status_code}: {r.text[:300]}")
    location = r.headers["Location"]
    check(location.split("?")[0] == redirect_uri, f"authorization: redirected to {location}")
    query = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
    check("error" not in query, f"authorization error: {query}")
    check(query.get("state") == state, f"authorization: state not echoed: {query}")
    check("code" in query, f"authorization: no code: {query}")
    if "iss" in query:
        check(query["iss"] == meta["issuer"], f"authorization: iss {query['iss']!r}")
    return query["code"], verifier, nonce


def token(meta, redirect_uri, code, verifier, auth_method):
    data = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
            "code_verifier": verifier}
    auth = None
    if auth_method == "client_secret_basic":
        auth = (CLIENT_ID, CLIENT_SECRET)
    else:
        data.update(client_id=CLIENT_ID, client_secret=CLIENT_SECRET)
    r = requests.post(meta["token_endpoint"], data=data, auth=auth, timeout=TIMEOUT)
    check(r.status_code == 200, f"token ({auth_method}): {r.status_code} {r.text[:300]}")
    body = r.json()
    check(body.get("token_type", "").lower() == "bearer", f"token: token_type {body.get('token_type')!r}")
    check("access_token" in body and "id_token" in body, f"token: missing tokens: {sorted(body)}")
    return body


def run(port):
    redirect_uri = f"http://127.0.0.1:{free_port()}/callback"
    proc, issuer = start_provider(port, redirect_uri)
    try:
        r = requests.get(issuer + "/.well-known/openid-configuration", timeout=TIMEOUT)
        check(r.status_code == 200, f"discovery: {r.status_code}")
        meta = r.json()
        check(meta.get("issuer") == issuer, f"discovery: issuer {meta.get('issuer')!r}")
        for key in ("authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri"):
            check(meta.get(key, "").startswith(issuer + "/"), f"discovery: {key} {meta.get(key)!r}")
        check("S256" in meta.get("code_challenge_methods_supported", []), "discovery: no S256")
        check("RS256" in meta.get("id_token_signing_alg_values_supported", []), "discovery: no RS256")
        check("client_secret_basic" in meta.get("token_endpoint_auth_methods_supported", []),
              "discovery: no client_secret_basic")
        keys = requests.get(meta["jwks_uri"], timeout=TIMEOUT).json()["keys"]
        check(any(k["kty"] == "RSA" for k in keys), f"jwks: no RSA key: {keys}")

        code, verifier, nonce = authorize(meta, redirect_uri)
        tokens = token(meta, redirect_uri, code, verifier, "client_secret_basic")
        claims = jwt_payload(tokens["id_token"])
        header = jwt_payload("." + tokens["id_token"].split(".")[0])
        check(header.get("alg") == "RS256", f"id_token: alg {header.get('alg')!r}")
        check(claims.get("iss") == issuer, f"id_token: iss {claims.get('iss')!r}")
        check(claims.get("nonce") == nonce, "id_token: nonce mismatch")
        check(CLIENT_ID in (claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]),
              f"id_token: aud {claims.get('aud')!r}")
        leaked = sorted({"email", "email_verified", "name"} & set(claims))
        check(not leaked, f"id_token must not carry {leaked}: {claims}")

        r = requests.get(meta["userinfo_endpoint"], timeout=TIMEOUT,
                         headers={"Authorization": "Bearer " + tokens["access_token"]})
        check(r.status_code == 200, f"userinfo: {r.status_code} {r.text[:300]}")
        info = r.json()
        expected = {"sub": claims["sub"], "email": "alice@example.com", "email_verified": True,
                    "name": "Alice Idpy"}
        check(all(info.get(k) == v for k, v in expected.items()), f"userinfo: {info}")

        # The code is single use.
        data = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
                "code_verifier": verifier}
        r = requests.post(meta["token_endpoint"], data=data, auth=(CLIENT_ID, CLIENT_SECRET), timeout=TIMEOUT)
        check(r.status_code >= 400, f"token: code reuse accepted ({r.status_code})")

        # client_secret_post works too.
        code, verifier, nonce = authorize(meta, redirect_uri)
        tokens = token(meta, redirect_uri, code, verifier, "client_secret_post")
        check(jwt_payload(tokens["id_token"]).get("nonce") == nonce, "id_token (post): nonce mismatch")

        # An unregistered redirect URI is never redirected to.
        r = requests.get(meta["authorization_endpoint"], allow_redirects=False, timeout=TIMEOUT, params={
            "response_type": "code", "client_id": CLIENT_ID, "redirect_uri": redirect_uri + "x",
            "scope": "openid", "state": "s", "nonce": "n", "code_challenge": "x" * 43,
            "code_challenge_method": "S256"})
        check(r.status_code >= 400, f"bad redirect_uri: expected an error, got {r.status_code}")
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    check(proc.returncode in (0, -15), f"provider exit status {proc.returncode}")


def main():
    try:
        run(free_port())
    except (Failure, requests.RequestException) as err:
        print(f"idpy selftest FAILED: {err}", file=sys.stderr)
        return 1
    print("idpy selftest ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
