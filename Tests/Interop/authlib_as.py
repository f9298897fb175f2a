#!/usr/bin/env python3
"""An OAuth 2.0 authorization server built on Authlib's server framework (PyPI `Authlib`), for
Federate's OAuth-only sign-in: no OpenID, no ID token; the user comes from a user endpoint.

    python authlib_as.py --port PORT --client-id ID --client-secret SECRET --redirect-uri URI

On 127.0.0.1:PORT, issuer http://127.0.0.1:PORT. The protocol is Authlib's: its
AuthorizationServer with the authorization-code grant, PKCE required (its CodeChallenge,
S256), client_secret_basic and client_secret_post, RFC 9207 `iss` in authorization responses
(its IssuerParameter), RFC 7009 revocation (its RevocationEndpoint), bearer tokens checked by
its ResourceProtector at the user endpoint `/api/user` (scope `profile`), and RFC 8414 metadata
at `/.well-known/oauth-authorization-server` validated by its AuthorizationServerMetadata. This
file holds only in-memory models and a thin HTTP adapter. The user `alice` (id 4242) is
approved without interaction. Prints `READY <issuer>` once it listens.
"""
import argparse
import json
import os
import secrets
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"  # loopback HTTP only

from authlib.oauth2 import AuthorizationServer, ResourceProtector  # noqa: E402
from authlib.oauth2.rfc6749 import ClientMixin, AuthorizationCodeMixin, TokenMixin, OAuth2Request  # noqa: E402
from authlib.oauth2.rfc6749.requests import BasicOAuth2Payload  # noqa: E402
from authlib.oauth2.rfc6749.grants import AuthorizationCodeGrant  # noqa: E402
from authlib.oauth2.rfc6750 import BearerTokenValidator  # noqa: E402
from authlib.oauth2.rfc7009 import RevocationEndpoint  # noqa: E402
from authlib.oauth2.rfc7636 import CodeChallenge  # noqa: E402
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata  # noqa: E402
from authlib.oauth2.rfc9207 import IssuerParameter  # noqa: E402

USER = {"id": 4242, "login": "alice", "email": "alice@example.com", "email_verified": True, "name": "Alice Authlib"}
CODES, TOKENS = {}, {}
LOCK = threading.Lock()


class Client(ClientMixin):
    def __init__(self, client_id, secret, redirect_uri):
        self.client_id, self.secret, self.redirect_uri = client_id, secret, redirect_uri

    def get_client_id(self): return self.client_id
    def get_default_redirect_uri(self): return self.redirect_uri
    def get_allowed_scope(self, scope): return " ".join(s for s in (scope or "").split() if s in ("profile", "email"))
    def check_redirect_uri(self, redirect_uri): return redirect_uri == self.redirect_uri
    def check_client_secret(self, client_secret): return secrets.compare_digest(client_secret, self.secret)
    def check_endpoint_auth_method(self, method, endpoint): return method in ("client_secret_basic", "client_secret_post")
    def check_response_type(self, response_type): return response_type == "code"
    def check_grant_type(self, grant_type): return grant_type == "authorization_code"


class Code(AuthorizationCodeMixin):
    def __init__(self, code, client_id, redirect_uri, scope, challenge, method):
        self.code, self.client_id, self.redirect_uri, self.scope = code, client_id, redirect_uri, scope
        self.code_challenge, self.code_challenge_method = challenge, method
        self.expires_at = time.time() + 60

    def get_redirect_uri(self): return self.redirect_uri
    def get_scope(self): return self.scope


class Token(TokenMixin):
    def __init__(self, values, client_id):
        self.values, self.client_id, self.revoked = values, client_id, False
        self.issued_at = time.time()

    def check_client(self, client): return client.get_client_id() == self.client_id
    def get_scope(self): return self.values.get("scope", "")
    def get_expires_in(self): return self.values.get("expires_in", 3600)
    def is_expired(self): return time.time() > self.issued_at + self.get_expires_in()
    def is_revoked(self): return self.revoked
    def get_user(self): return USER
    def get_client(self): return SERVER.client


class Request(OAuth2Request):
    def __init__(self, method, uri, headers, data):
        super().__init__(method, uri, headers=headers)
        self.payload = BasicOAuth2Payload(data)
        self._data = data

    @property
    def args(self): return self._data

    @property
    def form(self): return self._data


class Response:
    def __init__(self, status, body, headers):
        self.status, self.body, self.headers = status, body, list(headers)

    @property
    def location(self):
        return next((v for k, v in self.headers if k.lower() == "location"), None)

    @location.setter
    def location(self, value):
        self.headers = [(k, v) for k, v in self.headers if k.lower() != "location"] + [("Location", value)]


