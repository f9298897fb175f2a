/// The demo page's script (``DemoPage``): renders the signed-out and signed-in states from
/// `GET /me`, calls the JSON API, and says every error in plain words.
///
/// Errors arrive as a stable Federate error code: from the callback as `?error=CODE` (a
/// provider's refusal as `error=provider_error&provider_error=ITS_CODE`), from the API as
/// `{"error": CODE}`. `sentences` maps each code a person can meet to what happened and what
/// to do next; the code itself stays visible, small and muted, for support. Flows start with
/// `returnTo=/?via=NAME` (so the message can name the provider) or, for a re-sign-in,
/// `returnTo=/?confirm=ACTION` (so the page can say: now click it again).
enum DemoPageScript {
    static let source = #"""
        const $ = (id) => document.getElementById(id);
        let me = null;
        const labelOf = (name) => (providers.find((p) => p.name === name) || {}).label;
        const labelOfID = (id) => (providers.find((p) => p.provider_id === id) || {}).label || id;
        const start = (name, intent, returnTo) =>
          "/auth/" + encodeURIComponent(name) + "/start?intent=" + intent + "&returnTo=" + encodeURIComponent(returnTo);

        // What happened, and the way forward, for each stable error code ({p}: the provider).
        const sentences = {
          account_exists_with_different_credential: "An account already uses this email. Sign in with the method you used before, then link {p} from your account.",
          credential_already_in_use: "That {p} account already belongs to another account here. To use that account, sign out and sign in with {p}.",
          provider_already_linked: "Your account already has a {p} account linked. Unlink it first to link a different one.",
          email_already_in_use: "Another account already uses this email. Sign in to that account instead.",
          user_mismatch: "You signed in at {p} as someone else. Sign in again as the person signed in here.",
          requires_recent_login: "{p} did not ask you to sign in again, so this does not count as a fresh sign-in. Try again.",
          provider_cannot_reauthenticate: "{p} cannot confirm a fresh sign-in. Sign in again with another of your linked providers.",
          access_denied: "You cancelled signing in with {p}. Nothing changed: choose a way to sign in when you are ready.",
          provider_error: "{p} did not complete the sign-in. Try again, or choose another way to sign in.",
          state_mismatch: "That sign-in was not started on this page, or has already finished. Start again here.",
          invalid_pending_authorization: "That sign-in took too long or was started in another browser. Start again here.",
          userinfo_subject_mismatch: "{p} gave inconsistent answers about who you are. Try again, or choose another way to sign in.",
          user_disabled: "This account is disabled. Contact support if you think this is a mistake.",
          user_not_found: "This account no longer exists. Sign in to create a new one.",
          session_required: "You are signed out. Sign in again to continue.",
          session_revoked: "You were signed out. Sign in again to continue.",
          last_provider: "This is the only way to sign in to your account, so it cannot be unlinked. Link another one first.",
          no_such_provider: "That sign-in method is not linked to your account any more. The page is now up to date.",
          csrf_failed: "This page was out of date. Reload it and try again.",
          invalid_merge_ticket: "That merge has expired, was already done, or was started in another session. Link the provider again to start over.",
          merge_source_not_guest: "Only a guest account can be brought into another one this way. Sign in to the account that tried the link, and merge from there.",
          merge_requires_fresh_sign_in: "{p} did not ask you to sign in again during the link, so the other account cannot be brought in. Link it again and sign in at {p}.",
          rate_limited: "Too many new guest accounts from here just now. Wait a moment and try again.",
          guest_capacity_reached: "No new guest accounts can be made right now. Sign in with a provider instead, or try again later.",
          account_store_failed: "We could not reach the account database. Try again in a moment.",
          discovery_failed: "We could not reach {p}. Try again in a moment, or choose another way to sign in.",
          key_fetch_failed: "We could not reach {p}. Try again in a moment, or choose another way to sign in.",
          http_failed: "We could not reach {p}. Try again in a moment, or choose another way to sign in.",
          http_timeout: "{p} took too long to answer. Try again in a moment, or choose another way to sign in.",
          unknown_provider: "That way to sign in is not available here. Choose another one.",
          passkey_not_found: "This passkey is not registered here (it may have been removed). Sign in another way.",
          passkey_cancelled: "You cancelled the passkey. Nothing changed.",
          credential_already_in_use_passkey: "This passkey is already registered here.",
          webauthn_user_verification: "Your device did not confirm it is you (PIN or biometrics). Try again.",
          webauthn_counter_regressed: "This passkey looks copied, so it was refused. Sign in another way and remove it.",
        };
        const fallback = "Signing in with {p} did not work. Try again, or choose another way to sign in.";

