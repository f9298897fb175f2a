#!/usr/bin/env python3
"""Interop scenarios against the running DOT provider (called by run_interop.sh).

    scenarios.py --federate BIN --provider-json FILE --work-dir DIR --login-ports L1,L2,...
                 [--only NAME,NAME]

Prints one JSON line per scenario: {"scenario": NAME, "ok": bool, "detail": ...}; exits 1
if any scenario failed. Each scenario that runs `federate login` gets its own login port
(each registered at the provider as http://127.0.0.1:PORT/callback), so a listener socket
left in TIME_WAIT by one scenario cannot make the next one's bind fail.
"""
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCOPES = ["openid", "email", "profile"]

# Order matters: refresh uses login_client_secret_basic's tokens, revocation uses refresh's.
SCENARIOS = [
    "provider_selftest",
    "verify_id_token",
    "login_client_secret_basic",
    "login_client_secret_post",
    "login_public_client",
    "refresh",
    "revocation",
    "login_wrong_client_secret",
]
LOGIN_SCENARIOS = ["provider_selftest", "login_client_secret_basic", "login_client_secret_post",
                   "login_public_client", "login_wrong_client_secret"]


def tail(text, n=2000):
    return text if len(text) <= n else "..." + text[-n:]


class Run:
    def __init__(self, a):
        self.a = a
        with open(a.provider_json) as f:
            self.info = json.loads(f.readline())
        self.work = Path(a.work_dir)
        ports = [int(p) for p in a.login_ports.split(",") if p]
        self.ports = dict(zip(LOGIN_SCENARIOS, ports))
        self.state = {}

    # -- helpers --------------------------------------------------------------------------
    def client(self, name):
        return self.info["clients"][name]

    def creds(self, name, secret=None):
        c = self.client(name)
        args = ["--issuer", self.info["issuer"], "--client-id", c["client_id"], "--auth-method", c["auth_method"]]
        secret = c["client_secret"] if secret is None else secret
        if secret:
            args += ["--client-secret=" + secret]  # "=" form: a secret may start with "-"
        return args

    def federate(self, args, timeout=60):
        """Runs federate; returns {"exit", "output", "stdout", "stderr"}."""
        try:
            p = subprocess.run([self.a.federate, *args], stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=timeout, text=True)
        except subprocess.TimeoutExpired as exc:
            return {"exit": None, "output": None, "stdout": exc.stdout or "", "stderr": exc.stderr or "",
                    "timed_out": True}
        try:
            output = json.loads(p.stdout) if p.stdout.strip() else None
        except ValueError:
            output = None
        return {"exit": p.returncode, "output": output, "stdout": p.stdout, "stderr": p.stderr}

    def browser_login(self, scenario, client, secret=None, show_tokens=False):
        c = self.client(client)
        cmd = [sys.executable, str(HERE / "browser_login.py"), "--federate", self.a.federate,
               "--provider-json", self.a.provider_json, "--client", client,
               "--port", str(self.ports[scenario]), "--scope", " ".join(SCOPES), "--timeout", "90"]
        if secret is not None:
            cmd += ["--client-secret=" + secret]  # "=" form: a secret may start with "-"
        if show_tokens:
            cmd.append("--show-tokens")
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=150)
        try:
            result = json.loads(p.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            result = {"exit": None, "output": None, "error": "browser_login.py printed no JSON",
                      "browser_stdout": tail(p.stdout), "browser_stderr": tail(p.stderr)}
        result["harness_exit"] = p.returncode
        self.save(scenario, result)
        return result, c

    def save(self, name, data):
        (self.work / f"{name}.json").write_text(json.dumps(data, indent=2))

    @staticmethod
    def failure_detail(problems, result):
        detail = {"problems": problems}
        for key in ("exit", "output", "error", "harness_exit", "timed_out", "authorization_url"):
            if key in result and result[key] is not None:
                detail[key] = result[key]
        if result.get("stdout") and result.get("output") is None:
            detail["stdout"] = tail(result["stdout"], 1000)
        if result.get("stderr"):
            detail["stderr"] = tail(result["stderr"], 2000)
        browser = result.get("browser")
        if browser:
            detail["browser"] = {"steps": browser.get("steps"), "callback": browser.get("callback"),
                                 "error": browser.get("error")}
        return detail

    def check_login_output(self, result, client_id, show_tokens):
        """Returns a list of problems with a successful login's output (empty when fine)."""
        problems = []
        if result.get("harness_exit") != 0:
            problems.append(f"browser harness failed: {result.get('error')}")
        if result.get("exit") != 0:
            problems.append(f"federate exit {result.get('exit')} (want 0)")
        out = result.get("output")
        if not isinstance(out, dict):
            return problems + ["stdout is not one JSON object"]
        user = self.info["user"]
        claims = out.get("claims") or {}
        want = {"iss": self.info["issuer"], "sub": user["sub"], "email": user["email"]}
        for k, v in want.items():
            if claims.get(k) != v:
                problems.append(f"claims.{k} = {claims.get(k)!r}, want {v!r}")
        aud = claims.get("aud")
        if aud != client_id and not (isinstance(aud, list) and client_id in aud):
            problems.append(f"claims.aud = {aud!r}, want {client_id!r}")
        if not claims.get("nonce"):
            problems.append("claims.nonce missing (federate should send a nonce; DOT echoes it)")
        info = out.get("userinfo")
        if not isinstance(info, dict):
            problems.append(f"userinfo = {info!r}, want an object")
        else:
            if info.get("sub") != user["sub"]:
                problems.append(f"userinfo.sub = {info.get('sub')!r}")
            if info.get("email") != user["email"]:
                problems.append(f"userinfo.email = {info.get('email')!r}")
            if info.get("given_name") != user["given_name"] or info.get("family_name") != user["family_name"]:
                problems.append(f"userinfo names = {info.get('given_name')!r} {info.get('family_name')!r}")
        granted = out.get("granted_scopes")
        if not isinstance(granted, list) or sorted(granted) != sorted(SCOPES):
            problems.append(f"granted_scopes = {granted!r}, want {SCOPES}")
        if out.get("refused_scopes") != []:
            problems.append(f"refused_scopes = {out.get('refused_scopes')!r}, want []")
        exp = out.get("expires_at")
        now = time.time()
        if not isinstance(exp, (int, float)) or isinstance(exp, bool) or not (now + 60 < exp < now + 7200):
            problems.append(f"expires_at = {exp!r}, want ~now+3600 (DOT expires_in 3600)")
        tokens = out.get("tokens")
        if show_tokens:
            if not isinstance(tokens, dict):
                problems.append("--show-tokens but no tokens object")
            else:
                for k in ("access_token", "refresh_token", "id_token"):
                    if not isinstance(tokens.get(k), str) or not tokens.get(k):
                        problems.append(f"tokens.{k} missing")
                if str(tokens.get("token_type", "")).lower() != "bearer":
                    problems.append(f"tokens.token_type = {tokens.get('token_type')!r}, want Bearer")
        elif tokens is not None:
            problems.append("tokens printed without --show-tokens")
        return problems

    # -- scenarios ------------------------------------------------------------------------
    def provider_selftest(self):
        dump = self.work / "selftest-tokens.json"
        p = subprocess.run([sys.executable, str(HERE / "provider_selftest.py"), "--provider-json",
                            self.a.provider_json, "--login-port", str(self.ports["provider_selftest"]),
                            "--dump-tokens", str(dump)], capture_output=True, text=True, timeout=180)
        try:
            result = json.loads(p.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return False, {"stdout": tail(p.stdout), "stderr": tail(p.stderr)}
        self.save("provider_selftest", result)
        if dump.exists():
            self.state["selftest_tokens"] = json.loads(dump.read_text())
        failed = [c for c in result["checks"] if not c["ok"]]
        if failed:
            return False, {"failed_checks": failed, "stderr": tail(p.stderr)}
        return True, {"checks": len(result["checks"]), "observed": result["observed"]}

    def verify_id_token(self):
        tokens = self.state.get("selftest_tokens", {}).get("basic")
        if not tokens or not tokens.get("id_token"):
            return False, "no ID token from provider_selftest"
        # `--option=value`: a random nonce may begin with "-", which would read as an option.
        r = self.federate(["verify", "--issuer", self.info["issuer"], "--audience", tokens["client_id"],
                           "--nonce=" + tokens["nonce"], tokens["id_token"]])
        self.save("verify_id_token", r)
        out = r["output"] or {}
        problems = []
        if r["exit"] != 0 or out.get("valid") is not True:
            problems.append(f"exit {r['exit']}, output {out or tail(r['stdout'])}")
        elif (out.get("claims") or {}).get("sub") != self.info["user"]["sub"]:
            problems.append(f"claims.sub = {(out.get('claims') or {}).get('sub')!r}")
        if problems:
            return False, {"problems": problems, "stderr": tail(r["stderr"])}
        return True, {"claims": sorted(out.get("claims", {}))}

    def _login(self, scenario, client, show_tokens):
        result, c = self.browser_login(scenario, client, show_tokens=show_tokens)
        problems = self.check_login_output(result, c["client_id"], show_tokens)
        if problems:
            return False, self.failure_detail(problems, result)
        out = result["output"]
        if show_tokens:
            self.state[scenario + "_tokens"] = out["tokens"]
        return True, {"sub": out["claims"]["sub"], "claims": sorted(out["claims"]),
                      "userinfo": sorted(out["userinfo"]), "granted_scopes": out["granted_scopes"],
                      "callback": (result.get("browser") or {}).get("callback", {}).get("params")}

    def login_client_secret_basic(self):
        return self._login("login_client_secret_basic", "basic", show_tokens=True)

    def login_client_secret_post(self):
        return self._login("login_client_secret_post", "post", show_tokens=False)

    def login_public_client(self):
        return self._login("login_public_client", "public", show_tokens=True)

    def refresh(self):
        tokens = self.state.get("login_client_secret_basic_tokens")
        if not tokens:
            return False, "no tokens from login_client_secret_basic"
        r = self.federate(["token", "refresh", *self.creds("basic"), "--refresh-token=" + tokens["refresh_token"]])
        self.save("refresh", r)
        out = r["output"] if isinstance(r["output"], dict) else {}
        problems = []
        if r["exit"] != 0:
            problems.append(f"federate exit {r['exit']} (want 0)")
        if not out.get("access_token"):
            problems.append("no access_token")
        elif out["access_token"] == tokens["access_token"]:
            problems.append("access_token did not change")
        if not out.get("refresh_token"):
            problems.append("no refresh_token (DOT rotates refresh tokens: a new one is always returned)")
        exp = out.get("expires_at")
        if not isinstance(exp, (int, float)) or exp < time.time() + 60:
            problems.append(f"expires_at = {exp!r}")
        claims = out.get("claims")
        # DOT answers a refresh with a new ID token (no nonce in it).
        if not isinstance(claims, dict):
            problems.append("no claims (DOT returns an id_token on refresh)")
        elif claims.get("sub") != self.info["user"]["sub"] or claims.get("iss") != self.info["issuer"]:
            problems.append(f"claims sub/iss = {claims.get('sub')!r}/{claims.get('iss')!r}")
        if problems:
            return False, {"problems": problems, "exit": r["exit"], "output": r["output"],
                           "stdout": tail(r["stdout"], 1000) if r["output"] is None else None,
                           "stderr": tail(r["stderr"])}
        self.state["refreshed"] = out
        # The rotated-out refresh token must now be dead at DOT.
        return True, {"rotated": out["refresh_token"] != tokens["refresh_token"],
                      "claims": sorted(claims)}

    def revocation(self):
        token = (self.state.get("refreshed") or {}).get("refresh_token") \
            or (self.state.get("login_client_secret_basic_tokens") or {}).get("refresh_token")
        if not token:
            return False, "no refresh token to revoke"
        r = self.federate(["token", "revoke", *self.creds("basic"), "--token=" + token, "--hint", "refresh_token",
                           "--revocation-endpoint", self.info["revocation_endpoint"]])
        r2 = self.federate(["token", "refresh", *self.creds("basic"), "--refresh-token=" + token])
        self.save("revocation", {"revoke": r, "refresh_after": r2})
        problems = []
        if r["exit"] != 0 or not isinstance(r["output"], dict) or r["output"].get("revoked") is not True:
            problems.append(f"revoke: exit {r['exit']}, output {r['output'] or tail(r['stdout'], 500)}")
        if r2["exit"] != 1:
            problems.append(f"refresh after revoke: exit {r2['exit']} (want 1)")
        err = (r2["output"] or {}).get("error") if isinstance(r2["output"], dict) else None
        if err != "invalid_grant":
            problems.append(f"refresh after revoke: error {err!r} (want 'invalid_grant')")
        if problems:
            return False, {"problems": problems, "revoke": r, "refresh_after": r2}
        return True, {"refresh_after_revoke": r2["output"]}

    def login_wrong_client_secret(self):
        result, _ = self.browser_login("login_wrong_client_secret", "basic", secret="not-the-right-secret")
        problems = []
        if result.get("harness_exit") != 0:
            problems.append(f"browser harness failed: {result.get('error')}")
        if result.get("exit") != 1:
            problems.append(f"federate exit {result.get('exit')} (want 1)")
        out = result.get("output")
        err = out.get("error") if isinstance(out, dict) else None
        if err != "invalid_client":
            problems.append(f"error {err!r} (want 'invalid_client')")
        if isinstance(out, dict) and "claims" in out:
            problems.append("claims printed despite failure")
        if problems:
            return False, self.failure_detail(problems, result)
        return True, {"error": err, "message": out.get("message")}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--federate", required=True)
    p.add_argument("--provider-json", required=True)
    p.add_argument("--work-dir", required=True)
    p.add_argument("--login-ports", required=True, help=f"{len(LOGIN_SCENARIOS)} comma-separated ports")
    p.add_argument("--only", default="", help="comma-separated scenario names (default: all)")
    a = p.parse_args()
    run = Run(a)
    selected = [s for s in SCENARIOS if not a.only or s in a.only.split(",")]
    failures = 0
    for name in selected:
        started = time.monotonic()
        try:
            ok, detail = getattr(run, name)()
        except Exception as exc:  # noqa: BLE001
            ok, detail = False, f"harness exception: {type(exc).__name__}: {exc}"
        failures += 0 if ok else 1
        line = {"scenario": name, "ok": ok, "seconds": round(time.monotonic() - started, 2), "detail": detail}
        print(json.dumps(line, default=str), flush=True)
    print(f"interop: {len(selected) - failures} passed, {failures} failed", file=sys.stderr, flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
