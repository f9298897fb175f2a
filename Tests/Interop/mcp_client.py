#!/usr/bin/env python3
"""The official Python MCP SDK (`mcp`, pinned in requirements.txt) against a Federate-protected
Swift MCP server (`federate serve`'s /mcp: FederateMCP on Hummingbird, modelcontextprotocol/
swift-sdk's server, the dev provider as authorization server).

Usage: mcp_client.py --url http://127.0.0.1:PORT/mcp

1. Discovery: a request without a token gets 401 whose WWW-Authenticate names
   `resource_metadata`; the document there parses as the SDK's ProtectedResourceMetadata, names
   the server's URL as its resource (the check the SDK's client makes, RFC 8707) and the dev
   provider as authorization server. RFC 9728 §3.2's example parses too.
2. The SDK's own client (`mcp.Client` over streamable HTTP, `OAuthClientProvider`): from the 401
   it runs its OAuth flow on its own — metadata discovery, PKCE, `resource` — against the dev
   provider (public client `dev-public`, the person picking alice on its sign-in page), lists
   the tools and calls `whoami` and `echo`.
3. A token the dev provider minted for another resource: 401 `invalid_token` with the challenge.
4. A token for this server without the `mcp:whoami` scope: `whoami` is 403
   `insufficient_scope` naming it; `echo`, whose scope it has, answers.

Prints one JSON object {"ok": true|false, "steps": [...], "error": ...}; exits 0 only when every
step passed.
"""
import argparse
import asyncio
import base64
import hashlib
import json
import secrets
import sys
import urllib.parse
from html.parser import HTMLParser

import httpx2
import requests
from mcp import Client
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken, ProtectedResourceMetadata
from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url

RFC_9728_EXAMPLE = {
    "resource": "https://resource.example.com",
    "authorization_servers": ["https://as1.example.com", "https://as2.example.net"],
    "bearer_methods_supported": ["header", "body"],
    "scopes_supported": ["profile", "email", "phone"],
    "resource_documentation": "https://resource.example.com/resource_documentation.html",
}
REDIRECT_URI = "http://127.0.0.1:1/callback"  # never listened on: the code is read from the redirect itself


class PickerForm(HTMLParser):
    """The dev provider's sign-in page: its form's action and hidden fields."""

    def __init__(self):
        super().__init__()
        self.action, self.fields = None, {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = attrs.get("action")
        if tag == "input" and attrs.get("type") == "hidden" and attrs.get("name"):
            self.fields[attrs["name"]] = attrs.get("value", "")


def sign_in_as_alice(authorization_url):
    """What a person does on the dev provider's page: pick alice. Returns the redirect's parameters."""
    page = requests.get(authorization_url, allow_redirects=False, timeout=30)
    if page.status_code in (302, 303):
        location = page.headers["Location"]
    else:
        assert page.status_code == 200, "the sign-in page answered %d: %s" % (page.status_code, page.text[:300])
        form = PickerForm()
        form.feed(page.text)
        assert form.action, "no form on the dev provider's sign-in page"
        action = urllib.parse.urljoin(authorization_url, form.action)
        chosen = requests.post(action, data=dict(form.fields, user="alice"), allow_redirects=False, timeout=30)
        assert chosen.status_code in (302, 303), "picking alice answered %d: %s" % (chosen.status_code, chosen.text[:300])
        location = chosen.headers["Location"]
    assert location.startswith(REDIRECT_URI), "redirected to %s" % location
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))


def mint_token(issuer, resource, scope):
    """An access token from the dev provider's code flow (client dev-public, PKCE) for `resource`."""
    metadata = requests.get(issuer + "/.well-known/openid-configuration", timeout=30).json()
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": "dev-public", "redirect_uri": REDIRECT_URI, "scope": scope, "state": "s",
        "code_challenge": challenge, "code_challenge_method": "S256", "resource": resource})
    code = sign_in_as_alice(metadata["authorization_endpoint"] + "?" + query)["code"]
    token = requests.post(metadata["token_endpoint"], data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI, "client_id": "dev-public",
        "code_verifier": verifier, "resource": resource}, timeout=30)
    assert token.status_code == 200, token.text
    return token.json()["access_token"]


