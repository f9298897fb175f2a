#!/usr/bin/env python3
"""A page on another site tries to act for the signed-in account, in a real browser (Debian's
headless Chromium, driven by selenium) against `federate serve` with a throwaway SQLite file.

alice signs in with the dev provider. Then pages of another site (http://localhost:PORT, while
the app is http://127.0.0.1:PORT: another site to the browser) navigate the browser to the
link and reauthenticate starts, once with a Referer and once with `Referrer-Policy:
no-referrer`, the link with `returnTo=/?merge=1#` (the redirect that made the reference page
merge by itself). Each must be refused (403 `csrf_failed`) with nothing started: no redirect to
the provider, the same session, the same providers. As a control, the same reauthentication
started from the app's own page reaches the provider.

Prints one JSON object {"ok": true|false, "steps": [...], "error": ...}; exits 0 only when
every step passed. Needs chromium and chromium-driver (Debian) and selenium (requirements.txt).
"""
import argparse
import http.server
import json
import sys
import threading
import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser_e2e import browser, serve, stop


def attacker_site(pages):
    """An HTTP server on localhost serving `pages` ({path: html}); returns (server, origin)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = pages.get(self.path.split("?")[0])
            if body is None:
                self.send_response(404)
                self.end_headers()
                return
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://localhost:%d" % server.server_address[1]


def page(target, referrer):
    """A page that sends the browser to `target` as soon as it loads."""
    meta = '<meta name="referrer" content="no-referrer">' if not referrer else ""
    return (
        "<!doctype html><html><head>%s<title>win a prize</title></head><body>"
        "<script>window.location.href = %s;</script></body></html>" % (meta, json.dumps(target))
    )


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--federate", required=True)
    p.add_argument("--port", type=int, required=True)
    a = p.parse_args()
    steps = []
    server, work = serve(a.federate, {"port": a.port}, "federate-cross-site-")
    driver = None
    site = None
    try:
        url = json.loads(server.stdout.readline())["url"]
        origin = url.rstrip("/")
        steps.append("server listening at " + url)
        driver = browser()
        wait = WebDriverWait(driver, 20)

        def me():
            driver.get(origin + "/me")
            return json.loads(driver.find_element(By.TAG_NAME, "body").text)

        # alice signs in with the dev provider.
        driver.get(origin + "/auth/dev/start?returnTo=/")
        wait.until(lambda d: d.find_elements(By.XPATH, "//button[contains(., 'alice@example.com')]"))
        driver.find_element(By.XPATH, "//button[contains(., 'alice@example.com')]").click()
        wait.until(lambda d: d.current_url.startswith(origin + "/"))
        before = me()
        session = driver.get_cookie("federate_session")["value"]
        assert before["providers"] and len(before["providers"]) == 1, before
        steps.append("alice signed in")

        targets = {
            "link": origin + "/auth/dev/start?intent=link&returnTo=" + urllib.parse.quote("/?merge=1#", safe=""),
            "reauthenticate": origin + "/auth/dev/start?intent=reauthenticate&returnTo=/",
        }
        pages = {}
        for intent, target in targets.items():
            pages["/%s-referer.html" % intent] = page(target, referrer=True)
            pages["/%s-no-referer.html" % intent] = page(target, referrer=False)
        site, attacker = attacker_site(pages)
        for path in sorted(pages):
            driver.get(attacker + path)
            wait.until(lambda d: d.current_url.startswith(origin + "/auth/"))
            body = driver.find_element(By.TAG_NAME, "body").text
            assert "csrf_failed" in body, (path, driver.current_url, body[:300])
            assert driver.current_url.startswith(origin), (path, driver.current_url)
            assert driver.get_cookie("federate_session")["value"] == session, path
            after = me()
            assert after["uid"] == before["uid"] and after["providers"] == before["providers"], (path, after)
            steps.append("%s from %s: refused (csrf_failed), nothing started" % (path.strip("/").replace(".html", ""), attacker))

        # The control: the same reauthentication from the app's own page reaches the provider.
        driver.get(url)
        driver.execute_script("window.location.href = arguments[0];", targets["reauthenticate"])
        wait.until(lambda d: not d.current_url.startswith(origin + "/"))
        assert "/authorize" in driver.current_url and "prompt=login" in driver.current_url, driver.current_url
        steps.append("the same reauthentication from the app's own page reaches the provider, asking for a new sign-in")
        print(json.dumps({"ok": True, "steps": steps}))
        return 0
    except Exception as error:
        print(json.dumps({"ok": False, "steps": steps, "error": "%s: %s" % (type(error).__name__, error)}))
        return 1
    finally:
        if driver is not None:
            driver.quit()
        if site is not None:
            site.shutdown()
        stop(server, work)


if __name__ == "__main__":
    sys.exit(main())
