#!/usr/bin/env python3
"""Runs django-oauth-toolkit (DOT) for the device authorization grant (RFC 8628), and plays
the person who approves (or denies) each sign-in on another device.

    dot_device.py --port P --runtime-dir D

Sets DOT up as dot_provider.py does (user alice), then registers three clients that may use
only the device grant (Application.GRANT_DEVICE_CODE):

  stock   federate-interop-device         public;  approved; DOT's answer as it comes: no ID token
  oidc    federate-interop-device-oidc    public;  approved; with an ID token DOT makes (see below)
  denied  federate-interop-device-denied  confidential (client_secret_basic/_post); denied

Prints ONE JSON line on stdout:

  {"event": "ready", "issuer", "device_authorization_endpoint", "token_endpoint", "interval",
   "clients": {"stock" | "oidc" | "denied": {"client_id", "client_secret"}}, "user": {"username", "sub"}}

then serves on http://127.0.0.1:P until killed (server logs go to stderr). DOT 3.4 serves the
device authorization endpoint at /o/device-authorization/ but advertises no
`device_authorization_endpoint` in either discovery document: the relying party must be told.

The person: a background thread watches DOT's database for pending device grants. Once a
grant has been polled and answered `authorization_pending` at least once (so the relying
party is seen to keep polling), it signs in as alice through the provider's login form and
answers through DOT's own pages over HTTP, as a person with a browser would: /o/device/
(enter the user code; DOT records alice on the grant) then /o/device-confirm/<client>/<code>
("accept", or "deny" for the denied client; DOT sets the grant's status to authorized or
denied). Nothing is written into DOT's database directly. More JSON lines follow on stdout:

  {"event": "approved" | "denied", "client_id", "user_code", "pending_polls": N, "status", "user"}
  {"event": "tokens", "client_id", "id_token": bool, "keys": [...]}    each poll DOT answered with tokens
  {"event": "person_failed", "detail"}                                 the person could not answer

ID tokens: DOT (through oauthlib's DeviceCodeGrant) answers the device grant with an access
and a refresh token only, even with `openid` granted; Federate, an OpenID relying party,
requires an ID token. For the "oidc" client the harness runs DOT's own ID-token code on the
answer (oauthlib's OpenID add_id_token and DOT's finalize_id_token, the same claims, key and
signature as DOT's code flow), as a deployer wanting OpenID sign-in on devices would.
"""
import argparse
import json
import os
import re
import secrets
import sys
import threading
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dot_provider  # noqa: E402

# role: (client_id, confidential, the person's answer, ID token added)
CLIENTS = {
    "stock": ("federate-interop-device", False, "accept", False),
    "oidc": ("federate-interop-device-oidc", False, "accept", True),
    "denied": ("federate-interop-device-denied", True, "deny", False),
}
ANSWERS = {client_id: answer for client_id, _, answer, _ in CLIENTS.values()}
ID_TOKEN_CLIENTS = {client_id for client_id, _, _, id_token in CLIENTS.values() if id_token}


def register_clients(user) -> dict:
    from oauth2_provider.models import get_application_model

    Application = get_application_model()
    clients = {}
    for role, (client_id, confidential, _, _) in CLIENTS.items():
        Application.objects.filter(client_id=client_id).delete()
        plaintext = secrets.token_urlsafe(32) if confidential else ""
        Application.objects.create(
            name=f"Federate interop device ({role})",
            client_id=client_id,
            # DOT hashes the secret on save (hash_client_secret=True): keep the plaintext.
            client_secret=plaintext,
            hash_client_secret=True,
            client_type=Application.CLIENT_CONFIDENTIAL if confidential else Application.CLIENT_PUBLIC,
            # A DOT application has one grant type: these may use only the device grant.
            authorization_grant_type=Application.GRANT_DEVICE_CODE,
            redirect_uris="",
            algorithm=Application.RS256_ALGORITHM,
            user=user,
        )
        clients[role] = {"client_id": client_id, "client_secret": plaintext or None}
    return clients


