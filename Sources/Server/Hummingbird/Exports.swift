// `import FederateHummingbird` gives a server the routes and middleware with everything they
// take: the `Federate` module (tokens, relying party, accounts, the AsyncHTTPClient
// transport), so the documented app names one Federate server product besides its providers
// and store.
@_exported public import Federate