class CodeGrant(AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]

    def save_authorization_code(self, code, request):
        payload = request.payload.data
        with LOCK:
            CODES[code] = Code(code, request.client.get_client_id(), payload.get("redirect_uri"), payload.get("scope", ""),
                               payload.get("code_challenge"), payload.get("code_challenge_method"))

    def query_authorization_code(self, code, client):
        with LOCK:
            found = CODES.get(code)
        if found and found.client_id == client.get_client_id() and found.expires_at > time.time():
            return found
        return None

    def delete_authorization_code(self, authorization_code):
        with LOCK:
            CODES.pop(authorization_code.code, None)

    def authenticate_user(self, authorization_code):
        return USER


class Issuer(IssuerParameter):
    def get_issuer(self): return SERVER.issuer


class Revocation(RevocationEndpoint):
    CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]

    def query_token(self, token_string, token_type_hint):
        with LOCK:
            return TOKENS.get(token_string)

    def revoke_token(self, token, request):
        token.revoked = True


class Server(AuthorizationServer):
    def __init__(self, issuer, client):
        super().__init__(scopes_supported=["profile", "email"])
        self.issuer, self.client = issuer, client
        self.register_token_generator("default", self.bearer_tokens)

    @staticmethod
    def bearer_tokens(grant_type, client, user=None, scope=None, expires_in=None, include_refresh_token=True):
        return {"token_type": "Bearer", "access_token": secrets.token_urlsafe(32), "expires_in": 3600, "scope": scope or ""}

    def query_client(self, client_id): return self.client if client_id == self.client.client_id else None

    def save_token(self, token, request):
        with LOCK:
            TOKENS[token["access_token"]] = Token(token, request.client.get_client_id())

    def create_oauth2_request(self, request): return request
    def create_json_request(self, request): return request
    def handle_response(self, status, body, headers): return Response(status, body, headers)
    def send_signal(self, name, *args, **kwargs): pass


class Validator(BearerTokenValidator):
    def authenticate_token(self, token_string):
        with LOCK:
            return TOKENS.get(token_string)


SERVER = None
PROTECTOR = ResourceProtector()
PROTECTOR.register_token_validator(Validator())


def metadata(issuer):
    document = AuthorizationServerMetadata({
        "issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
        "revocation_endpoint": issuer + "/revoke", "response_types_supported": ["code"], "grant_types_supported": ["authorization_code"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "code_challenge_methods_supported": ["S256"], "scopes_supported": ["profile", "email"],
        "authorization_response_iss_parameter_supported": True,
    })
    document.validate()
    return document


class Handler(BaseHTTPRequestHandler):
    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (self.address_string(), fmt % args))

    def do_GET(self): self.dispatch()
    def do_POST(self): self.dispatch()

    def reply(self, response):
        body = response.body
        if isinstance(body, dict):
            body = json.dumps(body)
        body = (body or "").encode() if isinstance(body, str) else body
        self.send_response(response.status)
        for key, value in response.headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def dispatch(self):
        url = urlsplit(self.path)
        data = dict(parse_qsl(url.query))
        if self.command == "POST":
            data.update(parse_qsl(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()))
        request = Request(self.command, SERVER.issuer + self.path, dict(self.headers.items()), data)
        if url.path == "/.well-known/oauth-authorization-server":
            return self.reply(Response(200, dict(metadata(SERVER.issuer)), [("Content-Type", "application/json")]))
        if url.path == "/authorize":
            grant = SERVER.get_consent_grant(request, end_user=USER)
            return self.reply(SERVER.create_authorization_response(request, grant_user=USER, grant=grant))
        if url.path == "/token":
            return self.reply(SERVER.create_token_response(request))
        if url.path == "/revoke":
            return self.reply(SERVER.create_endpoint_response(Revocation.ENDPOINT_NAME, request))
        if url.path == "/api/user":
            try:
                PROTECTOR.validate_request(["profile"], request)
            except Exception as error:  # Authlib's own refusal (invalid_token, insufficient_scope)
                return self.reply(Response(401, {"error": getattr(error, "error", "invalid_token")}, [("Content-Type", "application/json")]))
            return self.reply(Response(200, USER, [("Content-Type", "application/json")]))
        return self.reply(Response(404, {"error": "not_found"}, [("Content-Type", "application/json")]))


def main():
    global SERVER
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--client-secret", required=True)
    parser.add_argument("--redirect-uri", required=True)
    args = parser.parse_args()
    issuer = f"http://127.0.0.1:{args.port}"
    SERVER = Server(issuer, Client(args.client_id, args.client_secret, args.redirect_uri))
    SERVER.register_grant(CodeGrant, [CodeChallenge(required=True)])
    SERVER.register_extension(Issuer())
    SERVER.register_endpoint(Revocation)
    httpd = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    httpd.daemon_threads = True
    httpd.block_on_close = False
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    print(f"READY {issuer}", flush=True)
    try:
        httpd.serve_forever()
    finally:
        httpd.server_close()


if __name__ == "__main__":
    main()
