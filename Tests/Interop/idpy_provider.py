#!/usr/bin/env python3
"""A minimal OpenID Provider built on idpy-oidc (PyPI `idpyoidc`), for Federate's interop tests.

Why: the django-oauth-toolkit provider in this folder puts the user's claims into the ID token
as well as at UserInfo. This one, by a different team on a different stack, does what OpenID
Connect Core §5.4 allows instead: its ID token carries only protocol claims (iss, sub, aud, exp,
iat, nonce, auth_time, acr, ...), and `email`, `email_verified` and `name` are released only at
the UserInfo endpoint, for the scopes `email` and `profile`. A relying party that reads identity
claims from the ID token alone fails against it.

    python idpy_provider.py --port PORT --client-id ID --client-secret SECRET \
        --redirect-uri URI [--redirect-uri URI2 ...] [--acr VALUE ...]

With `--acr VALUE` (repeatable, for step-up tests) `alice` can also be signed in under each of
those authentication context classes: a request whose `acr_values` names one gets an ID token
with that `acr` (idpyoidc's own acr_values handling picks the authentication method); one that
names none of them is refused with `access_denied`.

It listens on 127.0.0.1:PORT only, with the issuer `http://127.0.0.1:PORT`, and prints one line
`READY http://127.0.0.1:PORT` on stdout once it listens; everything else goes to stderr. Flow:
authorization code with PKCE (S256 required); the fixed user `alice` is signed in without any
interaction (idpyoidc's NoAuthn), so /authorization answers with a 302 straight back to the
redirect URI. The token endpoint accepts client_secret_basic, client_secret_post and
client_secret_jwt. Pushed authorization requests (RFC 9126) go to /par, with the same client
authentication; `--require-par` makes discovery say `require_pushed_authorization_requests`. The protocol
logic is all idpyoidc's `Server`; this file is only configuration and a thin HTTP adapter. The
RSA 2048 signing key is generated at start into a temporary directory that is removed on exit;
idpyoidc's symmetric keys (cookies, codes, tokens) live in memory only.
"""

import argparse
import json
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from idpyoidc.message.oauth2 import ResponseMessage
from idpyoidc.server import Server
from idpyoidc.server.configure import OPConfiguration
from idpyoidc.server.exception import ClientAuthenticationError

USER = "alice"
USERS = {USER: {"email": "alice@example.com", "email_verified": True, "name": "Alice Idpy"}}

# URL path -> idpyoidc endpoint name.
ROUTES = {
    "/.well-known/openid-configuration": "provider_config",
    "/authorization": "authorization",
    "/token": "token",
    "/userinfo": "userinfo",
    "/par": "pushed_authorization",
    "/session": "session",
}
JWKS_PATH = "/jwks.json"


TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"
# The only resource --token-exchange lets a token be exchanged for: any other is idpyoidc's invalid_target.
EXCHANGE_RESOURCE = "https://orders.example/api"


