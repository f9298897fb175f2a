#!/usr/bin/env python3
"""Checks the layering of Docs/Architecture.md on the package's real dependency graph
(`swift package describe --type json`, read from standard input):

- the token layer (FederateTokens) depends on swift-crypto, swift-certificates and the
  observability APIs only (swift-metrics' CoreMetrics, swift-distributed-tracing's Tracing:
  APIs without a backend, no NIO, so verifications can be counted and traced where they run);
- the relying-party and account layers, the URLSession transport, the provider modules and
  the SQL stores' shared operations pull in no SwiftNIO, AsyncHTTPClient, Hummingbird or
  database driver;
- each layer depends only on the layers below it;
- the server layer every integration shares (FederateServer) names no web framework: no
  Hummingbird, no Vapor, no MCP SDK; FederateHummingbird, FederateMCP and the Vapor package
  (Integrations/FederateVapor) build on it.

Usage: swift package describe --type json | python3 scripts/check-layers.py
"""
import json, sys

text = sys.stdin.read()
# Resolution may print progress before the document on a fresh clone: start at the JSON.
package = json.loads(text[text.index('{'):])
targets = {target['name']: target for target in package['targets']}

def closure(name):
    """Every target and product `name` depends on, directly or not."""
    seen_targets, products, stack = set(), set(), [name]
    while stack:
        target = targets[stack.pop()]
        products |= set(target.get('product_dependencies', []))
        for dependency in target.get('target_dependencies', []):
            if dependency not in seen_targets:
                seen_targets.add(dependency)
                stack.append(dependency)
    return seen_targets, products

SERVER_STACK = ('NIO', 'AsyncHTTPClient', 'Hummingbird', 'PostgresNIO')
LAYERS = [  # (module, the targets it may depend on)
    ('FederateTokens', set()),
    ('FederateRelyingParty', {'FederateTokens'}),
    ('FederateURLSession', {'FederateTokens', 'FederateRelyingParty'}),
    ('FederateAccounts', {'FederateTokens', 'FederateRelyingParty'}),
    ('FederateOIDC', {'FederateTokens', 'FederateRelyingParty', 'FederateAccounts'}),
    ('FederateGoogle', {'FederateTokens', 'FederateRelyingParty', 'FederateAccounts', 'FederateOIDC'}),
    ('FederateApple', {'FederateTokens', 'FederateRelyingParty', 'FederateAccounts', 'FederateOIDC'}),
    ('FederateMicrosoft', {'FederateTokens', 'FederateRelyingParty', 'FederateAccounts', 'FederateOIDC'}),
    ('FederateOAuth2', {'FederateTokens', 'FederateRelyingParty', 'FederateAccounts'}),
    ('FederateGitHub', {'FederateTokens', 'FederateRelyingParty', 'FederateAccounts', 'FederateOAuth2'}),
    ('FederateSQLStore', {'FederateTokens', 'FederateRelyingParty', 'FederateAccounts'}),
]
failures = []
for module, allowed in LAYERS:
    below, products = closure(module)
    if not below <= allowed:
        failures.append(f'{module} depends on {sorted(below - allowed)}, outside the layers below it')
    heavy = sorted(p for p in products if p.startswith(SERVER_STACK))
    if heavy:
        failures.append(f'{module} pulls in {heavy}')
    print(f'{module}: targets {sorted(below) or "-"}, products {sorted(products)}')
tokens_products = closure('FederateTokens')[1]
# CoreMetrics and Tracing are APIs only (Docs/Operations.md): the application picks a backend.
TOKENS_ALLOWED = {'Crypto', '_CryptoExtras', 'X509', 'CoreMetrics', 'Tracing'}
if not tokens_products <= TOKENS_ALLOWED:
    failures.append(f'FederateTokens needs {sorted(tokens_products - TOKENS_ALLOWED)}: only swift-crypto, swift-certificates, '
                    'CoreMetrics and Tracing are allowed')
server_targets, server_products = closure('FederateServer')
framework = sorted(p for p in server_products if p.startswith(('Hummingbird', 'Vapor', 'MCP')))
if framework or 'FederateHummingbird' in server_targets:
    failures.append(f'FederateServer pulls in {framework or ["FederateHummingbird"]}: it must stay framework-neutral')
print(f'FederateServer: targets {sorted(server_targets)}, products {sorted(server_products)}')
for failure in failures:
    print('layering: ' + failure, file=sys.stderr)
sys.exit(1 if failures else 0)
