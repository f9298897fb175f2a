#!/usr/bin/env python3
"""Passkeys in a real browser: Debian's headless Chromium with its virtual authenticator (the
DevTools protocol's WebAuthn domain through selenium: CTAP2, resident keys, user verification)
on `federate serve`'s demo page, served at http://localhost:PORT (browsers refuse an IP address
as RP ID; localhost is a secure context).

1. A guest adds a passkey (its account becomes a full one), signs out, and signs back in with
   the passkey to the same account.
2. With a new authenticator: Alice signs in with the dev provider, adds a passkey (linked to an
   account that has a provider), signs out, and signs in with the passkey the browser offers
   in the sign-in field (autofill: conditional mediation, which the virtual authenticator
   answers as a person choosing it would) to her account; her
   sign-in grows old, Delete asks for a fresh one, she confirms with the passkey (user
   verification), and deletes the account; her passkey then signs no one in.

The first ceremonies Chromium makes (the guest's registration and sign-in) are captured as the
page sends them and verified again by a WebAuthn relying party we did not write, py_webauthn
(PyPI `webauthn`), with the challenges Federate issued.

Prints one JSON object {"ok": true|false, "steps": [...], "error": ...}; exits 0 only when
every step passed.
"""
import argparse
import json
import os
import sys
import time

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from webauthn import verify_authentication_response, verify_registration_response
from webauthn.helpers import base64url_to_bytes

from browser_e2e import browser, serve, stop

RECENT_LOGIN_SECONDS = 4

# Records what the page sends to and gets from the passkey routes (until it navigates away).
CAPTURE = r"""
window.__passkeys = [];
const original = window.fetch;
window.fetch = async (url, options) => {
  const response = await original(url, options);
  if (String(url).includes("passkey")) {
    window.__passkeys.push({ url: String(url), sent: (options && options.body) || null, status: response.status,
                             answer: await response.clone().text() });
  }
  return response;
};
"""


def verify_independently(captured, origin):
    """py_webauthn verifies the registration and the sign-in Chromium made, with Federate's challenges."""
    def exchange(path):
        """The challenge of `path`/options and what the page then posted to `path`."""
        options = next(c for c in captured if c["url"].endswith(path + "/options"))
        answer = next(c for c in captured if c["url"].split("?")[0].endswith(path) and c["sent"])
        return base64url_to_bytes(json.loads(options["answer"])["challenge"]), answer["sent"]
    challenge, registration = exchange("/me/passkeys")
    registered = verify_registration_response(
        credential=registration, expected_challenge=challenge, expected_rp_id="localhost", expected_origin=origin)
    challenge, assertion = exchange("/auth/passkey")
    verify_authentication_response(
        credential=assertion, expected_challenge=challenge, expected_rp_id="localhost", expected_origin=origin,
        credential_public_key=registered.credential_public_key, credential_current_sign_count=registered.sign_count)


