// `import FederateMCP` gives an MCP server the protection and the server layer it is built on.
@_exported public import FederateServer
