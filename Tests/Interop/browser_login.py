#!/usr/bin/env python3
"""Scripted browser: drives `federate login --no-browser` through a real provider's login page.

    browser_login.py --federate BIN --issuer ISS --client-id ID [--client-secret S]
                     [--auth-method M] [--scope "openid email profile"] --port LOGIN_PORT
                     [--show-tokens] [--param K=V ...] [--username U --password P]
                     [--timeout SECONDS] [-- EXTRA FEDERATE ARGS...]
    browser_login.py --provider-json FILE --client basic|post|public --federate BIN --port L ...
        (issuer, client id/secret/auth method and the user's credentials from dot_provider.py's
         JSON line; explicit options still win)

It starts `federate login --no-browser ...`, reads its standard error until the authorization
URL line (a line starting with http:// or https://), then with a requests.Session GETs that
URL, follows redirects one by one, fills in the login form (CSRF token included; a consent
form is approved too), and when the provider redirects to http://127.0.0.1:LOGIN_PORT/callback
it requests that URL, which delivers the code to federate's loopback listener. It then waits
for federate and prints ONE JSON object on stdout:

    {"exit": N, "output": {...federate's stdout JSON or null...}, "stdout": "...", "stderr": "...",
     "authorization_url": "...", "browser": {"steps": [...], "callback": {...}, "error": null}}

Exit status: 0 when federate ran to the end (whatever its own exit code), 2 when the harness
itself failed (no authorization URL, the browser could not reach the callback, a timeout).
"""
import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urljoin, urlsplit

import requests

MAX_HOPS = 25


class FormParser(HTMLParser):
    """Collects <form>s with their <input>/<button> fields (enough for Django's pages)."""

    def __init__(self):
        super().__init__()
        self.forms = []
        self._current = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self._current = {"attrs": attrs, "inputs": []}
            self.forms.append(self._current)
        elif tag in ("input", "button", "select", "textarea") and self._current is not None:
            self._current["inputs"].append(dict(attrs, _tag=tag))

    def handle_endtag(self, tag):
        if tag == "form":
            self._current = None


def parse_forms(html):
    parser = FormParser()
    parser.feed(html)
    return parser.forms


def _field_names(form):
    return {i.get("name") for i in form["inputs"] if i.get("name")}


def _base_fields(form):
    """Hidden and pre-filled fields (csrfmiddlewaretoken, next, DOT's hidden authorize fields)."""
    data = {}
    for i in form["inputs"]:
        name = i.get("name")
        if not name or i["_tag"] == "button" or i.get("type") in ("submit", "button", "image", "reset"):
            continue
        if i.get("type") in ("checkbox", "radio") and "checked" not in i:
            continue
        data[name] = i.get("value", "")
    return data


def _redact(url):
    """Drops query values that are secrets-ish from a URL for the step log."""
    parts = urlsplit(url)
    if not parts.query:
        return url
    keys = [k for k, _ in parse_qsl(parts.query, keep_blank_values=True)]
    return f"{parts.scheme}://{parts.netloc}{parts.path}?[{','.join(keys)}]"


def drive(authorization_url, callback_prefix, username, password, timeout=30.0, session=None):
    """Walks a browser from the authorization URL to the callback.

    Returns (report, callback_url). The callback URL is requested (delivering it to
    whatever listens there) unless that listener is absent; report["callback"] says how it went.
    """
    s = session or requests.Session()
    s.headers["User-Agent"] = "federate-interop-browser/1"
    steps = []
    report = {"steps": steps, "callback": None, "error": None}
    method, url, data = "GET", authorization_url, None
    logged_in = False
    for _ in range(MAX_HOPS):
        if url.startswith(callback_prefix):
            query = dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
            cb = {"url": _redact(url), "params": sorted(query), "error": query.get("error"),
                  "error_description": query.get("error_description"), "iss": query.get("iss")}
            refused_until = time.monotonic() + 3.0  # a human is never faster than this
            while True:
                try:
                    r = s.get(url, allow_redirects=False, timeout=timeout)
                    cb["status"] = r.status_code
                    cb["body"] = r.text[:500]
                    break
                except requests.ConnectionError as exc:
                    if "refused" in str(exc).lower() and time.monotonic() < refused_until:
                        cb["connection_refused_retries"] = cb.get("connection_refused_retries", 0) + 1
                        time.sleep(0.2)
                        continue
                    cb["status"] = None
                    cb["exception"] = f"{type(exc).__name__}: {exc}"
                    break
                except requests.RequestException as exc:
                    cb["status"] = None
                    cb["exception"] = f"{type(exc).__name__}: {exc}"
                    break
            report["callback"] = cb
            return report, url
        try:
            if method == "GET":
                r = s.get(url, allow_redirects=False, timeout=timeout)
            else:
                r = s.post(url, data=data, allow_redirects=False, timeout=timeout,
                           headers={"Referer": url})
        except requests.RequestException as exc:
            report["error"] = f"{method} {_redact(url)} failed: {type(exc).__name__}: {exc}"
            return report, None
        steps.append({"method": method, "url": _redact(url), "status": r.status_code})
        if r.is_redirect or r.status_code in (301, 302, 303, 307, 308):
            location = r.headers.get("Location")
            if not location:
                report["error"] = f"redirect {r.status_code} without Location from {_redact(url)}"
                return report, None
            next_url = urljoin(url, location)
            if r.status_code in (307, 308) and method == "POST":
                url = next_url  # keep method and body
            else:
                method, url, data = "GET", next_url, None
            continue
        if r.status_code != 200:
            report["error"] = f"{method} {_redact(url)} -> HTTP {r.status_code}: {r.text[:400]}"
            return report, None
        forms = parse_forms(r.text)
        login = next((f for f in forms if "password" in _field_names(f)), None)
        consent = next((f for f in forms if f["attrs"].get("id") == "authorizationForm"
                        or "allow" in _field_names(f)), None)
        if login is not None:
            if logged_in:
                report["error"] = "login form shown again after submitting credentials (wrong password?)"
                return report, None
            fields = _base_fields(login)
            fields.update({"username": username, "password": password})
            if "csrfmiddlewaretoken" not in fields and "csrftoken" in s.cookies:
                fields["csrfmiddlewaretoken"] = s.cookies["csrftoken"]
            method, url, data = "POST", urljoin(url, login["attrs"].get("action") or url), fields
            logged_in = True
            continue
        if consent is not None:
            fields = _base_fields(consent)
            fields["allow"] = "Authorize"
            method, url, data = "POST", urljoin(url, consent["attrs"].get("action") or url), fields
            continue
        report["error"] = f"{method} {_redact(url)} -> 200 page with no login/consent form: {r.text[:400]}"
        return report, None
    report["error"] = f"more than {MAX_HOPS} hops without reaching {callback_prefix}"
    return report, None


