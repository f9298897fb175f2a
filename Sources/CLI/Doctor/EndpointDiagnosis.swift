import Federate
import Foundation

/// `federate doctor`'s endpoint checks: transport security and host of each endpoint, and the
/// advertised methods (client authentication, PKCE, response types and modes, RFC 9207).
enum EndpointDiagnosis {
    /// The discovery fields that hold URLs Federate calls or sends the browser to.
    static let endpointFields = [
        "issuer", "authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint", "revocation_endpoint",
        "end_session_endpoint", "introspection_endpoint",
    ]

    /// Client authentication methods Federate implements (`ClientAuthentication`).
    static let federateAuthMethods = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]

    /// Every endpoint finding.
    static func checks(_ metadata: ProviderMetadata) -> [DoctorCheck] {
        [tls(metadata)] + presence(metadata) + [
            authMethods(metadata), pkce(metadata), responseTypes(metadata), responseModes(metadata), issParameter(metadata),
        ]
    }

    private static func host(_ url: String) -> String? {
        URLComponents(string: url)?.host?.lowercased()
    }

    private static func endpoints(_ metadata: ProviderMetadata) -> [(field: String, url: String)] {
        let all: [(String, String?)] = [
            ("issuer", metadata.issuer), ("authorization_endpoint", metadata.authorizationEndpoint),
            ("token_endpoint", metadata.tokenEndpoint),
            ("jwks_uri", metadata.jwksURI), ("userinfo_endpoint", metadata.userinfoEndpoint),
            ("revocation_endpoint", metadata.revocationEndpoint),
            ("end_session_endpoint", metadata.endSessionEndpoint), ("introspection_endpoint", metadata.introspectionEndpoint),
        ]
        return all.compactMap { field, url in url.map { (field, $0) } }
    }

    /// `endpoints.tls`: every URL is https, or plain http on loopback (development only).
    private static func tls(_ metadata: ProviderMetadata) -> DoctorCheck {
        let plain = endpoints(metadata).filter { URLComponents(string: $0.url)?.scheme?.lowercased() != "https" }.map { $0.field }
        let federate =
            "Federate calls only https endpoints, or plain http on a loopback host (127.0.0.0/8, ::1, localhost) when the issuer itself is on loopback (development)."
        if plain.isEmpty {
            return DoctorCheck("endpoints.tls", .ok, "Every endpoint uses https.", federate: federate)
        }
        return DoctorCheck(
            "endpoints.tls", .warning,
            "Plain http on a loopback host of a loopback issuer: \(plain.joined(separator: ", ")). Fine for development, never for a real provider.",
            federate: federate)
    }

    /// `endpoints.authorization`, `.token`, `.userinfo`, `.revocation`, `.end_session`: present, and on which host.
    private static func presence(_ metadata: ProviderMetadata) -> [DoctorCheck] {
        let issuerHost = host(metadata.issuer) ?? ""
        func place(_ url: String) -> String {
            let endpointHost = host(url) ?? ""
            return endpointHost == issuerHost
                ? "on the issuer's host"
                : "on \(DoctorText.quoted(endpointHost, limit: 80)), not the issuer's host \(DoctorText.quoted(issuerHost, limit: 80))"
        }
        func present(_ id: String, _ field: String, _ url: String, federate: String) -> DoctorCheck {
            DoctorCheck(id, .ok, "\(field) is \(DoctorText.clipped(url, limit: 200)), \(place(url)).", federate: federate)
        }
        var checks = [
            present(
                "endpoints.authorization", "authorization_endpoint", metadata.authorizationEndpoint,
                federate: "Federate sends the browser here with response_type=code, state, nonce and PKCE."),
            present(
                "endpoints.token", "token_endpoint", metadata.tokenEndpoint,
                federate: "Federate exchanges codes and refreshes tokens here (POST, form-encoded, no redirects followed)."),
        ]
        if let userinfo = metadata.userinfoEndpoint {
            checks.append(
                present(
                    "endpoints.userinfo", "userinfo_endpoint", userinfo,
                    federate:
                        "After a sign-in, Federate's OIDCProvider fills what the ID token lacks (email, name, picture) from UserInfo; its sub must equal the ID token's."
                ))
        } else {
            checks.append(
                DoctorCheck(
                    "endpoints.userinfo", .ok, "No userinfo_endpoint.",
                    federate: "Federate takes the profile from the ID token alone; OpenIDClient.userInfo answers endpoint_not_available."))
        }
        if let revocation = metadata.revocationEndpoint {
            checks.append(
                present(
                    "endpoints.revocation", "revocation_endpoint", revocation,
                    federate: "Federate revokes tokens here (RFC 7009), e.g. when an account is deleted."))
        } else {
            checks.append(
                DoctorCheck(
                    "endpoints.revocation", .warning, "No revocation_endpoint.",
                    federate:
                        "Federate's revoke answers endpoint_not_available unless the provider profile names a fallback (Google's and Apple's do; `federate token revoke --revocation-endpoint` takes one)."
                ))
        }
        if let endSession = metadata.endSessionEndpoint {
            checks.append(
                present(
                    "endpoints.end_session", "end_session_endpoint", endSession,
                    federate: "Federate's RPInitiatedLogout can send the browser here to end the provider's session."))
        } else {
            checks.append(
                DoctorCheck(
                    "endpoints.end_session", .ok, "No end_session_endpoint.",
                    federate: "Signing out ends Federate's own session only; RPInitiatedLogout answers endpoint_not_available."))
        }
        return checks
    }

    /// `endpoints.auth_methods`: `token_endpoint_auth_methods_supported` against `ClientAuthentication`.
    private static func authMethods(_ metadata: ProviderMetadata) -> DoctorCheck {
        guard let advertised = metadata.tokenEndpointAuthMethodsSupported else {
            return DoctorCheck(
                "endpoints.auth_methods", .ok,
                "No token_endpoint_auth_methods_supported: the specification's default is client_secret_basic.",
                federate:
                    "With a client secret Federate uses client_secret_basic; without one it sends only client_id ('none', a public client with PKCE)."
            )
        }
        let usable = federateAuthMethods.filter { advertised.contains($0) }
        let details: JSONValue = .object(["advertised": .array(advertised.prefix(64).map { .string(DoctorText.clipped($0, limit: 60)) })])
        guard !usable.isEmpty else {
            return DoctorCheck(
                "endpoints.auth_methods", .failure,
                "token_endpoint_auth_methods_supported lists \(DoctorText.list(advertised)), none of which Federate implements.",
                federate:
                    "Federate authenticates with client_secret_basic, client_secret_post, private_key_jwt or none only; the token endpoint would refuse it.",
                details: details)
        }
        return DoctorCheck(
            "endpoints.auth_methods", .ok, "token_endpoint_auth_methods_supported: \(DoctorText.list(advertised)).",
            federate:
                "Federate chooses, in order: private_key_jwt when given a key; with a secret client_secret_basic, else client_secret_post; without either 'none'. Usable here: \(usable.joined(separator: ", ")).",
            details: details)
    }

    /// `endpoints.pkce`: `code_challenge_methods_supported` and S256.
    private static func pkce(_ metadata: ProviderMetadata) -> DoctorCheck {
        guard let methods = metadata.codeChallengeMethodsSupported else {
            return DoctorCheck(
                "endpoints.pkce", .warning, "No code_challenge_methods_supported.",
                federate:
                    "Federate still sends PKCE S256 with every authorization request; a provider that ignores PKCE still works, but PKCE then protects nothing."
            )
        }
        if methods.contains("S256") {
            return DoctorCheck(
                "endpoints.pkce", .ok, "code_challenge_methods_supported includes S256.",
                federate: "Federate sends PKCE S256 with every authorization request.")
        }
        return DoctorCheck(
            "endpoints.pkce", .failure, "code_challenge_methods_supported (\(DoctorText.list(methods))) does not include S256.",
            federate:
                "Federate refuses to build an authorization request for this provider (invalid_configuration): it never falls back to 'plain'.",
            code: FederateError.Code.invalidConfiguration.rawValue)
    }

    /// `endpoints.response_types`: the authorization-code flow must be offered.
    private static func responseTypes(_ metadata: ProviderMetadata) -> DoctorCheck {
        let types = metadata.responseTypesSupported
        if types.contains("code") {
            return DoctorCheck(
                "endpoints.response_types", .ok, "response_types_supported includes code.",
                federate: "Federate uses the authorization-code flow only (response_type=code); implicit and hybrid types are refused.")
        }
        return DoctorCheck(
            "endpoints.response_types", .failure, "response_types_supported (\(DoctorText.list(types))) does not include code.",
            federate:
                "Federate uses the authorization-code flow only: it cannot sign users in with this provider (ID-token verification still works)."
        )
    }

    /// `endpoints.response_modes`: how the callback arrives.
    private static func responseModes(_ metadata: ProviderMetadata) -> DoctorCheck {
        guard let modes = metadata.responseModesSupported else {
            return DoctorCheck(
                "endpoints.response_modes", .ok, "No response_modes_supported: the defaults (query, fragment) apply.",
                federate:
                    "Federate sends no response_mode unless asked, so the code arrives in the query string; it refuses a requested response_mode only when the provider lists modes without it."
            )
        }
        let known = ResponseMode.allCases.map(\.rawValue).filter(modes.contains)
        let status: DoctorCheck.Status = modes.contains("query") ? .ok : .warning
        return DoctorCheck(
            "endpoints.response_modes", status,
            "response_modes_supported: \(DoctorText.list(modes))\(modes.contains("query") ? "" : " (query is not listed)").",
            federate:
                "Federate sends no response_mode unless asked (the code then arrives in the query string) and refuses to request a mode the provider does not list; it can read query, fragment and form_post. Usable here: \(known.isEmpty ? "none" : known.joined(separator: ", "))."
        )
    }

    /// `endpoints.iss_parameter`: RFC 9207.
    private static func issParameter(_ metadata: ProviderMetadata) -> DoctorCheck {
        if metadata.authorizationResponseIssParameterSupported {
            return DoctorCheck(
                "endpoints.iss_parameter", .ok, "authorization_response_iss_parameter_supported is true (RFC 9207).",
                federate:
                    "Federate requires 'iss' in every callback and refuses one whose 'iss' is not this issuer (callback_issuer_mismatch): mix-up attacks fail."
            )
        }
        return DoctorCheck(
            "endpoints.iss_parameter", .ok, "The provider does not advertise RFC 9207's iss parameter.",
            federate: "Federate checks a callback's 'iss' when one is present and otherwise relies on state, PKCE and the ID token's iss.")
    }
}
