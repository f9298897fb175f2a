/// The reference app's one page: signed out, buttons to sign in with each provider; signed
/// in, the account, its linked providers (unlink), the others (link), sign out and delete.
/// It reads `/me` and calls the JSON API with the CSRF token `/me` hands out.
enum DemoPage {
    static func html(providers: [(name: String, label: String)]) -> String {
        let list = providers.map { "{name: \"\($0.name)\", label: \"\($0.label)\"}" }.joined(separator: ", ")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Federate demo</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <style>
            body { font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto; padding: 0 1em; color: #1d1d1f; }
            h1 { font-size: 1.6em; } button, a.button { font: inherit; padding: .45em .9em; margin: .2em .3em .2em 0; border-radius: .4em;
              border: 1px solid #8a8a8e; background: #f5f5f7; color: inherit; text-decoration: none; display: inline-block; cursor: pointer; }
            .danger { border-color: #c62828; color: #c62828; } .note { color: #6e6e73; } li { margin: .4em 0; }
            #message { padding: .6em; border-radius: .4em; background: #fff4e5; display: none; }
            </style></head>
            <body>
            <h1>Federate demo</h1>
            <p id="message"></p>
            <div id="signed-out" hidden>
              <p>Sign in with one of the providers; link the others to the same account afterwards.</p>
              <div id="sign-in"></div>
            </div>
            <div id="signed-in" hidden>
              <p>Signed in as <strong id="who"></strong> (<code id="uid"></code>), <span id="age"></span>.</p>
              <h2>Linked providers</h2><ul id="linked"></ul>
              <h2>Link another</h2><div id="link"></div>
              <h2>Account</h2>
              <button id="sign-out">Sign out</button> <button id="delete" class="danger">Delete account</button>
            </div>
            <p class="note">Federate's reference app: sessions are HttpOnly cookies; changes carry a CSRF token.</p>
            <script>
            const providers = [\(list)];
            let me = null;
            const $ = (id) => document.getElementById(id);
            const say = (text) => { $("message").textContent = text; $("message").style.display = text ? "block" : "none"; };
            const start = (name, intent) => "/auth/" + name + "/start?intent=" + intent + "&returnTo=/";
            async function api(method, path) {
              const response = await fetch(path, { method, headers: { "X-CSRF-Token": me ? me.csrf_token : "" } });
              return { status: response.status, body: await response.json() };
            }
            function button(label, onclick, cls) {
              const b = document.createElement("button"); b.textContent = label; b.onclick = onclick; if (cls) b.className = cls; return b;
            }
            async function load() {
              const response = await fetch("/me");
              if (response.status !== 200) {
                me = null; $("signed-in").hidden = true; $("signed-out").hidden = false; $("sign-in").innerHTML = "";
                for (const p of providers) {
                  const a = document.createElement("a"); a.className = "button"; a.id = "sign-in-" + p.name;
                  a.href = start(p.name, "signIn"); a.textContent = "Sign in with " + p.label; $("sign-in").appendChild(a);
                }
                return;
              }
              me = await response.json();
              $("signed-out").hidden = true; $("signed-in").hidden = false;
              $("who").textContent = me.display_name || me.email || "someone"; $("uid").textContent = me.uid;
              $("age").textContent = "signed in " + me.session_age_seconds + " s ago" + (me.recent_login ? "" : " (not recent)");
              $("linked").innerHTML = ""; $("link").innerHTML = "";
              const linkedIDs = me.providers.map((p) => p.provider_id);
              for (const p of me.providers) {
                const li = document.createElement("li"); li.textContent = p.provider_id + (p.email ? " — " + p.email : "") + " ";
                li.appendChild(button("Unlink", () => change("DELETE", "/me/providers/" + encodeURIComponent(p.provider_id)), "danger"));
                $("linked").appendChild(li);
              }
              for (const p of providers) {
                const a = document.createElement("a"); a.className = "button"; a.id = "link-" + p.name;
                a.href = start(p.name, "link"); a.textContent = "Link " + p.label; $("link").appendChild(a);
              }
            }
            async function change(method, path) {
              const result = await api(method, path);
              if (result.status === 403 && result.body.error === "requires_recent_login") {
                say("This needs a recent sign-in: taking you to sign in again.");
                window.location = start(reauthProvider(), "reauthenticate");
                return;
              }
              say(result.status === 200 ? "" : (result.body.error + ": " + result.body.message));
              await load();
            }
            function reauthProvider() {
              const linked = me.providers.find((p) => p.route);
              return linked ? linked.route : providers[0].name;
            }
            $("sign-out").onclick = async () => { await api("POST", "/auth/signout"); me = null; await load(); };
            $("delete").onclick = async () => {
              const result = await api("DELETE", "/me");
              if (result.status === 403 && result.body.error === "requires_recent_login") {
                say("Deleting needs a recent sign-in: taking you to sign in again.");
                setTimeout(() => { window.location = start(reauthProvider(), "reauthenticate"); }, 800);
                return;
              }
              say(result.status === 200 ? "Account deleted." : (result.body.error + ": " + result.body.message));
              me = null; await load();
            };
            // A failed sign-in comes back as ?error=CODE (and provider_error=…): say it in plain words,
            // with the way forward, then clean the address.
            const plainWords = {
              account_exists_with_different_credential: "An account already uses this email. Sign in with the provider you used before, then link this one from your account.",
              credential_already_in_use: "That provider account is already linked to another account here. Sign in with it to use that account instead.",
              provider_already_linked: "This provider is already linked to your account.",
              user_mismatch: "You signed in at the provider as someone else. Use the same person you are signed in as here.",
              requires_recent_login: "The provider did not ask you to sign in again, so this does not count as a fresh sign-in. Try again.",
              provider_error: "The provider did not complete the sign-in (perhaps it was cancelled). Try again when you are ready.",
              state_mismatch: "That sign-in was not started here, or has already finished. Start again from this page.",
              invalid_pending_authorization: "That sign-in took too long or was started elsewhere. Start again from this page.",
              userinfo_subject_mismatch: "The provider gave inconsistent answers about who you are. Try again, or use another provider.",
            };
            const returned = new URLSearchParams(window.location.search).get("error");
            if (returned) {
              say(plainWords[returned] || ("The sign-in did not complete (" + returned + "). Start again from this page."));
              history.replaceState(null, "", window.location.pathname);
            }
            load();
            </script>
            </body></html>
            """
    }
}
