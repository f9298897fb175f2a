import FederateTokens

extension ProviderMetadata {
    /// `pushed_authorization_request_endpoint` (RFC 9126 §5), if advertised as a string. It is
    /// checked (HTTPS, loopback HTTP excepted) when a request is pushed to it.
    var pushedAuthorizationRequestEndpoint: String? {
        document["pushed_authorization_request_endpoint"]?.stringValue
    }

    /// `require_pushed_authorization_requests` (RFC 9126 §5): whether the provider accepts
    /// authorization requests only through its pushed-request endpoint. Absent or `false`
    /// means no; any other value, even a malformed one, is read as yes (pushing is the safe side).
    var requiresPushedAuthorizationRequests: Bool {
        switch document["require_pushed_authorization_requests"] {
        case nil, .bool(false)?, .null?: return false
        default: return true
        }
    }

    /// `device_authorization_endpoint` (RFC 8628 §4), if advertised as a string. It is checked
    /// (HTTPS, loopback HTTP excepted) when a device authorization starts.
    package var deviceAuthorizationEndpoint: String? {
        document["device_authorization_endpoint"]?.stringValue
    }

    /// `request_object_signing_alg_values_supported` (RFC 9101 §10.5, OpenID Connect
    /// Discovery §3), if advertised.
    var requestObjectSigningAlgValuesSupported: [String]? {
        document["request_object_signing_alg_values_supported"]?.arrayValue?.compactMap(\.stringValue)
    }
}