        function clearMessage() { $("message").hidden = true; }
        // Shows `text`; `code` (optional) in the muted support line; `actions` (optional) are buttons or links.
        function say(text, options) {
          const o = options || {};
          $("message-text").textContent = text;
          $("message-code").textContent = o.code ? "Code for support: " + o.code : "";
          $("message-actions").innerHTML = "";
          for (const a of o.actions || []) $("message-actions").appendChild(a);
          $("message").className = o.info ? "info" : "";
          $("message").hidden = false;
        }
        function explain(code, providerLabel, providerCode) {
          const key = code === "provider_error" && providerCode === "access_denied" ? "access_denied" : code;
          const sentence = sentences[key] || fallback;
          say(sentence.split("{p}").join(providerLabel || "the provider"), { code: providerCode ? code + " / " + providerCode : code });
        }
        function button(label, onclick, cls, id) {
          const b = document.createElement("button"); b.textContent = label; b.onclick = onclick;
          if (cls) b.className = cls; if (id) b.id = id; return b;
        }
        function link(label, href, id) {
          const a = document.createElement("a"); a.className = "button"; a.href = href; a.textContent = label; if (id) a.id = id; return a;
        }
        function ago(seconds) {
          if (seconds < 10) return "just now";
          if (seconds < 60) return seconds + " seconds ago";
          if (seconds < 3600) { const m = Math.floor(seconds / 60); return m + (m === 1 ? " minute ago" : " minutes ago"); }
          const h = Math.floor(seconds / 3600); return h + (h === 1 ? " hour ago" : " hours ago");
        }
        async function api(method, path, payload) {
          const response = await fetch(path, { method, body: payload, headers: { "X-CSRF-Token": me ? me.csrf_token : "" } });
          let body = {};
          try { body = await response.json(); } catch (e) { body = { error: "unexpected_status" }; }
          return { status: response.status, body };
        }

        async function load() {
          const response = await fetch("/me");
          if (response.status !== 200) {
            me = null; $("signed-in").hidden = true; $("signed-out").hidden = false; $("sign-in").innerHTML = "";
            for (const p of providers) $("sign-in").appendChild(link("Sign in with " + p.label, start(p.name, "signIn", "/?via=" + p.name), "sign-in-" + p.name));
            return;
          }
          me = await response.json();
          stopConditional();
          me.passkeys = [];
          if (passkeysOn) { const listed = await api("GET", "/me/passkeys"); if (listed.status === 200) me.passkeys = listed.body.passkeys; }
          $("signed-out").hidden = true; $("signed-in").hidden = false;
          $("who").textContent = me.guest ? "a guest" : (me.display_name || me.email || "you");
          $("notes").innerHTML = "";
          const notes = await (await fetch("/app/notes")).json();
          for (const text of notes.notes || []) { const li = document.createElement("li"); li.textContent = text; $("notes").appendChild(li); }
          $("email").textContent = me.display_name && me.email ? " (" + me.email + ")" : "";
          const count = me.providers.length + me.passkeys.length;
          $("summary").textContent = me.guest ? "Guest account · link a way to sign in below to keep it" :
            "Signed in " + ago(me.session_age_seconds) + " · " + count +
            (count === 1 ? " way to sign in" : " ways to sign in") + (me.email_verified ? " · email verified" : "");
          $("delete").hidden = me.guest;
          $("linked").innerHTML = ""; $("link").innerHTML = "";
          for (const p of me.providers) {
            const li = document.createElement("li"); li.dataset.providerId = p.provider_id;
            const name = document.createElement("span"); name.className = "provider"; name.textContent = p.route ? (labelOf(p.route) || labelOfID(p.provider_id)) : labelOfID(p.provider_id);
            li.appendChild(name);
            if (p.email) { const e = document.createElement("span"); e.className = "muted"; e.textContent = p.email; li.appendChild(e); }
            // The last way to sign in cannot be unlinked: no button for it.
            if (count > 1) li.appendChild(button("Unlink", () => unlink(p), "danger", "unlink-" + (p.route || p.provider_id)));
            $("linked").appendChild(li);
          }
          const linkedIDs = me.providers.map((p) => p.provider_id);
          const unlinked = providers.filter((p) => !linkedIDs.includes(p.provider_id));
          for (const p of unlinked) $("link").appendChild(link("Link " + p.label, start(p.name, "link", "/?via=" + p.name + (me.guest ? "&guest=1" : "")), "link-" + p.name));
          if (unlinked.length === 0) { const n = document.createElement("p"); n.className = "muted"; n.textContent = "Every available way to sign in is linked."; $("link").appendChild(n); }
          $("passkeys").innerHTML = "";
          if (passkeysOn) {
            for (const p of me.passkeys) {
              const li = document.createElement("li"); li.dataset.passkeyId = p.id;
              const name = document.createElement("span"); name.className = "passkey"; name.textContent = p.name || "Passkey"; li.appendChild(name);
              const used = document.createElement("span"); used.className = "muted";
              used.textContent = p.last_used_at ? "last used " + new Date(p.last_used_at * 1000).toLocaleString() : "not used yet"; li.appendChild(used);
              if (count > 1) li.appendChild(button("Remove", () => removePasskey(p), "danger", "remove-passkey-" + p.id));
              $("passkeys").appendChild(li);
            }
          }
        }

