import Federate

/// The reference app's one page, written like a product's sign-in page: signed out, a
/// button per provider, by its name; signed in, a summary of the account (name, email, how
/// long ago, how many ways to sign in — never the raw uid), the linked providers (Unlink
/// unless it is the last one), "Link another" with only the providers not linked yet, sign
/// out and delete; the account's notes (the app's own data, `/app/notes`). A guest ("Continue as
/// guest") is told to link a way to sign in to keep the account; a guest whose link finds the
/// provider's account already here is offered to sign in there and bring its notes (a merge,
/// `POST /me/merge`). Errors read as plain sentences with the way forward (``DemoPageScript``),
/// the stable code kept in a small muted line for support. A sensitive change that needs a
/// recent sign-in says what happens next and offers the re-sign-in, which comes back here.
///
/// It reads `/me` and calls the JSON API with the CSRF token `/me` hands out.
enum DemoPage {
    /// A sign-in button: the route name (`/auth/{name}/…`), what the person reads, and the
    /// provider ID its credentials carry (to name linked providers).
    struct Provider {
        let name: String
        let label: String
        let providerID: String
        /// Whether it can prove a fresh sign-in (an OAuth 2.0 provider without ID tokens cannot):
        /// only such providers are offered for a re-sign-in.
        var reauthenticates = true
    }

    /// The page; with `guests`, a "Continue as guest" button for signed-out visitors; with
    /// `passkeys`, sign-in with a passkey (a button, and the browser's autofill where it offers
    /// conditional mediation), a "Passkeys" section to add and remove them, and passkeys as a
    /// way to confirm a sensitive change.
    static func html(providers: [Provider], guests: Bool = false, passkeys: Bool = false) -> String {
        let list = JSONSerializer.bytes(
            .array(
                providers.map { provider -> JSONValue in
                    [
                        "name": .string(provider.name), "label": .string(provider.label), "provider_id": .string(provider.providerID),
                        "reauthenticates": .bool(provider.reauthenticates),
                    ]
                }))
        // JSON inside a <script>: "</" could end the element early.
        let json = String(decoding: list, as: UTF8.self).replacingOccurrences(of: "</", with: "<\\/")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Sign in — Federate demo</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <style>
            body { font-family: system-ui, sans-serif; max-width: 34em; margin: 3em auto; padding: 0 1em; color: #1d1d1f; line-height: 1.45; }
            h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
            button, a.button { font: inherit; padding: .5em 1em; margin: .25em .4em .25em 0; border-radius: .45em;
              border: 1px solid #8a8a8e; background: #f5f5f7; color: inherit; text-decoration: none; display: inline-block; cursor: pointer; }
            #sign-in a.button { display: block; text-align: center; margin: .5em 0; }
            .danger { border-color: #c62828; color: #c62828; } .muted { color: #6e6e73; font-size: .85em; }
            ul { padding: 0; list-style: none; } li { margin: .4em 0; display: flex; align-items: center; gap: .6em; }
            #message { padding: .8em 1em; border-radius: .5em; background: #fff4e5; border: 1px solid #f0c27b; }
            #message.info { background: #eef6ff; border-color: #9cc3f0; } #message p { margin: 0 0 .3em; }
            </style></head>
            <body>
            <h1>Federate demo</h1>
            <div id="message" role="status" hidden><p id="message-text"></p><div id="message-actions"></div><div id="message-code" class="muted"></div></div>
            <div id="signed-out" hidden>
              <p>Sign in to your account. You can link your other sign-in methods to the same account afterwards.</p>
              <div id="sign-in"></div>
              <div id="passkey-area" \(passkeys ? "" : "hidden")><input id="passkey-username" autocomplete="username webauthn" placeholder="Passkey (your browser may offer one)" aria-label="Passkey"> <button id="passkey-sign-in">Sign in with a passkey</button></div>
              <div id="guest-area" \(guests ? "" : "hidden")><p class="muted">Not ready to choose?</p><button id="guest">Continue as guest</button></div>
            </div>
            <div id="signed-in" hidden>
              <p>Signed in as <strong id="who"></strong><span id="email"></span></p>
              <p id="summary" class="muted"></p>
              <h2>Notes</h2><ul id="notes"></ul>
              <form id="note-form"><input id="note-text" maxlength="200" placeholder="A note" aria-label="A note"> <button id="note-add">Add note</button></form>
              <h2>Ways to sign in</h2><ul id="linked"></ul>
              <h2>Link another</h2><div id="link"></div>
              <div id="passkeys-area" \(passkeys ? "" : "hidden")><h2>Passkeys</h2><ul id="passkeys"></ul><button id="passkey-add">Add a passkey</button></div>
              <h2>Account</h2>
              <button id="sign-out">Sign out</button> <button id="delete" class="danger">Delete account</button>
            </div>
            <p class="muted">Federate's reference app: sessions are HttpOnly cookies; changes carry a CSRF token.</p>
            <script>
            const providers = \(json);
            const passkeysOn = \(passkeys);
            \(DemoPageScript.source)
            </script>
            </body></html>
            """
    }
}
