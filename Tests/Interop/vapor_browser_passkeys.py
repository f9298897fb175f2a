#!/usr/bin/env python3
"""Passkeys through the Vapor integration in a real browser: Debian's headless Chromium with its
virtual authenticator (CTAP2, resident keys, user verification) on the Vapor example app of
Docs/Vapor.md, served at http://localhost:PORT with passkeys configured. The example page has
no passkey buttons of its own, so the page's script is the one this test runs in the browser:
the same calls the reference app's page makes, to the routes FederateServer gives Vapor.

Alice signs in through the dev provider, registers a passkey (linked to her provider account),
signs out, signs in with the passkey to the same account, reauthenticates with it (user
verification required), and deletes her account (`DELETE /me`).

Prints one JSON object {"ok": true|false, "steps": [...], "error": ...}; exits 0 only when
every step passed.
"""
import argparse
import json
import os
import sys

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from browser_e2e import browser
from browser_passkeys import authenticator

# What the page would do: options from a route, the browser's ceremony, the response posted back
# as the Level 3 JSON forms. `arguments[0]` names the ceremony; the last argument is the callback.
CEREMONY = r"""
const done = arguments[arguments.length - 1];
const kind = arguments[0];
const fromB64u = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)), (c) => c.charCodeAt(0));
const toB64u = (b) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/[+]/g, "-").replace(/[/]/g, "_").replace(/=+$/, "");
const withIDs = (list) => (list || []).map((c) => ({ ...c, id: fromB64u(c.id) }));
(async () => {
  const me = await fetch("/me");
  const csrf = me.status === 200 ? (await me.json()).csrf_token : "";
  const post = (path, body) => fetch(path, { method: "POST", body, headers: { "X-CSRF-Token": csrf } });
  const paths = { register: ["/me/passkeys/options", "/me/passkeys"], signIn: ["/auth/passkey/options", "/auth/passkey"],
                  reauthenticate: ["/me/reauthenticate/passkey/options", "/me/reauthenticate/passkey"] }[kind];
  const options = await post(paths[0]);
  if (options.status !== 200) return done({ step: "options", status: options.status, body: await options.text() });
  const o = await options.json();
  let c;
  if (kind === "register") {
    c = await navigator.credentials.create({ publicKey: { ...o, challenge: fromB64u(o.challenge), user: { ...o.user, id: fromB64u(o.user.id) },
      excludeCredentials: withIDs(o.excludeCredentials) } });
  } else {
    c = await navigator.credentials.get({ publicKey: { ...o, challenge: fromB64u(o.challenge), allowCredentials: withIDs(o.allowCredentials) } });
  }
  const r = c.response, json = { id: c.id, rawId: toB64u(c.rawId), type: c.type, clientExtensionResults: c.getClientExtensionResults(),
    response: { clientDataJSON: toB64u(r.clientDataJSON) } };
  if (r.attestationObject) { json.response.attestationObject = toB64u(r.attestationObject); json.response.transports = r.getTransports(); }
  else { json.response.authenticatorData = toB64u(r.authenticatorData); json.response.signature = toB64u(r.signature);
         json.response.userHandle = r.userHandle ? toB64u(r.userHandle) : null; }
  const answer = await post(paths[1], JSON.stringify(json));
  done({ step: "response", status: answer.status, body: await answer.text() });
})().catch((e) => done({ step: "browser", error: e.name + ": " + e.message }));
"""

REQUEST = r"""
const done = arguments[arguments.length - 1];
(async () => {
  const me = await fetch("/me");
  const csrf = me.status === 200 ? (await me.json()).csrf_token : "";
  const response = await fetch(arguments[1], { method: arguments[0], headers: { "X-CSRF-Token": csrf } });
  done({ status: response.status, body: await response.text() });
})().catch((e) => done({ error: String(e) }));
"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    a = p.parse_args()
    steps = []
    driver = None
    try:
        driver = browser()
        driver.set_script_timeout(30)
        wait = WebDriverWait(driver, 30, ignored_exceptions=(WebDriverException,))

        def me():
            return driver.execute_async_script(REQUEST, "GET", "/me")

        def ceremony(kind):
            result = driver.execute_async_script(CEREMONY, kind)
            assert result.get("step") == "response" and result["status"] in (200, 201), (kind, result)
            return json.loads(result["body"])

        driver.get(a.url)
        authenticator(driver)
        wait.until(EC.element_to_be_clickable((By.ID, "sign-in"))).click()
        wait.until(EC.visibility_of_element_located((By.ID, "signed-in")))
        uid = json.loads(me()["body"])["uid"]
        steps.append("signed in through the dev provider")

        passkey = ceremony("register")
        listed = json.loads(driver.execute_async_script(REQUEST, "GET", "/me/passkeys")["body"])["passkeys"]
        assert [p["id"] for p in listed] == [passkey["id"]], listed
        steps.append("registered a passkey on the provider account")

        signed_out = driver.execute_async_script(REQUEST, "POST", "/auth/signout")
        assert signed_out["status"] == 200, signed_out
        assert me()["status"] == 401, "still signed in"
        signed_in = ceremony("signIn")
        assert signed_in["uid"] == uid and json.loads(me()["body"])["uid"] == uid, signed_in
        steps.append("signed out, signed in with the passkey: the same account")

        again = ceremony("reauthenticate")
        assert again["uid"] == uid and json.loads(me()["body"])["recent_login"] is True, again
        deleted = driver.execute_async_script(REQUEST, "DELETE", "/me")
        assert deleted["status"] == 200, deleted
        assert me()["status"] == 401, "the account outlived its deletion"
        steps.append("reauthenticated with the passkey, then deleted the account")
        print(json.dumps({"ok": True, "steps": steps}))
        return 0
    except Exception as error:  # any failed step fails the test, with where it happened
        print(json.dumps({"ok": False, "steps": steps, "error": "%s: %s" % (type(error).__name__, error)}))
        return 1
    finally:
        if driver is not None:
            driver.quit()


if __name__ == "__main__":
    sys.exit(main())
