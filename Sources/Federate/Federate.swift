// `import Federate` gives a server everything below the provider modules: the token layer,
// the relying-party layer, the account layer, and the AsyncHTTPClient and loopback
// transports. Teams that need less depend on the layer modules themselves
// (Docs/Architecture.md).
@_exported public import FederateTokens
@_exported public import FederateRelyingParty
@_exported public import FederateAccounts
@_exported public import FederateAsyncHTTPClient
@_exported public import FederateLoopback
