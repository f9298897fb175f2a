// `import FederateHummingbird` gives a server the routes and middleware with everything they
// take: the `Federate` module (tokens, relying party, accounts, the AsyncHTTPClient
// transport) and the framework-neutral server layer (`FederateServer`: challenges, cookies,
// protected resource metadata), so the documented app names one Federate server product
// besides its providers and store.
@_exported public import Federate
@_exported public import FederateServer
