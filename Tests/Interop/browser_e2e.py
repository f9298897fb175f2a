#!/usr/bin/env python3
"""A real browser (Debian's headless Chromium, driven by selenium) through `federate serve`.

Starts `federate serve` with a throwaway SQLite file and a short recent-login window
(`--recent-login-seconds`), then, as a person would, checks each state of the demo page:
signed out (buttons named after providers, never `oidc.dev`); Cancel at the dev provider
(a plain-words message, the code only in the muted support line); signed in with one
provider (a friendly summary, no raw uid, no Unlink on the only provider, "Link another"
offering only unlinked providers); Google before linking (account exists, in plain words);
linking Google and Apple (Apple answers with a form_post) and GitHub (OAuth 2.0, no ID token);
signing out at the provider (RP-initiated logout: the dev provider's end-session endpoint, back
here signed out); the same account through GitHub; signing in with Google to the same account; deleting with a sign-in that is no longer recent (the page says what happens next
and offers the re-sign-in, then says to click Delete again); deleting. Screenshots of each
state go to --screenshots.

Prints one JSON object {"ok": true|false, "steps": [...], "error": ...}; exits 0 only when
every step passed. Needs chromium and chromium-driver (Debian) and selenium (requirements.txt).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

RECENT_LOGIN_SECONDS = 4


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--federate", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--screenshots", required=True)
    a = p.parse_args()
    os.makedirs(a.screenshots, exist_ok=True)
    steps = []
    server, work = serve(a.federate, {"port": a.port}, "federate-browser-", ["--recent-login-seconds", str(RECENT_LOGIN_SECONDS)])
    driver = None
    try:
        line = server.stdout.readline()
        url = json.loads(line)["url"]
        steps.append("server listening at " + url)
        driver = browser()
        # A page that navigates (to the provider and back) while a condition reads it makes
        # Chromium answer "Node … does not belong to the document": retried like a stale element.
        wait = WebDriverWait(driver, 20, ignored_exceptions=(WebDriverException,))

        def click(element_id):
            # Clicked once it can be: the page may still be rendering after a navigation.
            wait.until(EC.element_to_be_clickable((By.ID, element_id))).click()

        def shot(name):
            driver.save_screenshot(os.path.join(a.screenshots, name + ".png"))

        def account_uid():
            # The uid is not on the page: ask /me, as the page's script does.
            return driver.execute_script(
                "var r = new XMLHttpRequest(); r.open('GET', '/me', false); r.send(); return JSON.parse(r.responseText).uid;")

        def home_signed_in():
            wait.until(EC.visibility_of_element_located((By.ID, "signed-in")))
            wait.until(lambda d: d.find_element(By.ID, "who").text.strip() != "")
            uid = account_uid()
            assert uid not in driver.find_element(By.TAG_NAME, "body").text, "the raw uid is shown"
            return uid

        def pick(email):
            # The dev provider's page listing its test users: choose one, as a person would.
            wait.until(EC.element_to_be_clickable((By.XPATH, "//button[contains(., '%s')]" % email))).click()

        def message(text):
            wait.until(EC.text_to_be_present_in_element((By.ID, "message-text"), text))
            return driver.find_element(By.ID, "message-code").text

        def linked():
            return sorted(li.find_element(By.CSS_SELECTOR, ".provider").text for li in driver.find_elements(By.CSS_SELECTOR, "#linked li"))

        def unlink_buttons():
            return driver.find_elements(By.CSS_SELECTOR, "#linked button")

        def link_offers():
            return sorted(b.get_attribute("id") for b in driver.find_elements(By.CSS_SELECTOR, "#link a"))

        # Signed out: a button per provider, by its name.
        driver.get(url)
        wait.until(EC.visibility_of_element_located((By.ID, "signed-out")))
        labels = sorted(b.text for b in driver.find_elements(By.CSS_SELECTOR, "#sign-in a"))
        assert labels == ["Sign in with Apple", "Sign in with Dev provider", "Sign in with GitHub", "Sign in with Google"], labels
        assert "oidc.dev" not in driver.find_element(By.TAG_NAME, "body").text
        shot("1-signed-out")

        # Cancel at the dev provider: back with access_denied, said in plain words.
        click("sign-in-dev")
        wait.until(EC.element_to_be_clickable((By.ID, "cancel")))
        shot("dev-provider-picker")
        click("cancel")
        code = message("You cancelled signing in with Dev provider")
        assert "access_denied" in code, code
        assert "error=" not in driver.current_url, driver.current_url
        wait.until(EC.visibility_of_element_located((By.ID, "signed-out")))
        shot("1b-cancelled")
        steps.append("cancelled at the dev provider: told in plain words")

        # Signed in with one provider: no Unlink on it; "Link another" offers only the others.
        click("sign-in-dev")
        pick("alice@example.com")
        uid = home_signed_in()
        assert driver.find_element(By.ID, "who").text == "Alice Example", driver.find_element(By.ID, "who").text
        assert linked() == ["Dev provider"], linked()
        assert unlink_buttons() == [], "Unlink offered on the only provider"
        assert link_offers() == ["link-apple", "link-github", "link-google"], link_offers()
        steps.append("signed in with the dev provider: no Unlink, link offers Google, Apple and GitHub")
        shot("2-signed-in")

        # The same person tries Google before linking it: the page says so in plain words,
        # and the way forward works — sign in with the first provider, then link.
        click("sign-out")
        wait.until(EC.visibility_of_element_located((By.ID, "signed-out")))
        click("sign-in-google")
        pick("alice@example.com")
        code = message("An account already uses this email")
        assert "account_exists_with_different_credential" in code, code
        assert "error=" not in driver.current_url, driver.current_url
        shot("2b-account-exists")
        steps.append("Google before linking: told to sign in with the first provider, then link")
        click("sign-in-dev")
        pick("alice@example.com")
        again = home_signed_in()
        assert again == uid, (again, uid)

        click("link-google")
        pick("alice@example.com")
        wait.until(lambda d: len(linked()) == 2)
        assert len(unlink_buttons()) == 2
        assert link_offers() == ["link-apple", "link-github"], link_offers()
        click("link-apple")
        pick("alice@example.com")  # Apple's flavour answers with an auto-submitting form_post
        wait.until(lambda d: len(linked()) == 3)
        assert linked() == ["Apple", "Dev provider", "Google"], linked()
        assert link_offers() == ["link-github"], link_offers()
        steps.append("linked Google and Apple")
        shot("3-linked")

        # GitHub (OAuth 2.0 without ID tokens) links to the same account.
        click("link-github")
        pick("alice@example.com")
        wait.until(lambda d: len(linked()) == 4)
        assert linked() == ["Apple", "Dev provider", "GitHub", "Google"], linked()
        assert link_offers() == [], link_offers()
        steps.append("linked GitHub")

        # Sign out at the provider: the dev provider's end-session endpoint with the session's
        # ID token as id_token_hint, then back here, signed out, the state checked on return.
        click("sign-out")
        message("You are signed out, here and at your provider.")
        wait.until(EC.visibility_of_element_located((By.ID, "signed-out")))
        assert driver.current_url.rstrip("/") == url.rstrip("/"), driver.current_url
        shot("3b-signed-out-at-provider")
        steps.append("signed out at the dev provider and back, signed out")
        click("sign-in-github")
        pick("alice@example.com")
        again = home_signed_in()
        assert again == uid, (again, uid)
        steps.append("signed in with GitHub: same account")

        # GitHub has no end-session endpoint: signed out here only, and the page says so.
        click("sign-out")
        message("You are signed out here. Your provider keeps its own sign-in.")
        wait.until(EC.visibility_of_element_located((By.ID, "signed-out")))
        click("sign-in-google")
        pick("alice@example.com")
        again = home_signed_in()
        assert again == uid, (again, uid)
        steps.append("signed out (locally), signed in with Google: same account")

        # Deleting needs a recent sign-in: the page says what happens next and offers it.
        time.sleep(RECENT_LOGIN_SECONDS + 1.5)
        click("delete")
        message("Sign in again to confirm; you'll come back here and can then delete the account.")
        offers = sorted(a.get_attribute("id") for a in driver.find_elements(By.CSS_SELECTOR, "#message-actions a"))
        assert offers == ["reauth-apple", "reauth-dev", "reauth-google"], offers  # GitHub cannot prove a fresh sign-in
        shot("4-requires-recent-login")
        steps.append("delete asked for a recent sign-in, saying what happens next")
        driver.find_element(By.CSS_SELECTOR, "#message-actions a").click()
        pick("alice@example.com")
        again = home_signed_in()
        assert again == uid, (again, uid)
        message("Click Delete account again")
        shot("4b-signed-in-again")
        steps.append("signed in again: told to click Delete again")
        click("delete")
        message("Account deleted.")
        wait.until(EC.visibility_of_element_located((By.ID, "signed-out")))
        shot("5-deleted")
        steps.append("account deleted")
        print(json.dumps({"ok": True, "steps": steps}))
        return 0
    except Exception as error:  # any failed step fails the test, with where it happened
        if driver is not None:
            try:
                driver.save_screenshot(os.path.join(a.screenshots, "failure.png"))
            except Exception:
                pass
        print(json.dumps({"ok": False, "steps": steps, "error": "%s: %s" % (type(error).__name__, error)}))
        return 1
    finally:
        if driver is not None:
            driver.quit()
        stop(server, work)


def serve(federate, settings, prefix, arguments=()):
    """`federate serve --config` with `settings` and a throwaway SQLite store, in a folder of
    its own: the process (its first line of output is `{"url": …}`) and the folder."""
    work = tempfile.mkdtemp(prefix=prefix)
    config = os.path.join(work, "serve.json")
    with open(config, "w") as f:
        json.dump(dict(settings, store={"sqlite": os.path.join(work, "accounts.sqlite")}), f)
    server = subprocess.Popen([federate, "serve", "--config", config, *arguments],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return server, work


def stop(server, work):
    """Stops what `serve` started and removes its folder."""
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
    shutil.rmtree(work, ignore_errors=True)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1000,800"):
        options.add_argument(flag)
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(service=service, options=options)


if __name__ == "__main__":
    sys.exit(main())
