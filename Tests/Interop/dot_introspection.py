#!/usr/bin/env python3
"""Runs django-oauth-toolkit (DOT) with access tokens to introspect (RFC 7662).

    dot_introspection.py --port P --runtime-dir D

Sets DOT up as dot_provider.py does (user alice, confidential client "federate-interop-basic"
with a plaintext secret), then writes access tokens straight into DOT's database (no browser
sign-in needed to get them): an active one with scope "openid email", an active one with scope
"openid" only ("narrow"), an expired one, and one that is then revoked (deleted). Prints ONE
JSON line: the issuer, the introspection endpoint, the client and the tokens; then serves on
http://127.0.0.1:P until killed.
"""
import argparse
import datetime
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
    args = parser.parse_args()
    setup_args = argparse.Namespace(port=args.port, runtime_dir=args.runtime_dir, login_port=[9], no_authz_iss=False)
    info = dot_provider.setup(setup_args)

    from django.utils import timezone
    from oauth2_provider.models import get_access_token_model, get_application_model

    AccessToken = get_access_token_model()
    application = get_application_model().objects.get(client_id=info["clients"]["basic"]["client_id"])
    now = timezone.now()

    def mint(lifetime: int, scope: str = "openid email") -> str:
        token = secrets.token_urlsafe(32)
        AccessToken.objects.create(
            user=application.user, application=application, token=token, scope=scope,
            expires=now + datetime.timedelta(seconds=lifetime))
        return token

    active, narrow, expired, revoked = mint(3600), mint(3600, scope="openid"), mint(-3600), mint(3600)
    AccessToken.objects.filter(token=revoked).delete()
    sys.stdout.write(json.dumps({
        "issuer": info["issuer"], "introspection_endpoint": info["issuer"] + "/introspect/",
        "client_id": info["clients"]["basic"]["client_id"], "client_secret": info["clients"]["basic"]["client_secret"],
        "active": active, "narrow": narrow, "expired": expired, "revoked": revoked, "sub": info["user"]["username"],
    }) + "\n")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    from django.core.management import call_command

    call_command("runserver", f"127.0.0.1:{args.port}", use_reloader=False, use_threading=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
