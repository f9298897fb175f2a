#!/usr/bin/env python3
"""A real browser (Debian's headless Chromium, driven by selenium) through `federate serve`.

Starts `federate serve` with a throwaway SQLite file and a short recent-login window, then, as
a person would: signs in with the generic dev provider, links the Google and Apple flavours
(Apple answers with a form_post), signs out, signs in with Google and lands on the same
account, tries to delete the account with a session that is no longer recent and is sent to
reauthenticate, then deletes it. Screenshots of the main pages go to --screenshots.

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
    work = tempfile.mkdtemp(prefix="federate-browser-")
    config = os.path.join(work, "serve.json")
    with open(config, "w") as f:
        json.dump({"port": a.port, "store": {"sqlite": os.path.join(work, "accounts.sqlite")},
                   "recent_login_seconds": RECENT_LOGIN_SECONDS}, f)
    server = subprocess.Popen([a.federate, "serve", "--config", config], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    driver = None
    try:
        line = server.stdout.readline()
        url = json.loads(line)["url"]
        steps.append("server listening at " + url)
        driver = browser()
        wait = WebDriverWait(driver, 20)

        def shot(name):
            driver.save_screenshot(os.path.join(a.screenshots, name + ".png"))

        def home_signed_in():
            wait.until(EC.visibility_of_element_located((By.ID, "signed-in")))
            wait.until(lambda d: d.find_element(By.ID, "uid").text.strip() != "")
            return driver.find_element(By.ID, "uid").text

        def pick(email):
            # The dev provider's page listing its test users: choose one, as a person would.
            button = wait.until(EC.element_to_be_clickable((By.XPATH, "//button[contains(., '%s')]" % email)))
            if "picker" not in steps[-1]:
                shot("dev-provider-picker")
            button.click()

        def linked():
            return sorted(li.text.split(" ")[0] for li in driver.find_elements(By.CSS_SELECTOR, "#linked li"))

        driver.get(url)
        wait.until(EC.visibility_of_element_located((By.ID, "signed-out")))
        shot("1-signed-out")
        driver.find_element(By.ID, "sign-in-dev").click()
        pick("alice@example.com")
        uid = home_signed_in()
        steps.append("signed in with the generic dev provider: " + uid)
        shot("2-signed-in")

        # The same person tries Google before linking it: the page says so in plain words,
        # and the way forward works — sign in with the first provider, then link.
        driver.find_element(By.ID, "sign-out").click()
        wait.until(EC.visibility_of_element_located((By.ID, "signed-out")))
        driver.find_element(By.ID, "sign-in-google").click()
        pick("alice@example.com")
        wait.until(EC.text_to_be_present_in_element((By.ID, "message"), "An account already uses this email"))
        assert "error=" not in driver.current_url, driver.current_url
        shot("2b-account-exists")
        steps.append("Google before linking: told to sign in with the first provider, then link")
        driver.find_element(By.ID, "sign-in-dev").click()
        pick("alice@example.com")
        again = home_signed_in()
        assert again == uid, (again, uid)

        driver.find_element(By.ID, "link-google").click()
        pick("alice@example.com")
        wait.until(lambda d: len(linked()) == 2)
        driver.find_element(By.ID, "link-apple").click()
        pick("alice@example.com")  # Apple's flavour answers with an auto-submitting form_post
        wait.until(lambda d: len(linked()) == 3)
        assert linked() == ["apple.com", "google.com", "oidc.dev"], linked()
        steps.append("linked google.com and apple.com")
        shot("3-linked")

        driver.find_element(By.ID, "sign-out").click()
        wait.until(EC.visibility_of_element_located((By.ID, "signed-out")))
        steps.append("signed out")
        driver.find_element(By.ID, "sign-in-google").click()
        pick("alice@example.com")
        again = home_signed_in()
        assert again == uid, (again, uid)
        steps.append("signed in with Google: same account")

        time.sleep(RECENT_LOGIN_SECONDS + 1.5)
        driver.find_element(By.ID, "delete").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "message"), "recent sign-in"))
        shot("4-requires-recent-login")
        pick("alice@example.com")  # sent to reauthenticate
        home_signed_in()
        wait.until(lambda d: "not recent" not in d.find_element(By.ID, "age").text)
        steps.append("reauthenticated")
        driver.find_element(By.ID, "delete").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "message"), "Account deleted."))
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