def op_config(issuer, keydir, require_par=False, acrs=(), end_session=False, token_exchange=False):
    authentication = {
        "anon": {
            "acr": "urn:oasis:names:tc:SAML:2.0:ac:classes:unspecified",
            "class": "idpyoidc.server.user_authn.user.NoAuthn",
            "kwargs": {"user": USER},
        }
    }
    for index, acr in enumerate(acrs):
        authentication[f"level{index}"] = {"acr": acr, "class": "idpyoidc.server.user_authn.user.NoAuthn", "kwargs": {"user": USER}}
    return {
        "issuer": issuer,
        "base_url": issuer,  # jwks_uri = base_url + key_conf.uri_path
        # The RS256 signing key, generated now into the temporary directory. (idpyoidc's default
        # key paths are relative, "private/...", and would be created in the current directory.)
        "key_conf": {
            "key_defs": [{"type": "RSA", "size": 2048, "use": ["sig"]}],
            "private_path": os.path.join(keydir, "jwks.json"),
            "read_only": False,
            "uri_path": JWKS_PATH.lstrip("/"),
        },
        # Keys for the session cookie idpyoidc sets at /authorization; kept in memory.
        "cookie_handler": {
            "class": "idpyoidc.server.cookie_handler.CookieHandler",
            "kwargs": {
                "keys": {
                    "key_defs": [
                        {"type": "OCT", "use": ["enc"], "kid": "enc"},
                        {"type": "OCT", "use": ["sig"], "kid": "sig"},
                    ]
                },
                "name": {"session": "oidc_op", "register": "oidc_op_rp", "session_management": "sman"},
            },
        },
        "token_handler_args": {
            # No "class": codes and access tokens are opaque strings, encrypted with random
            # in-memory keys. (idpyoidc's default JWT access tokens are ES256, with no EC key here.)
            "code": {"kwargs": {"lifetime": 600}},
            "token": {"kwargs": {"lifetime": 3600}},
            # No add_claims_by_scope here: the ID token gets no user claims, whatever the scope.
            "id_token": {"class": "idpyoidc.server.token.id_token.IDToken", "kwargs": {}},
        },
        # What discovery advertises. idpyoidc builds the document from these preferences (falling
        # back to each endpoint class's defaults); the endpoint kwargs below do not change it.
        "preference": {
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code"] + ([TOKEN_EXCHANGE] if token_exchange else []),
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "client_secret_jwt"],
            "require_pushed_authorization_requests": require_par,
            "scopes_supported": ["openid", "email", "profile"],
            "claims_supported": ["sub", "email", "email_verified", "name"],
            "claims_parameter_supported": False,
            "request_parameter_supported": False,
            "encrypt_userinfo_supported": False,
            # Empty lists drop these from the document (there are no signed request objects,
            # JWT client authentication or signed UserInfo responses here).
            "request_object_signing_alg_values_supported": [],
            "token_endpoint_auth_signing_alg_values_supported": ["HS256"],
            "userinfo_signing_alg_values_supported": [],
        },
        "endpoint": {
            "provider_info": {
                "path": ".well-known/openid-configuration",
                "class": "idpyoidc.server.oidc.provider_config.ProviderConfiguration",
                "kwargs": {},
            },
            "authorization": {
                "path": "authorization",
                "class": "idpyoidc.server.oidc.authorization.Authorization",
                "kwargs": {},
            },
            "token": {
                "path": "token",
                "class": "idpyoidc.server.oidc.token.Token",
                "kwargs": token_kwargs(token_exchange),
            },
            **({"session": {
                "path": "session",
                "class": "idpyoidc.server.oidc.session.Session",
                "kwargs": {"logout_verify_url": issuer + "/verify_logout", "post_logout_uri_path": "logged_out", "signing_alg": "RS256"},
            }} if end_session else {}),
            "pushed_authorization": {
                "path": "par",
                "class": "idpyoidc.server.oauth2.pushed_authorization.PushedAuthorization",
                "kwargs": {"client_authn_method": ["client_secret_basic", "client_secret_post", "client_secret_jwt"], "ttl": 60},
            },
            "userinfo": {
                "path": "userinfo",
                "class": "idpyoidc.server.oidc.userinfo.UserInfo",
                # Release claims by scope (Core §5.4): email -> email, email_verified; profile -> name.
                "kwargs": {"client_authn_method": ["bearer_header"], "add_claims_by_scope": True},
            },
        },
        # Sign `alice` in without any interaction.
        "authentication": authentication,
        "userinfo": {"class": "idpyoidc.server.user_info.UserInfo", "kwargs": {"db": USERS}},
        # By default `sub` is sha256(user id + a salt drawn at each start); make it just "alice"
        # so that it is the same across runs.
        "session_params": {"sub_func": {"public": {"function": lambda uid, **_: uid}}},
        "add_on": {
            "pkce": {
                "function": "idpyoidc.server.oauth2.add_on.pkce.add_support",
                # add_support iterates the methods and then calls .keys() on them: a dict is needed.
                "kwargs": {"essential": True, "code_challenge_methods": {"S256": None}},
            }
        },
        "authz": {
            "class": "idpyoidc.server.authz.AuthzHandling",
            "kwargs": {
                "grant_config": {
                    "usage_rules": {
                        "authorization_code": {
                            "supports_minting": ["access_token", "id_token"],
                            "max_usage": 1,
                        },
                        # Token exchange (RFC 8693) mints an access token from an access token.
                        "access_token": {"supports_minting": ["access_token"]} if token_exchange else {},
                    },
                    "expires_in": 43200,
                }
            },
        },
    }


