#!/usr/bin/env python3
"""Runs django-oauth-toolkit (DOT) as a plain OAuth 2.0 server, for Federate's OAuth-only
sign-in and its client-credentials grant.

    dot_service.py --port P --runtime-dir D --redirect-uri URI

Sets DOT up as dot_provider.py does (user alice), then adds two confidential applications:
`federate-oauth2` (authorization code, PKCE, RFC 6749 only: `algorithm` none, so no ID token
whatever the scope; redirect URI exactly URI; skip_authorization) and `federate-service`
(client credentials). The user endpoint is `/api/user/` (scope `read`,
interop_provider/plain_oauth2.py), and the browser is signed in as alice without a login form
(FEDERATE_DOT_AUTO_LOGIN). Prints ONE JSON line (issuer, endpoints, clients with plaintext
secrets), then serves on http://127.0.0.1:P until killed.
"""
import argparse
import json
import os
import secrets
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dot_provider  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--runtime-dir", required=True)
    parser.add_argument("--redirect-uri", required=True)
    args = parser.parse_args()
    os.environ["FEDERATE_DOT_AUTO_LOGIN"] = dot_provider.USER["username"]
    info = dot_provider.setup(argparse.Namespace(port=args.port, runtime_dir=args.runtime_dir, login_port=[9], no_authz_iss=False))

    from django.contrib.auth import get_user_model
    from oauth2_provider.models import get_application_model

    Application = get_application_model()
    user = get_user_model().objects.get(username=dot_provider.USER["username"])
    clients = {}
    for client_id, grant in (("federate-oauth2", Application.GRANT_AUTHORIZATION_CODE), ("federate-service", Application.GRANT_CLIENT_CREDENTIALS)):
        Application.objects.filter(client_id=client_id).delete()
        secret = secrets.token_urlsafe(32)
        Application.objects.create(
            name=client_id, client_id=client_id, client_secret=secret, hash_client_secret=True,
            client_type=Application.CLIENT_CONFIDENTIAL, authorization_grant_type=grant,
            redirect_uris=args.redirect_uri if grant == Application.GRANT_AUTHORIZATION_CODE else "",
            algorithm=Application.NO_ALGORITHM, skip_authorization=True, user=user)
        clients[client_id] = secret
    issuer = info["issuer"]
    sys.stdout.write(json.dumps({
        "issuer": issuer, "authorization_endpoint": issuer + "/authorize/", "token_endpoint": issuer + "/token/",
        "revocation_endpoint": issuer + "/revoke_token/", "user_endpoint": info["base_url"] + "/api/user/",
        "introspection_endpoint": issuer + "/introspect/", "clients": clients, "user_id": user.pk,
    }) + "\n")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    from django.core.management import call_command

    call_command("runserver", f"127.0.0.1:{args.port}", use_reloader=False, use_threading=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
