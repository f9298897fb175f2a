"""Writes Docs/ErrorCodes.md from the error-code constants of every module: each module's
`extension FederateError.Code { static let ... }` declarations under Sources/ and Providers/,
grouped by the module that declares them (the layer that raises them) and, within a file, by
its `// MARK: - Title` sections."""
import glob, os, re
CODE = re.compile(r'((?:[ \t]*///[^\n]*\n)+)[ \t]*(?:public )?static let (\w+): Self = "([^"]+)"')
MARK = re.compile(r'^// MARK: - (.+)$', re.M)
# The layers' order (Docs/Architecture.md): a module's codes are listed below those it builds on.
ORDER = ['FederateTokens', 'FederateRelyingParty', 'FederateAsyncHTTPClient', 'FederateURLSession', 'FederateLoopback',
         'FederateAccounts']
modules = {}
# Folder to module name (Docs/Architecture.md); layer folders hold one module per subfolder.
MODULES = {'CLI': 'federate (command-line tool)'}
for path in sorted(glob.glob('Sources/**/*.swift', recursive=True) + glob.glob('Providers/**/*.swift', recursive=True)):
    parts = path.split('/')
    if parts[1:3] == ['Server', 'Core']:
        module = 'FederateServer'  # the integrations' shared layer
    else:
        module = MODULES.get(parts[1], 'Federate' + (parts[2] if parts[1] in ('Transports', 'Stores', 'Server') else parts[1]))
    text = open(path).read()
    marks = [(m.start(), m.group(1).strip()) for m in MARK.finditer(text)]
    for m in CODE.finditer(text):
        section = None
        for position, title in marks:
            if position < m.start(): section = title
        modules.setdefault(module, []).append((m, path, section))
out=["# Error codes","","Every failure in Federate is a `FederateError`: a stable `code` (a snake_case string;",
"compare it with the constants below), a `message` for people (never containing tokens,",
"secrets or codes), and, for an OAuth error answered by a provider, `providerError` with the",
"provider's own `error`, `error_description` and `error_uri`. The command-line tool prints the",
"same code as `{\"error\": CODE, \"message\": ...}`.","",
"Provider error codes are kept as the provider sent them (restricted to printable ASCII, at",
"most 128 characters): a code not listed here, such as a provider's new one, still arrives",
"as `code.rawValue`. What to do, by group:","",
"Codes are listed by the module that declares them, which is the layer that raises them.", "",
"- **Token structure, claims**: the token is not acceptable; answer 401 and never retry",
"  with the same token. `unknown_key` after the automatic refetch means the token was not",
"  signed by the issuer's current keys.",
"- **Keys, discovery, transport**: the provider or the network failed; retry later, alert if it",
"  lasts. `insecure_endpoint`, `invalid_url` and `invalid_configuration` are set-up mistakes.",
"- **Authorization flow**: `state_mismatch`, `callback_issuer_mismatch`, `invalid_callback` and",
"  `invalid_pending_authorization` mean the callback must not be trusted: start a new sign-in",
"  (no token request was sent). `invalid_grant` on refresh means the user must sign in again.",
"- **Accounts**: `account_exists_with_different_credential`, `credential_already_in_use` and",
"  `email_already_in_use` carry `accountContext` (the email, the pending credential): sign in with",
"  an existing provider, then link. `requires_recent_login`: reauthenticate, then retry.",
"  `session_revoked`, `user_disabled`, `user_not_found`: the session is over; sign in again.",
""]
def row(m, path=None):
    doc=' '.join(l.strip()[3:].strip() for l in m.group(1).strip().split('\n')).replace('|', '\\|')
    where = " (`%s`)" % os.path.basename(path) if path else ""
    return "| `%s` | `.%s` | %s%s |" % (m.group(3), m.group(2), doc, where)

def table(rows):
    return ["| code | constant | meaning |", "| --- | --- | --- |"] + rows + [""]

for module in sorted(modules, key=lambda name: (ORDER.index(name) if name in ORDER else len(ORDER), name)):
    found = modules[module]
    out += ["## " + module, ""]
    titles = []
    for _, _, section in found:
        if section and section not in titles: titles.append(section)
    for title in titles:
        out += ["### " + title, ""] + table([row(m) for m, _, section in found if section == title])
    others = [row(m, path) for m, path, section in found if not section]
    if others:
        out += (["### More codes of " + module, ""] if titles else []) + table(others)
out += ["## Where they come from", "",
"- `IDTokenVerifier`, `JWTVerifier`, `AccessTokenVerifier`: token structure, keys, claims.",
"- `JSONWebKeySet`, `RemoteKeySet`, `DiscoveryClient`, `AsyncHTTPClientTransport`: keys, discovery, transport.",
"- `AuthorizationResponse`, `PendingAuthorizationSealer`, `OpenIDClient`,",
"  `AccessTokenHolder`, `LoopbackRedirectListener`: the authorization flow.",
"- `AccountService` and the `AccountStore`s (in-memory, `FederateSQLite`, `FederatePostgres`): accounts",
"  and sessions (see Docs/Accounts.md).", "",
"This page is generated from the code constants of every module by",
"`python3 scripts/gen-error-codes.py`; a test (`ErrorCodesDocTests`) checks that every code",
"any module declares or emits is listed here.", ""]
open('Docs/ErrorCodes.md','w').write('\n'.join(out))
