// `import FederateVapor` gives a Vapor app the routes and middleware with everything they
// take: the `Federate` module (tokens, relying party, accounts, the AsyncHTTPClient transport)
// and the framework-neutral server layer they are built on (`FederateServer`: challenges,
// cookies, protected resource metadata).
@_exported public import Federate
@_exported public import FederateServer