def token_kwargs(token_exchange):
    kwargs = {"client_authn_method": ["client_secret_basic", "client_secret_post", "client_secret_jwt"]}
    if token_exchange:
        kwargs["grant_types_helpers"] = {
            "authorization_code": {"class": "idpyoidc.server.oidc.token_helper.access_token.AccessTokenHelper", "kwargs": {}},
            TOKEN_EXCHANGE: {
                "class": "idpyoidc.server.oauth2.token_helper.token_exchange.TokenExchangeHelper",
                "kwargs": {
                    "subject_token_types_supported": [ACCESS_TOKEN_TYPE],
                    "requested_token_types_supported": [ACCESS_TOKEN_TYPE],
                    "policy": {"": {"function": "idpyoidc.server.oauth2.token_helper.validate_token_exchange_policy",
                                    "kwargs": {"scope": ["openid", "email", "profile"], "resource": [EXCHANGE_RESOURCE]}}},
                },
            },
        }
    return kwargs


def make_server(issuer, keydir, client_id, client_secret, redirect_uris, require_par=False, acrs=(), post_logout_uris=(), token_exchange=False):
    server = Server(OPConfiguration(
        conf=op_config(issuer, keydir, require_par, acrs, end_session=bool(post_logout_uris), token_exchange=token_exchange), base_path=keydir), cwd=keydir)
    server.context.cdb[client_id] = {
        "client_id": client_id,
        "client_secret": client_secret,
        # (base, query) pairs; the match is exact on the base and the query.
        "redirect_uris": [(uri, {}) for uri in redirect_uris],
        "response_types_supported": ["code"],
        "allowed_scopes": ["openid", "email", "profile"],
        "post_logout_redirect_uri": [(uri, {}) for uri in post_logout_uris],
        "grant_types_supported": ["authorization_code"] + ([TOKEN_EXCHANGE] if token_exchange else []),
    }
    if require_par:  # idpyoidc has the flag in its metadata model but does not publish it from preferences
        server.context.provider_info["require_pushed_authorization_requests"] = True
    if post_logout_uris:
        # idpyoidc 5.0.0's Session.parse_request runs client authentication, whose "none" method
        # always answers, then reads a token from that answer and fails (KeyError 'token') for every
        # request. RP-Initiated Logout has no client authentication (the id_token_hint's aud names
        # the client, and idpyoidc checks it against its session): skip that step for this endpoint.
        server.get_endpoint("session").client_authentication = lambda *args, **kwargs: None
    # client_secret_jwt: idpyoidc verifies HS256 assertions with the client's symmetric key.
    server.keyjar.add_symmetric(client_id, client_secret)
    return server