def _reader(stream, sink, lines_queue=None):
    for raw in iter(stream.readline, b""):
        line = raw.decode("utf-8", "replace")
        sink.append(line)
        if lines_queue is not None:
            lines_queue.put(line)
    stream.close()
    if lines_queue is not None:
        lines_queue.put(None)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--federate", required=True, help="path of the federate binary")
    p.add_argument("--provider-json", help="file holding dot_provider.py's JSON line")
    p.add_argument("--client", choices=["basic", "post", "public"], help="client from --provider-json")
    p.add_argument("--issuer")
    p.add_argument("--client-id")
    p.add_argument("--client-secret")
    p.add_argument("--auth-method", choices=["client_secret_basic", "client_secret_post", "none"])
    p.add_argument("--scope", default="openid email profile")
    p.add_argument("--port", type=int, required=True, help="federate's loopback callback port")
    p.add_argument("--param", action="append", default=[], help="KEY=VALUE passed as federate --param")
    p.add_argument("--show-tokens", action="store_true")
    p.add_argument("--username")
    p.add_argument("--password")
    p.add_argument("--timeout", type=float, default=90.0, help="overall seconds before giving up")
    p.add_argument("extra", nargs="*", help="extra federate arguments (after --)")
    a = p.parse_args()

    if a.provider_json:
        with open(a.provider_json) as f:
            info = json.loads(f.readline())
        client = info["clients"][a.client or "basic"]
        a.issuer = a.issuer or info["issuer"]
        a.client_id = a.client_id or client["client_id"]
        if a.client_secret is None:
            a.client_secret = client["client_secret"]
        a.auth_method = a.auth_method or client["auth_method"]
        a.username = a.username or info["user"]["username"]
        a.password = a.password or info["user"]["password"]
    for needed in ("issuer", "client_id", "username", "password"):
        if not getattr(a, needed):
            p.error(f"--{needed.replace('_', '-')} is required (or --provider-json)")

    cmd = [a.federate, "login", "--no-browser", "--issuer", a.issuer, "--client-id", a.client_id,
           "--scope", a.scope, "--port", str(a.port)]
    if a.client_secret:
        cmd += ["--client-secret=" + a.client_secret]  # "=" form: a secret may start with "-"
    if a.auth_method:
        cmd += ["--auth-method", a.auth_method]
    for kv in a.param:
        cmd += ["--param", kv]
    if a.show_tokens:
        cmd.append("--show-tokens")
    cmd += a.extra

    deadline = time.monotonic() + a.timeout
    result = {"exit": None, "output": None, "stdout": "", "stderr": "", "authorization_url": None,
              "browser": None, "command": [c if not a.client_secret or a.client_secret not in c else "***" for c in cmd]}
    harness_ok = True
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as exc:
        result["error"] = f"cannot start federate: {exc}"
        print(json.dumps(result))
        return 2
    out_lines, err_lines, err_queue = [], [], queue.Queue()
    threads = [threading.Thread(target=_reader, args=(proc.stdout, out_lines), daemon=True),
               threading.Thread(target=_reader, args=(proc.stderr, err_lines, err_queue), daemon=True)]
    for t in threads:
        t.start()

    url = None
    while url is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            result["error"] = "timed out waiting for the authorization URL on federate's stderr"
            break
        try:
            line = err_queue.get(timeout=remaining)
        except queue.Empty:
            continue
        if line is None:
            result["error"] = "federate closed stderr without printing an authorization URL"
            break
        stripped = line.strip()
        if stripped.startswith("https://") or stripped.startswith("http://"):
            url = stripped
    result["authorization_url"] = url

    if url is not None:
        report, callback = drive(url, f"http://127.0.0.1:{a.port}/callback", a.username, a.password,
                                 timeout=max(1.0, min(30.0, deadline - time.monotonic())))
        result["browser"] = report
        if report["error"] is not None:
            harness_ok = False
            result["error"] = "browser: " + report["error"]
    else:
        harness_ok = False

    try:
        proc.wait(timeout=max(0.1, deadline - time.monotonic()) if harness_ok else 5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        harness_ok = False
        result.setdefault("error", "federate did not exit in time (killed)")
        result["timed_out"] = True
    for t in threads:
        t.join(timeout=5)
    result["exit"] = proc.returncode
    result["stdout"] = "".join(out_lines)
    result["stderr"] = "".join(err_lines)
    try:
        result["output"] = json.loads(result["stdout"]) if result["stdout"].strip() else None
    except ValueError:
        result["output"] = None
        result["stdout_not_json"] = True
    print(json.dumps(result))
    return 0 if harness_ok else 2


if __name__ == "__main__":
    sys.exit(main())
