#!/usr/bin/env python3
"""Guests and merges in a real browser (Debian's headless Chromium, driven by selenium) through
`federate serve` with "guests": true and a throwaway SQLite file.

A first guest adds a note, links the dev provider (as alice) and keeps its account and note; a
second guest (the browser's cookies cleared) adds a note, links the same dev identity, is told
the identity already has an account, signs in with it, and its note moves into that account,
which then holds both guests' notes. Screenshots go to --screenshots.

Prints one JSON object {"ok": true|false, "steps": [...], "error": ...}; exits 0 only when
every step passed. Needs chromium and chromium-driver (Debian) and selenium (requirements.txt).
"""
import argparse
import json
import os
import sys
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from browser_e2e import browser, serve, stop


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--federate", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--screenshots", required=True)
    a = p.parse_args()
    os.makedirs(a.screenshots, exist_ok=True)
    steps = []
    server, work = serve(a.federate, {"port": a.port, "guests": True}, "federate-guests-")
    driver = None
    try:
        url = json.loads(server.stdout.readline())["url"]
        steps.append("server listening at " + url)
        driver = browser()
        wait = WebDriverWait(driver, 20)

        def shot(name):
            driver.save_screenshot(os.path.join(a.screenshots, name + ".png"))

        def me():
            # A loaded machine may drop a request (no status, no body): asked again, up to five times.
            for _ in range(5):
                text = driver.execute_script(
                    "var r = new XMLHttpRequest(); r.open('GET', '/me', false); r.send(); return r.responseText;")
                if text:
                    return json.loads(text)
                time.sleep(0.5)
            raise AssertionError("GET /me answered nothing five times")

        def notes():
            return [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#notes li")]

        def add_note(text):
            count = len(notes())
            driver.find_element(By.ID, "note-text").send_keys(text)
            driver.find_element(By.ID, "note-add").click()
            wait.until(lambda d: len(notes()) == count + 1)

        def become_guest():
            driver.get(url)
            wait.until(EC.element_to_be_clickable((By.ID, "guest"))).click()
            wait.until(EC.visibility_of_element_located((By.ID, "signed-in")))
            wait.until(EC.text_to_be_present_in_element((By.ID, "who"), "a guest"))
            return me()

        def pick(email):
            wait.until(EC.element_to_be_clickable((By.XPATH, "//button[contains(., '%s')]" % email))).click()

        # The first guest adds a note, links the dev provider as alice, and keeps both.
        first = become_guest()
        assert first["guest"] is True and first["providers"] == [], first
        add_note("first guest's note")
        shot("guest-1-note")
        driver.find_element(By.ID, "link-dev").click()
        pick("alice@example.com")
        wait.until(lambda d: me()["guest"] is False)
        upgraded = me()
        assert upgraded["uid"] == first["uid"], (upgraded["uid"], first["uid"])
        assert [p["provider_id"] for p in upgraded["providers"]] == ["oidc.dev"], upgraded
        wait.until(lambda d: notes() == ["first guest's note"])
        shot("guest-1-linked")
        steps.append("first guest linked the dev provider: same account, note kept")

        # A second guest, in a browser without the first one's cookies.
        driver.delete_all_cookies()
        second = become_guest()
        assert second["uid"] != first["uid"]
        add_note("second guest's note")
        driver.find_element(By.ID, "link-dev").click()
        pick("alice@example.com")
        wait.until(EC.text_to_be_present_in_element((By.ID, "message-text"), "already has an account here"))
        assert "credential_already_in_use" in driver.find_element(By.ID, "message-code").text
        assert me()["uid"] == second["uid"], "the refused link changed nothing"
        shot("guest-2-conflict")
        steps.append("second guest linking the same identity: told it has an account, offered to bring the notes")

        # Sign in with that identity and merge: its account now holds both guests' notes.
        driver.find_element(By.ID, "merge-sign-in").click()
        pick("alice@example.com")
        # Signed in there, nothing merged yet: the page asks, and only the click merges.
        wait.until(EC.element_to_be_clickable((By.ID, "merge-confirm")))
        assert len(me()["providers"]) == 1 and me()["uid"] == first["uid"]
        assert notes() == ["first guest's note"], notes()
        driver.find_element(By.ID, "merge-confirm").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "message-text"), "now in this account"))
        merged = me()
        assert merged["uid"] == first["uid"] and merged["guest"] is False, merged
        wait.until(lambda d: sorted(notes()) == ["first guest's note", "second guest's note"])
        shot("guest-2-merged")
        steps.append("merged: the first account holds both guests' notes")

        # The second guest's account is gone.
        gone = driver.execute_script(
            "var r = new XMLHttpRequest(); r.open('POST', '/me/merge', false); r.setRequestHeader('X-CSRF-Token', arguments[0]); r.send(); return r.status;",
            merged["csrf_token"])
        assert gone == 400, gone
        steps.append("the merge ticket is spent")
        print(json.dumps({"ok": True, "steps": steps}))
        return 0
    except Exception as error:
        if driver is not None:
            try:
                driver.save_screenshot(os.path.join(a.screenshots, "guest-failure.png"))
            except Exception:
                pass
        print(json.dumps({"ok": False, "steps": steps, "error": "%s: %s" % (type(error).__name__, error)}))
        return 1
    finally:
        if driver is not None:
            driver.quit()
        stop(server, work)


if __name__ == "__main__":
    sys.exit(main())