class Handler(BaseHTTPRequestHandler):
    server_version = "idpy-provider"
    op = None  # the idpyoidc Server, set in main()
    lock = threading.Lock()

    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (self.address_string(), fmt % args))

    def do_GET(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def send(self, status, body=b"", headers=()):
        if isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_error_json(self, status, error, description):
        body = ResponseMessage(error=error, error_description=description).to_json()
        self.send(status, body, [("Content-Type", "application/json")])

    def dispatch(self):
        url = urlsplit(self.path)
        if url.path == JWKS_PATH and self.command == "GET":
            body = json.dumps(self.op.context.keyjar.export_jwks())
            return self.send(200, body, [("Content-Type", "application/json")])
        name = ROUTES.get(url.path)
        if name is None:
            return self.send_error_json(404, "not_found", url.path)
        endpoint = self.op.get_endpoint(name)

        if self.command == "GET":
            args = dict(parse_qsl(url.query))
        else:
            length = int(self.headers.get("Content-Length") or 0)
            args = dict(parse_qsl(self.rfile.read(length).decode()))
        if name == "authorization":
            # idpyoidc honours a `claims` request parameter even when discovery says
            # claims_parameter_supported=false; ignore it so nothing can pull email into the ID token.
            args.pop("claims", None)
        # idpyoidc's session cookie (set at /authorization) is what its end-session endpoint
        # finds the session by: pass the browser's cookies on, to that endpoint only (at
        # /authorization they would make idpyoidc reuse an earlier authentication, and its acr).
        cookies = []
        for pair in (self.headers.get("Cookie") or "").split(";"):
            cookie, _, value = pair.strip().partition("=")
            if cookie:
                cookies.append({"name": cookie, "value": value})
        http_info = {
            "headers": {k.lower(): v for k, v in self.headers.items() if k.lower() != "cookie"},
            "method": self.command,
            "url": self.op.issuer + self.path,
            "cookie": cookies if name == "session" else [],
        }
        with self.lock:  # idpyoidc's in-memory session store is not meant for concurrent use
            self.handle_endpoint(name, endpoint, args, http_info)

    def handle_endpoint(self, name, endpoint, args, http_info):
        try:
            request = endpoint.parse_request(args, http_info=http_info)
            if isinstance(request, ResponseMessage) and "error" in request:
                status = 401 if request["error"] in ("invalid_client", "invalid_token") else 400
                return self.send(status, request.to_json(), [("Content-Type", "application/json")])
            result = endpoint.process_request(request, http_info=http_info)
        except ClientAuthenticationError as err:  # unknown client, wrong secret
            logging.warning("%s: %r", name, err)
            return self.send_error_json(401 if name == "token" else 400, "invalid_client", str(err))
        except Exception as err:  # idpyoidc raises for bad redirect URIs and other bad requests
            logging.exception("%s failed", name)
            return self.send_error_json(400, "invalid_request", str(err))

        if isinstance(result, ResponseMessage) and "error" in result:
            return self.send(400, result.to_json(), [("Content-Type", "application/json")])
        if name == "pushed_authorization":  # idpyoidc hands back the answer itself: request_uri, expires_in
            return self.send(201, json.dumps(result["http_response"]), [("Content-Type", "application/json")])
        if "http_response" in result:  # would be a login page; NoAuthn never asks for one
            return self.send(200, result["http_response"], [("Content-Type", "text/html")])
        if name == "session":
            return self.verified_logout(endpoint, result["redirect_location"])
        info = endpoint.do_response(request=request, **result)
        cookies = [("Set-Cookie", f"{c['name']}={c['value']}; Path=/; HttpOnly") for c in info.get("cookie", [])]
        if endpoint.response_placement == "url" or info.get("response_placement") == "url":
            return self.send(302, headers=[("Location", info["response"])] + cookies)
        status = info.get("response_code", 400 if "error" in result else 200)
        return self.send(status, info["response"], info.get("http_headers", []))


    def verified_logout(self, endpoint, location):
        """The person confirms at idpyoidc's logout page at once (as NoAuthn signs them in at
        once): its signed `sjwt` names the session and where to go; the session ends (idpyoidc's
        do_verified_logout), a line `LOGOUT <sid> <state>` goes to stdout, and the browser goes
        back to the post_logout_redirect_uri with the state."""
        sjwt = dict(parse_qsl(urlsplit(location).query))["sjwt"]
        payload = endpoint.unpack_signed_jwt(sjwt)
        endpoint.do_verified_logout(payload["sid"])
        print(f"LOGOUT {payload['sid']} {payload.get('state', '-')}", flush=True)
        return self.send(302, headers=[("Location", payload["redirect_uri"])])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--client-secret", required=True)
    parser.add_argument("--redirect-uri", action="append", required=True)
    parser.add_argument("--require-par", action="store_true", help="advertise require_pushed_authorization_requests")
    parser.add_argument("--acr", action="append", default=[])
    parser.add_argument("--post-logout-redirect-uri", action="append", default=[],
                        help="serve the end-session endpoint (RP-Initiated Logout 1.0), returning to this registered URI")
    parser.add_argument("--token-exchange", action="store_true", help="accept RFC 8693 token exchange at the token endpoint")
    args = parser.parse_args()
    # idpyoidc logs every request at INFO, headers included; WARNING keeps stderr readable.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    issuer = f"http://127.0.0.1:{args.port}"
    keydir = tempfile.mkdtemp(prefix="idpy-op-")
    try:
        os.chdir(keydir)  # anything idpyoidc writes by relative path lands in the temporary directory too
        Handler.op = make_server(
            issuer, keydir, args.client_id, args.client_secret, args.redirect_uri, args.require_par, args.acr,
            post_logout_uris=args.post_logout_redirect_uri, token_exchange=args.token_exchange)
        httpd = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
        # Clients such as AsyncHTTPClient keep connections alive: their handler threads wait for
        # a next request. Do not join them on shutdown, or SIGTERM would never end the process.
        httpd.daemon_threads = True
        httpd.block_on_close = False
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        # A parent that spawned us from a thread with SIGTERM blocked (Foundation's Process does)
        # passes that mask on: unblock it, or the test's terminate() would wait forever.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
        print(f"READY {issuer}", flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            httpd.server_close()
    finally:
        shutil.rmtree(keydir, ignore_errors=True)


if __name__ == "__main__":
    main()