def install_oauthlib4_shims() -> None:
    """DOT 3.4.1 was written against oauthlib 3; requirements.txt pins oauthlib 4.0.1, which
    changed two things under DOT's device grant. Without these shims DOT answers HTTP 500,
    first at the device authorization endpoint, then at the token endpoint once a grant is
    approved. Neither changes what goes over the wire otherwise.

    1. oauthlib 4 adds the resolved `scope` to the device authorization answer, and DOT's
       view passes the answer to its DeviceCodeResponse dataclass, which has no `scope`
       field (TypeError). Shim: drop the fields the dataclass does not know.
    2. oauthlib 4's DeviceCodeGrant asks the validator for `validate_device_code` (the base
       class raises NotImplementedError), which DOT's OAuth2Validator does not implement.
       Shim: the status DOT's own token view reads from the grant, with the user and scopes
       DOT's pre-token hook (set_oauthlib_user_to_device_request_user) sets.
    """
    import dataclasses

    from oauth2_provider import models
    from oauth2_provider.oauth2_validators import OAuth2Validator
    from oauth2_provider.views import device as device_views

    known = {field.name for field in dataclasses.fields(models.DeviceCodeResponse)}

    def device_code_response(**fields):
        return models.DeviceCodeResponse(**{k: v for k, v in fields.items() if k in known})

    device_views.DeviceCodeResponse = device_code_response

    if "validate_device_code" not in vars(OAuth2Validator):
        def validate_device_code(self, client_id, code, request, *args, **kwargs):
            DeviceGrant = models.get_device_grant_model()
            try:
                grant = DeviceGrant.objects.get(device_code=code, client_id=client_id)
            except DeviceGrant.DoesNotExist:
                return None
            if grant.is_expired():
                return "expired_token"
            status = {
                DeviceGrant.AUTHORIZED: "authorized",
                DeviceGrant.AUTHORIZATION_PENDING: "authorization_pending",
                DeviceGrant.DENIED: "access_denied",
            }.get(grant.status)
            if status == "authorized":
                request.user = grant.user
                request.scopes = grant.scope.split() if grant.scope else []
            return status

        OAuth2Validator.validate_device_code = validate_device_code


def add_id_tokens(client_ids: set) -> None:
    """Adds DOT's own ID token to device-grant answers for `client_ids` (see the docstring at
    the top): oauthlib's OpenID `add_id_token` (aud, iat, at_hash) completed and signed by DOT's
    `finalize_id_token` (iss, exp, auth_time, jti, the scope's claims; RS256 with its key)."""
    from oauthlib.oauth2.rfc8628.grant_types.device_code import DeviceCodeGrant
    from oauthlib.openid.connect.core.grant_types.base import GrantTypeBase

    class OpenIDDeviceCode(GrantTypeBase):
        def __init__(self, target):
            self.proxy_target = target

    class WithIDToken:
        def __init__(self, grant, handler):
            self.openid, self.handler = OpenIDDeviceCode(grant), handler

        def create_token(self, request, *args, **kwargs):
            token = self.handler.create_token(request, *args, **kwargs)
            client_id = getattr(request.client, "client_id", None) or request.client_id
            if client_id in client_ids:
                token = self.openid.add_id_token(token, self.handler, request)
            return token

        def __getattr__(self, name):
            return getattr(self.handler, name)

    original = DeviceCodeGrant.create_token_response

    def create_token_response(self, request, token_handler):
        return original(self, request, WithIDToken(self, token_handler))

    DeviceCodeGrant.create_token_response = create_token_response


class Events:
    """JSON lines on the original standard output (the server's chatter goes to stderr)."""

    def __init__(self, stream):
        self.stream = stream
        self.lock = threading.Lock()

    def emit(self, **fields) -> None:
        with self.lock:
            self.stream.write(json.dumps(fields) + "\n")
            self.stream.flush()


class PollCounter:
    """Counts, per device code, the polls DOT answered `authorization_pending`; reports each
    answer with tokens."""

    def __init__(self):
        self.lock = threading.Lock()
        self.pending = {}

    def install(self, events: Events) -> None:
        from oauth2_provider.views.base import TokenView

        original = TokenView.device_flow_token_response
        counter = self

        def counted(view, request, device_code, *args, **kwargs):
            response = original(view, request, device_code, *args, **kwargs)
            try:
                body = json.loads(response.content or b"{}")
            except ValueError:
                body = {}
            if body.get("error") == "authorization_pending":
                with counter.lock:
                    counter.pending[device_code] = counter.pending.get(device_code, 0) + 1
            elif response.status_code == 200:
                from oauth2_provider.models import get_device_grant_model

                grant = get_device_grant_model().objects.filter(device_code=device_code).first()
                events.emit(
                    event="tokens", client_id=grant.client_id if grant else None, id_token="id_token" in body,
                    keys=sorted(body))
            return response

        TokenView.device_flow_token_response = counted

    def count(self, device_code: str) -> int:
        with self.lock:
            return self.pending.get(device_code, 0)


CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def answer_as_person(base: str, user: dict, user_code: str, answer: str) -> None:
    """Signs in as `user` and answers a device grant through DOT's own pages."""
    import requests

    session = requests.Session()

    def submit(url: str, data: dict) -> "requests.Response":
        page = session.get(url, timeout=30)
        page.raise_for_status()
        token = CSRF.search(page.text)
        if token is None:
            raise RuntimeError(f"no CSRF token on {url}")
        reply = session.post(
            url, data=dict(data, csrfmiddlewaretoken=token.group(1)), headers={"Referer": url}, timeout=30,
            allow_redirects=False)
        if reply.status_code != 302:
            raise RuntimeError(f"POST {url} answered {reply.status_code}: {reply.text[:500]}")
        return reply

    submit(f"{base}/accounts/login/", {"username": user["username"], "password": user["password"]})
    # The verification_uri page: the person types the code shown by the device.
    entered = submit(f"{base}/o/device/", {"user_code": user_code})
    confirm = entered.headers["Location"]
    if confirm.startswith("/"):
        confirm = base + confirm
    submit(confirm, {"action": answer})


def person(base: str, user: dict, counter: PollCounter, events: Events) -> None:
    from django.db import close_old_connections
    from oauth2_provider.models import get_device_grant_model

    DeviceGrant = get_device_grant_model()
    answered = set()
    while True:
        time.sleep(0.2)
        try:
            close_old_connections()
            for grant in DeviceGrant.objects.filter(status=DeviceGrant.AUTHORIZATION_PENDING):
                if grant.device_code in answered or counter.count(grant.device_code) < 1:
                    continue
                answered.add(grant.device_code)
                answer = ANSWERS.get(grant.client_id, "deny")
                answer_as_person(base, user, grant.user_code, answer)
                grant.refresh_from_db()
                events.emit(
                    event="approved" if answer == "accept" else "denied", client_id=grant.client_id,
                    user_code=grant.user_code, pending_polls=counter.count(grant.device_code), status=grant.status,
                    user=grant.user.username if grant.user else None)
        except Exception:  # keep the person alive; the test sees the event and fails
            traceback.print_exc()
            events.emit(event="person_failed", detail=traceback.format_exc()[-2000:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True, help="provider port on 127.0.0.1")
    parser.add_argument("--runtime-dir", required=True, help="DB, key and secret go here")
    args = parser.parse_args()
    setup_args = argparse.Namespace(port=args.port, runtime_dir=args.runtime_dir, login_port=[9], no_authz_iss=False)
    info = dot_provider.setup(setup_args)

    from django.contrib.auth import get_user_model
    from oauth2_provider.settings import oauth2_settings

    clients = register_clients(get_user_model().objects.get(username=info["user"]["username"]))
    install_oauthlib4_shims()
    add_id_tokens(ID_TOKEN_CLIENTS)

    issuer = info["issuer"]
    events = Events(os.fdopen(os.dup(sys.stdout.fileno()), "w"))
    events.emit(
        event="ready", issuer=issuer, device_authorization_endpoint=issuer + "/device-authorization/",
        token_endpoint=issuer + "/token/", interval=oauth2_settings.DEVICE_FLOW_INTERVAL, clients=clients,
        user={"username": info["user"]["username"], "sub": info["user"]["sub"]},
    )
    # Keep stdout to the JSON lines: the server's own chatter goes to stderr.
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())

    counter = PollCounter()
    counter.install(events)
    threading.Thread(
        target=person, args=(info["base_url"], info["user"], counter, events), name="person", daemon=True).start()

    from django.core.management import call_command

    call_command("runserver", f"127.0.0.1:{args.port}", use_reloader=False, use_threading=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
