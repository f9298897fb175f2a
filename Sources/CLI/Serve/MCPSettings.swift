import Federate

/// `"mcp"` in `federate serve`'s file: the demo MCP server at `/mcp` (Docs/MCP.md), protected by
/// access tokens of `provider` (an `oidc` provider or a generic dev provider of the file) issued
/// for `resource` (default: the origin plus `/mcp`).
struct MCPSettings: Equatable {
    var provider: String
    var resource: String?

    init(provider: String, resource: String? = nil) {
        self.provider = provider
        self.resource = resource
    }

    init(json value: JSONValue) throws(FederateError) {
        let shape = "mcp is {\"provider\": NAME, \"resource\": URL (optional)}"
        guard case .object(let object) = value, let provider = object["provider"]?.stringValue, !provider.isEmpty else {
            throw FederateError(.invalidConfiguration, shape)
        }
        for key in object.keys where key != "provider" && key != "resource" {
            throw FederateError(.invalidConfiguration, "mcp has no key '\(key.prefix(40))': \(shape)")
        }
        self.init(provider: provider)
        if let resource = object["resource"] {
            guard let text = resource.stringValue else { throw FederateError(.invalidConfiguration, shape) }
            self.resource = text
        }
    }

    /// The MCP server's resource identifier.
    func resolvedResource(origin: String) -> String { resource ?? origin + "/mcp" }
}
