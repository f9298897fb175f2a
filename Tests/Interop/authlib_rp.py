#!/usr/bin/env python3
"""An independent relying party (Authlib) signs in against an OpenID provider.

Used by the Swift test suite to check Federate's dev provider with code nobody here wrote:
discovery, the authorization-code flow with PKCE (S256), ID-token validation (signature by
the provider's JWKS, iss, aud, exp, iat, nonce, at_hash: Authlib's CodeIDToken rules) and
userinfo. The provider must auto-approve (the dev provider's default); the redirect is read
from the Location header, so nothing listens on the redirect URI.

Prints one JSON object: {"ok": true, "claims": {...}, "userinfo": {...}} or
{"ok": false, "error": "..."}; exits 0 only when every check passed.
"""
import argparse
import json
import secrets
import sys
import warnings

warnings.filterwarnings("ignore", category=DeprecationWarning)

import requests  # noqa: E402
from authlib.integrations.requests_client import OAuth2Session  # noqa: E402
from authlib.jose import JsonWebKey, jwt  # noqa: E402
from authlib.oidc.core import CodeIDToken  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--issuer", required=True)
    p.add_argument("--client-id", required=True)
    p.add_argument("--client-secret")
    p.add_argument("--redirect-uri", default="http://127.0.0.1:9/callback")
    p.add_argument("--scope", default="openid email profile")
    a = p.parse_args()

    discovery = requests.get(a.issuer.rstrip("/") + "/.well-known/openid-configuration", timeout=10).json()
    if discovery.get("issuer") != a.issuer:
        raise SystemExit(fail("discovery issuer %r differs from %r" % (discovery.get("issuer"), a.issuer)))

    method = "client_secret_basic" if a.client_secret else "none"
    session = OAuth2Session(
        a.client_id, a.client_secret, scope=a.scope, redirect_uri=a.redirect_uri,
        code_challenge_method="S256", token_endpoint_auth_method=method)
    verifier = secrets.token_urlsafe(48)
    nonce = secrets.token_urlsafe(24)
    url, state = session.create_authorization_url(discovery["authorization_endpoint"], code_verifier=verifier, nonce=nonce)

    redirect = requests.get(url, allow_redirects=False, timeout=10)
    location = redirect.headers.get("Location", "")
    if redirect.status_code != 302 or not location.startswith(a.redirect_uri):
        raise SystemExit(fail("authorization did not redirect back (status %d)" % redirect.status_code))

    token = session.fetch_token(discovery["token_endpoint"], authorization_response=location, code_verifier=verifier, state=state)

    keys = JsonWebKey.import_key_set(requests.get(discovery["jwks_uri"], timeout=10).json())
    claims = jwt.decode(
        token["id_token"], keys, claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "value": a.issuer}},
        claims_params={"nonce": nonce, "client_id": a.client_id, "access_token": token["access_token"]})
    claims.validate(leeway=60)
    if "at_hash" not in claims:
        raise SystemExit(fail("the ID token has no at_hash"))

    userinfo = session.get(discovery["userinfo_endpoint"], timeout=10).json()
    if userinfo.get("sub") != claims["sub"]:
        raise SystemExit(fail("userinfo sub differs from the ID token's"))

    print(json.dumps({"ok": True, "claims": dict(claims), "userinfo": userinfo, "scope": token.get("scope")}))
    return 0


def fail(message):
    print(json.dumps({"ok": False, "error": message}))
    return 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except Exception as error:  # any Authlib or HTTP failure is a failed check
        sys.exit(fail("%s: %s" % (type(error).__name__, error)))