def call(url, token, tool, arguments):
    """A raw JSON-RPC tools/call with `token`, as any client sends it."""
    return requests.post(url, timeout=30, headers={
        "Authorization": "Bearer " + token, "Accept": "application/json, text/event-stream", "Content-Type": "application/json",
        "MCP-Protocol-Version": "2025-06-18"}, json={"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})


class MemoryStorage(TokenStorage):
    """The SDK's token storage, in memory, holding the pre-registered public client."""

    def __init__(self, issuer):
        self.tokens = None
        self.client = OAuthClientInformationFull(
            client_id="dev-public", redirect_uris=[REDIRECT_URI], token_endpoint_auth_method="none",
            grant_types=["authorization_code", "refresh_token"], response_types=["code"])

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


async def sdk_client(url, issuer, steps):
    """The SDK's client on its own: the 401, its discovery and OAuth flow, then the tools."""
    pending = {}

    async def redirect_handler(authorization_url):
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(authorization_url).query))
        pending["resource"] = query.get("resource")
        pending["code_challenge_method"] = query.get("code_challenge_method")
        pending["redirect"] = await asyncio.to_thread(sign_in_as_alice, authorization_url)

    async def callback_handler():
        redirect = pending["redirect"]
        return AuthorizationCodeResult(code=redirect["code"], state=redirect.get("state"), iss=redirect.get("iss"))

    storage = MemoryStorage(issuer)
    auth = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="mcp interop", redirect_uris=[REDIRECT_URI], grant_types=["authorization_code", "refresh_token"],
            response_types=["code"], token_endpoint_auth_method="none"),
        storage=storage, redirect_handler=redirect_handler, callback_handler=callback_handler)
    async with httpx2.AsyncClient(auth=auth, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            tools = await client.list_tools()
            names = sorted(tool.name for tool in tools.tools)
            assert names == ["echo", "whoami"], names
            whoami = await client.call_tool("whoami", {})
            text = whoami.content[0].text
            assert text.startswith("alice "), text
            echo = await client.call_tool("echo", {"text": "hello from Python"})
            assert echo.content[0].text == "hello from Python", echo
    assert pending.get("resource") == url, "the SDK asked for resource %r" % pending.get("resource")
    assert pending.get("code_challenge_method") == "S256"
    scope = storage.tokens.scope or ""
    assert set(scope.split()) >= {"mcp:echo", "mcp:whoami"}, scope
    steps.append("the SDK's client discovered the metadata from the 401, signed in with PKCE and resource=%s, called whoami: %s" % (url, text))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    a = p.parse_args()
    url = a.url
    steps = []
    try:
        # 1. The 401 and the metadata it names, read with the SDK's own model and checks.
        bare = requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=30,
                             headers={"Accept": "application/json, text/event-stream"})
        assert bare.status_code == 401, bare.status_code
        challenge = bare.headers["WWW-Authenticate"]
        assert challenge.startswith("Bearer resource_metadata=\""), challenge
        metadata_url = challenge.split('resource_metadata="', 1)[1].split('"', 1)[0]
        document = requests.get(metadata_url, timeout=30)
        assert document.status_code == 200 and document.headers["Content-Type"].startswith("application/json")
        prm = ProtectedResourceMetadata.model_validate_json(document.content)
        assert str(prm.resource) == url, (str(prm.resource), url)
        assert check_resource_allowed(requested_resource=resource_url_from_server_url(url), configured_resource=str(prm.resource))
        assert prm.bearer_methods_supported == ["header"] and sorted(prm.scopes_supported) == ["mcp:echo", "mcp:whoami"], prm
        issuer = str(prm.authorization_servers[0])
        example = ProtectedResourceMetadata.model_validate(RFC_9728_EXAMPLE)
        assert str(example.resource) == RFC_9728_EXAMPLE["resource"] and len(example.authorization_servers) == 2
        steps.append("401 names %s; the SDK's model reads it (resource %s, authorization server %s) and RFC 9728's example" % (
            metadata_url, prm.resource, issuer))

        # 2. The SDK's client, on its own.
        asyncio.run(sdk_client(url, issuer, steps))

        # 3. A token minted for another resource.
        other = mint_token(issuer, "https://other.example/mcp", "mcp:whoami mcp:echo")
        refused = call(url, other, "whoami", {})
        assert refused.status_code == 401, refused.status_code
        assert refused.headers["WWW-Authenticate"] == 'Bearer error="invalid_token", resource_metadata="%s"' % metadata_url, refused.headers
        assert refused.json()["error"] == "audience_mismatch", refused.text
        steps.append("a token for https://other.example/mcp: 401 %s" % refused.headers["WWW-Authenticate"])

        # 4. A token for this server without the tool's scope.
        narrow = mint_token(issuer, url, "mcp:echo")
        forbidden = call(url, narrow, "whoami", {})
        assert forbidden.status_code == 403, forbidden.status_code
        assert forbidden.headers["WWW-Authenticate"] == (
            'Bearer error="insufficient_scope", scope="mcp:whoami", resource_metadata="%s"' % metadata_url), forbidden.headers
        allowed = call(url, narrow, "echo", {"text": "scoped"})
        assert allowed.status_code == 200 and allowed.json()["result"]["content"][0]["text"] == "scoped", allowed.text
        steps.append("a token with mcp:echo only: whoami 403 insufficient_scope, echo 200")
        print(json.dumps({"ok": True, "steps": steps}))
        return 0
    except Exception as error:  # any failed step fails the test, with where it happened
        print(json.dumps({"ok": False, "steps": steps, "error": "%s: %s" % (type(error).__name__, error)}))
        return 1


if __name__ == "__main__":
    sys.exit(main())
