#!/usr/bin/env python3
"""A real browser (Debian's headless Chromium, driven by selenium) through the Vapor example app
of Docs/Vapor.md (Integrations/FederateVapor/Example), which the Vapor package's test starts with two
dev providers: signed out, sign in through the dev provider (it approves alice at once), then
link the second provider to the same account (the link asks for a new sign-in: alice picks
herself on the dev provider's page). Screenshots of each state go to --screenshots.

Prints one JSON object {"ok": true|false, "steps": [...], "error": ...}; exits 0 only when
every step passed. Needs chromium and chromium-driver (Debian) and selenium (requirements.txt).
"""
import argparse
import json
import os
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait
from selenium.common.exceptions import WebDriverException

from browser_e2e import browser


def providers(driver):
    return sorted(item.text.strip() for item in driver.find_elements(By.CSS_SELECTOR, "#providers li"))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--screenshots", required=True)
    a = p.parse_args()
    os.makedirs(a.screenshots, exist_ok=True)
    steps = []
    driver = None
    try:
        driver = browser()
        # A page replaced by a navigation while a condition reads it: retried (Chromium's
        # "Node … does not belong to the document" is not a stale-element error).
        wait = WebDriverWait(driver, 30, ignored_exceptions=(WebDriverException,))

        def shot(name):
            driver.save_screenshot(os.path.join(a.screenshots, name + ".png"))

        driver.get(a.url)
        wait.until(EC.visibility_of_element_located((By.ID, "signed-out")))
        shot("vapor-1-signed-out")
        steps.append("signed out")

        wait.until(EC.element_to_be_clickable((By.ID, "sign-in"))).click()
        wait.until(EC.visibility_of_element_located((By.ID, "signed-in")))
        email = driver.find_element(By.ID, "email").text
        assert email == "alice@example.com", "signed in as %r" % email
        assert providers(driver) == ["oidc.dev"], "providers after sign-in: %r" % providers(driver)
        assert driver.get_cookie("federate_session") is not None, "no session cookie"
        shot("vapor-2-signed-in")
        steps.append("signed in through the dev provider")

        wait.until(EC.element_to_be_clickable((By.ID, "link-corp"))).click()
        # A link asks the provider for a new sign-in (prompt=login): alice signs in on its page.
        wait.until(EC.element_to_be_clickable((By.XPATH, "//button[contains(., 'alice@example.com')]"))).click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#providers li")) == 2)
        assert providers(driver) == ["oidc.corp", "oidc.dev"], "providers after linking: %r" % providers(driver)
        assert driver.find_element(By.ID, "email").text == email, "linking changed the account"
        shot("vapor-3-linked")
        steps.append("linked the corp provider to the same account")
        print(json.dumps({"ok": True, "steps": steps}))
        return 0
    except Exception as error:  # any failed step fails the test, with where it happened
        if driver is not None:
            try:
                driver.save_screenshot(os.path.join(a.screenshots, "vapor-failure.png"))
            except Exception:
                pass
        print(json.dumps({"ok": False, "steps": steps, "error": "%s: %s" % (type(error).__name__, error)}))
        return 1
    finally:
        if driver is not None:
            driver.quit()


if __name__ == "__main__":
    sys.exit(main())