def authenticator(driver):
    """A fresh platform authenticator that holds discoverable credentials and verifies the user."""
    try:
        driver.remove_virtual_authenticator()
    except Exception:
        pass
    options = VirtualAuthenticatorOptions()
    options.protocol = VirtualAuthenticatorOptions.Protocol.CTAP2
    options.transport = VirtualAuthenticatorOptions.Transport.INTERNAL
    options.has_resident_key = True
    options.has_user_verification = True
    options.is_user_consenting = True
    options.is_user_verified = True
    driver.add_virtual_authenticator(options)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--federate", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--screenshots", required=True)
    a = p.parse_args()
    os.makedirs(a.screenshots, exist_ok=True)
    steps = []
    origin = "http://localhost:%d" % a.port
    server, work = serve(a.federate, {"port": a.port, "origin": origin, "guests": True}, "federate-passkeys-",
                         ["--recent-login-seconds", str(RECENT_LOGIN_SECONDS)])
    driver = None
    try:
        started = json.loads(server.stdout.readline())
        assert started["url"] == origin + "/", started
        assert started.get("passkeys", "").startswith("on"), started
        driver = browser()
        wait = WebDriverWait(driver, 20, ignored_exceptions=(WebDriverException,))

        def click(element_id):
            wait.until(EC.element_to_be_clickable((By.ID, element_id))).click()

        def shot(name):
            driver.save_screenshot(os.path.join(a.screenshots, name + ".png"))

        def message(text):
            wait.until(EC.text_to_be_present_in_element((By.ID, "message-text"), text))
            return driver.find_element(By.ID, "message-code").text

        def me():
            return driver.execute_script(
                "var r = new XMLHttpRequest(); r.open('GET', '/me', false); r.send(); return [r.status, r.responseText];")

        def signed_in():
            wait.until(EC.visibility_of_element_located((By.ID, "signed-in")))
            wait.until(lambda d: d.find_element(By.ID, "who").text.strip() != "")
            status, body = me()
            assert status == 200, (status, body)
            return json.loads(body)["uid"]

        def passkeys():
            return driver.find_elements(By.CSS_SELECTOR, "#passkeys li")

        def sign_out():
            click("sign-out")
            wait.until(EC.visibility_of_element_located((By.ID, "signed-out")))

        # 1. A guest registers a passkey, signs out, signs back in with it.
        driver.get(origin + "/")
        authenticator(driver)
        wait.until(EC.visibility_of_element_located((By.ID, "signed-out")))
        assert driver.find_element(By.ID, "passkey-sign-in").is_displayed()
        click("guest")
        guest = signed_in()
        driver.execute_script(CAPTURE)
        click("passkey-add")
        message("Passkey added")
        wait.until(lambda d: len(passkeys()) == 1)
        shot("passkey-1-added")
        assert json.loads(me()[1]).get("guest") is not True, "a guest with a passkey is a guest no more"
        steps.append("a guest registered a passkey: a full account")
        sign_out()
        click("passkey-sign-in")
        message("You signed in with your passkey.")
        assert signed_in() == guest
        shot("passkey-2-signed-in")
        verify_independently(driver.execute_script("return window.__passkeys"), origin)
        steps.append("signed out, signed back in with the passkey: the same account (py_webauthn verifies both ceremonies)")
        sign_out()

        # 2. A new authenticator; Alice's account has the dev provider, then a passkey.
        authenticator(driver)
        click("sign-in-dev")
        wait.until(EC.element_to_be_clickable((By.XPATH, "//button[contains(., 'alice@example.com')]"))).click()
        alice = signed_in()
        assert alice != guest
        click("passkey-add")
        message("Passkey added")
        wait.until(lambda d: len(passkeys()) == 1)
        steps.append("linked a passkey to an account that has a provider")
        sign_out()
        click("passkey-username")  # the field's autofill offers the passkey
        message("You signed in with your passkey.")
        assert signed_in() == alice
        steps.append("signed in with the linked passkey through autofill: Alice's account")

        # Delete needs a fresh sign-in: the passkey gives one (user verification).
        time.sleep(RECENT_LOGIN_SECONDS + 1.5)
        click("delete")
        message("needs a recent sign-in")
        click("reauth-passkey")
        message("You confirmed with your passkey.")
        shot("passkey-3-reauthenticated")
        steps.append("reauthenticated with the passkey before deleting")
        click("delete")
        message("Account deleted.")
        wait.until(EC.visibility_of_element_located((By.ID, "signed-out")))
        # The deleted account's passkey is gone with it: it signs no one in.
        click("passkey-sign-in")
        code = message("This passkey is not registered here")
        assert "passkey_not_found" in code, code
        shot("passkey-4-deleted")
        steps.append("deleted the account: its passkey signs no one in")
        print(json.dumps({"ok": True, "steps": steps}))
        return 0
    except Exception as error:  # any failed step fails the test, with where it happened
        if driver is not None:
            try:
                driver.save_screenshot(os.path.join(a.screenshots, "passkey-failure.png"))
            except Exception:
                pass
        import traceback
        lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if frame.filename == __file__]
        print(json.dumps({"ok": False, "steps": steps, "error": "%s at line %s: %s" % (type(error).__name__, lines, error)}))
        return 1
    finally:
        if driver is not None:
            driver.quit()
        stop(server, work)


if __name__ == "__main__":
    sys.exit(main())