        // A sensitive change refused for want of a recent sign-in: say what happens next and
        // offer the re-sign-in with each linked provider that can prove one (an OAuth 2.0
        // provider without ID tokens, such as GitHub, cannot); it comes back with ?confirm=ACTION.
        const reauthenticates = (route) => (providers.find((p) => p.name === route) || {}).reauthenticates !== false;
        function reauthLinks(action) {
          return me.providers.filter((p) => p.route && reauthenticates(p.route)).map((p) =>
            link("Sign in again with " + (labelOf(p.route) || labelOfID(p.provider_id)), start(p.route, "reauthenticate", "/?via=" + p.route + "&confirm=" + action), "reauth-" + p.route));
        }
        function askToSignInAgain(action, what) {
          const actions = reauthLinks(action);
          if (me.passkeys && me.passkeys.length > 0) actions.unshift(button("Confirm with a passkey", () => reauthenticateWithPasskey(action), "", "reauth-passkey"));
          if (actions.length === 0) {
            return say(what + " needs a recent sign-in, and none of your linked providers can confirm one. Link a provider such as " +
                providers.filter((p) => p.reauthenticates !== false).map((p) => p.label).join(" or ") + " first.", { code: "requires_recent_login", info: true });
          }
          say(what + " needs a recent sign-in. Sign in again to confirm; you'll come back here and can then " +
              (action === "delete" ? "delete the account." : "unlink it."), { actions, code: "requires_recent_login", info: true });
        }
        async function unlink(p) {
          const result = await api("DELETE", "/me/providers/" + encodeURIComponent(p.provider_id));
          if (result.status === 403 && result.body.error === "requires_recent_login") return askToSignInAgain("unlink", "Unlinking " + labelOfID(p.provider_id));
          if (result.status === 200) say(labelOfID(p.provider_id) + " is no longer linked to your account.", { info: true });
          else explain(result.body.error, labelOfID(p.provider_id));
          await load();
        }
        // Passkeys (WebAuthn): options from the server, the browser's ceremony, the response back
        // as the Level 3 JSON forms (base64url), the challenge kept in an HttpOnly cookie.
        const fromB64u = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)), (c) => c.charCodeAt(0));
        const toB64u = (b) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/[+]/g, "-").replace(/[/]/g, "_").replace(/=+$/, "");
        const withIDs = (list) => (list || []).map((c) => ({ ...c, id: fromB64u(c.id) }));
        function credentialJSON(c) {
          const r = c.response, json = { id: c.id, rawId: toB64u(c.rawId), type: c.type, clientExtensionResults: c.getClientExtensionResults(),
            authenticatorAttachment: c.authenticatorAttachment || null, response: { clientDataJSON: toB64u(r.clientDataJSON) } };
          if (r.attestationObject) {
            json.response.attestationObject = toB64u(r.attestationObject);
            json.response.transports = r.getTransports ? r.getTransports() : [];
          } else {
            json.response.authenticatorData = toB64u(r.authenticatorData);
            json.response.signature = toB64u(r.signature);
            json.response.userHandle = r.userHandle ? toB64u(r.userHandle) : null;
          }
          return JSON.stringify(json);
        }
        async function passkeyGet(optionsPath, mediation, signal) {
          const options = await api("POST", optionsPath);
          if (options.status !== 200) return options;
          const o = options.body;
          const credential = await navigator.credentials.get({ mediation, signal,
            publicKey: { ...o, challenge: fromB64u(o.challenge), allowCredentials: withIDs(o.allowCredentials) } });
          return credential;
        }
        // Autofill (conditional mediation): one request waits while the passkey field has focus;
        // any other ceremony, or signing in, ends it first (a browser runs one at a time).
        let conditional = null;
        function stopConditional() { if (conditional) { conditional.abort(); conditional = null; } }
        async function passkeySignIn(mediation) {
          stopConditional();
          const controller = new AbortController();
          if (mediation === "conditional") conditional = controller;
          let credential;
          try { credential = await passkeyGet("/auth/passkey/options", mediation, controller.signal); }
          catch (e) { if (mediation !== "conditional" && e.name !== "AbortError") explain("passkey_cancelled"); return; }
          if (conditional === controller) conditional = null;
          if (!credential || credential.status) {
            if (mediation === "conditional" && !credential) return;
            return explain(credential ? credential.body.error : "passkey_cancelled");
          }
          const result = await api("POST", "/auth/passkey", credentialJSON(credential));
          if (result.status !== 200) return explain(result.body.error);
          say("You signed in with your passkey.", { info: true });
          await load();
        }
        $("passkey-sign-in").onclick = () => passkeySignIn("optional");
        $("passkey-username").onfocus = async () => {
          if (!conditional && window.PublicKeyCredential && PublicKeyCredential.isConditionalMediationAvailable &&
              await PublicKeyCredential.isConditionalMediationAvailable()) passkeySignIn("conditional");
        };
        async function addPasskey() {
          stopConditional();
          const options = await api("POST", "/me/passkeys/options");
          if (options.status === 403 && options.body.error === "requires_recent_login") return askToSignInAgain("passkey", "Adding a passkey");
          if (options.status !== 200) return explain(options.body.error);
          const o = options.body;
          let credential;
          try {
            credential = await navigator.credentials.create({ publicKey: { ...o, challenge: fromB64u(o.challenge),
              user: { ...o.user, id: fromB64u(o.user.id) }, excludeCredentials: withIDs(o.excludeCredentials) } });
          } catch (e) { return explain(e.name === "InvalidStateError" ? "credential_already_in_use_passkey" : "passkey_cancelled"); }
          const result = await api("POST", "/me/passkeys?name=" + encodeURIComponent("Passkey " + (me.passkeys.length + 1)), credentialJSON(credential));
          if (result.status !== 201) return explain(result.body.error === "credential_already_in_use" ? "credential_already_in_use_passkey" : result.body.error);
          say("Passkey added: you can sign in with it from now on.", { info: true });
          await load();
        }
        $("passkey-add").onclick = addPasskey;
        async function removePasskey(p) {
          const result = await api("DELETE", "/me/passkeys/" + encodeURIComponent(p.id));
          if (result.status === 403 && result.body.error === "requires_recent_login") return askToSignInAgain("passkey-remove", "Removing a passkey");
          if (result.status === 204 || result.status === 200) say("The passkey is removed from your account.", { info: true });
          else explain(result.body.error);
          await load();
        }
        // A fresh sign-in with one of the account's passkeys (user verification required).
        async function reauthenticateWithPasskey(action) {
          stopConditional();
          let credential;
          try { credential = await passkeyGet("/me/reauthenticate/passkey/options", "optional"); }
          catch (e) { return explain("passkey_cancelled"); }
          if (!credential || credential.status) return explain(credential ? credential.body.error : "passkey_cancelled");
          const result = await api("POST", "/me/reauthenticate/passkey", credentialJSON(credential));
          if (result.status !== 200) return explain(result.body.error);
          await load();
          say("You confirmed with your passkey. " + (action === "delete" ? "Click Delete account again to delete it." : "Now do it again."), { info: true });
        }
        $("guest").onclick = async () => {
          const response = await fetch("/auth/guest", { method: "POST" });
          if (response.status !== 200) { let b = {}; try { b = await response.json(); } catch (e) {} return explain(b.error || "unexpected_status"); }
          say("You are using a guest account. Link a way to sign in to keep it.", { info: true });
          await load();
        };
        $("note-form").onsubmit = async (event) => {
          event.preventDefault();
          const text = $("note-text").value.trim();
          if (!text) return;
          const result = await api("POST", "/app/notes", text);
          if (result.status !== 200) return explain(result.body.error);
          $("note-text").value = "";
          await load();
        };
        // After a link found the provider's account already here: signed in there now, bring
        // this browser's guest account (its notes) into it.
        async function merge() {
          const result = await api("POST", "/me/merge");
          if (result.status === 200) say("Done: what you did as a guest is now in this account.", { info: true });
          else explain(result.body.error);
          await load();
        }
        // Signed out here; when the provider can end its own session too, the browser goes there
        // and comes back to /auth/signout/callback, then here with ?signed_out=provider.
        $("sign-out").onclick = async () => {
          const result = await api("POST", "/auth/signout");
          if (result.body.end_session_url) { window.location.assign(result.body.end_session_url); return; }
          me = null; say("You are signed out here. Your provider keeps its own sign-in.", { info: true }); await load();
        };
        $("delete").onclick = async () => {
          const result = await api("DELETE", "/me");
          if (result.status === 403 && result.body.error === "requires_recent_login") return askToSignInAgain("delete", "Deleting your account");
          if (result.status === 200) { say("Account deleted. Your sign-in methods are unlinked and their access revoked.", { info: true }); me = null; }
          else explain(result.body.error);
          await load();
        };

        // Back from a provider: ?error=CODE (and provider_error=…) in plain words, or the
        // re-sign-in done; then clean the address.
        const query = new URLSearchParams(window.location.search);
        const via = labelOf(query.get("via") || "");
        const wasGuest = query.get("guest") === "1";
        let pendingMerge = false;
        if (query.get("error") === "credential_already_in_use" && wasGuest) {
          const name = query.get("via") || "";
          say("That " + (via || "provider") + " account already has an account here. Sign in with " + (via || "it") +
              " to use that account; what you did as a guest moves into it.",
              { actions: [link("Sign in with " + (via || "it") + " and bring my notes", start(name, "signIn", "/?via=" + name + "&merge=1"), "merge-sign-in")],
                code: "credential_already_in_use", info: true });
        } else if (query.get("error")) {
          explain(query.get("error"), via, query.get("provider_error"));
        } else if (query.get("merge") === "1") {
          // Never merged because of the address alone: the person confirms on this page.
          pendingMerge = true;
        } else if (query.get("signed_out") === "provider") {
          say("You are signed out, here and at your provider.", { info: true });
        } else if (query.get("confirm") === "delete") {
          say("You signed in again. Click Delete account again to delete it.", { info: true });
        } else if (query.get("confirm") === "passkey" || query.get("confirm") === "passkey-remove") {
          say("You signed in again. Click the passkey button again.", { info: true });
        } else if (query.get("confirm") === "unlink") {
          say("You signed in again. Click Unlink again to unlink it.", { info: true });
        }
        if (window.location.search) history.replaceState(null, "", window.location.pathname);
        load().then(() => {
          if (pendingMerge && me) {
            say("You are signed in with " + (via || "your provider") + ". Bring what you did as a guest into this account?",
                { actions: [button("Bring my notes here", merge, "", "merge-confirm")], info: true });
          }
          // A re-sign-in refused by a provider that cannot prove one: offer the others.
          if (me && query.get("error") === "provider_cannot_reauthenticate" && query.get("confirm")) askToSignInAgain(query.get("confirm"), "This change");
        });
        """#
}
