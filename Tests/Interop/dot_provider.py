#!/usr/bin/env python3
"""Sets up and runs django-oauth-toolkit (DOT) as an OpenID provider on 127.0.0.1.

    dot_provider.py start --port P --runtime-dir D --login-port L [--login-port L2 ...] [--no-authz-iss]
                          [--redirect-uri URI ...] [--access-token-seconds N] [--refresh-reuse-protection]
    dot_provider.py setup ...same options...   (set up and print the JSON line, don't serve)

--redirect-uri adds exact redirect URIs (a `federate serve` callback, /auth/NAME/callback);
--access-token-seconds shortens access tokens (default 3600); --refresh-reuse-protection turns
on DOT's REFRESH_TOKEN_REUSE_PROTECTION: a rotated-out refresh token presented again revokes
its whole token family.

Run it with the interop venv's python (see venv.sh). `start`:
  1. writes a fresh RSA key and Django secret into the runtime dir (reused if present),
  2. migrates an SQLite DB in the runtime dir,
  3. creates user `alice` and three applications (confidential "basic" and "post",
     public "public"), all authorization-code, RS256, skip_authorization, with redirect
     URIs exactly http://127.0.0.1:<L>/callback for every --login-port,
  4. prints ONE JSON line on stdout (issuer, clients with plaintext secrets, user),
  5. serves on http://127.0.0.1:P until killed (server logs go to stderr).
"""
import argparse
import json
import os
import secrets
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROVIDER_DIR = HERE / "provider"

USER = {
    "username": "alice",
    "password": "wonderland-Passw0rd",
    "email": "alice@example.com",
    "given_name": "Alice",
    "family_name": "Liddell",
}

# DOT accepts both client_secret_basic and client_secret_post from any confidential
# client; the two confidential applications exist so each auth method is exercised
# with its own client and tokens.
CLIENTS = {
    "basic": {"client_id": "federate-interop-basic", "confidential": True, "auth_method": "client_secret_basic"},
    "post": {"client_id": "federate-interop-post", "confidential": True, "auth_method": "client_secret_post"},
    "public": {"client_id": "federate-interop-public", "confidential": False, "auth_method": "none"},
}


def prepare_runtime(runtime: Path) -> None:
    runtime.mkdir(parents=True, exist_ok=True)
    secret_file = runtime / "django-secret.txt"
    if not secret_file.exists():
        secret_file.write_text(secrets.token_urlsafe(48))
        secret_file.chmod(0o600)
    key_file = runtime / "oidc-rsa-key.pem"
    if not key_file.exists():
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        key_file.write_bytes(pem)
        key_file.chmod(0o600)


def setup(args) -> dict:
    runtime = Path(args.runtime_dir).resolve()
    prepare_runtime(runtime)
    base = f"http://127.0.0.1:{args.port}"
    issuer = f"{base}/o"
    os.environ["FEDERATE_DOT_RUNTIME_DIR"] = str(runtime)
    os.environ["FEDERATE_DOT_ISSUER"] = issuer
    os.environ["FEDERATE_DOT_AUTHZ_ISS"] = "0" if args.no_authz_iss else "1"
    # Other scripts (dot_introspection.py) call setup() with only the first options.
    os.environ["FEDERATE_DOT_ACCESS_TOKEN_SECONDS"] = str(getattr(args, "access_token_seconds", 3600))
    os.environ["FEDERATE_DOT_REFRESH_REUSE_PROTECTION"] = "1" if getattr(args, "refresh_reuse_protection", False) else "0"
    os.environ["DJANGO_SETTINGS_MODULE"] = "interop_provider.settings"
    sys.path.insert(0, str(PROVIDER_DIR))

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from oauth2_provider.models import get_application_model

    call_command("migrate", interactive=False, verbosity=0)

    User = get_user_model()
    user, _ = User.objects.get_or_create(username=USER["username"])
    user.email = USER["email"]
    user.first_name = USER["given_name"]
    user.last_name = USER["family_name"]
    user.set_password(USER["password"])
    user.save()

    Application = get_application_model()
    redirect_uris = [f"http://127.0.0.1:{p}/callback" for p in args.login_port] + (getattr(args, "redirect_uri", None) or [])
    clients = {}
    for name, spec in CLIENTS.items():
        Application.objects.filter(client_id=spec["client_id"]).delete()
        plaintext = secrets.token_urlsafe(32) if spec["confidential"] else ""
        Application.objects.create(
            name=f"Federate interop ({name})",
            client_id=spec["client_id"],
            # DOT hashes the secret on save (hash_client_secret=True): keep the plaintext.
            client_secret=plaintext,
            hash_client_secret=True,
            client_type=(
                Application.CLIENT_CONFIDENTIAL if spec["confidential"] else Application.CLIENT_PUBLIC
            ),
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            redirect_uris=" ".join(redirect_uris),
            algorithm=Application.RS256_ALGORITHM,
            skip_authorization=True,
            user=user,
        )
        clients[name] = {
            "client_id": spec["client_id"],
            "client_secret": plaintext or None,
            "auth_method": spec["auth_method"],
        }

    return {
        "event": "ready",
        "issuer": issuer,
        "base_url": base,
        "port": args.port,
        "discovery_url": f"{issuer}/.well-known/openid-configuration",
        "revocation_endpoint": f"{issuer}/revoke_token/",
        "login_ports": args.login_port,
        "redirect_uris": redirect_uris,
        "authorization_response_iss": not args.no_authz_iss,
        "clients": clients,
        "user": dict(USER, sub=str(user.pk)),
        "runtime_dir": str(runtime),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["start", "setup"])
    parser.add_argument("--port", type=int, required=True, help="provider port on 127.0.0.1")
    parser.add_argument("--runtime-dir", required=True, help="DB, key and secret go here")
    parser.add_argument(
        "--login-port", type=int, action="append", required=True,
        help="port of the RP's loopback callback (repeatable); registered as http://127.0.0.1:PORT/callback",
    )
    parser.add_argument("--no-authz-iss", action="store_true", help="don't send RFC 9207 iss in authorization responses")
    parser.add_argument("--redirect-uri", action="append", help="one more exact redirect URI (repeatable)")
    parser.add_argument("--access-token-seconds", type=int, default=3600, help="access token lifetime")
    parser.add_argument(
        "--refresh-reuse-protection", action="store_true", help="a reused refresh token revokes its family (REFRESH_TOKEN_REUSE_PROTECTION)")
    args = parser.parse_args()

    info = setup(args)
    sys.stdout.write(json.dumps(info) + "\n")
    sys.stdout.flush()
    if args.command == "setup":
        return 0

    # Keep stdout to the one JSON line: the server's own chatter goes to stderr.
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    from django.core.management import call_command

    call_command("runserver", f"127.0.0.1:{args.port}", use_reloader=False, use_threading=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
