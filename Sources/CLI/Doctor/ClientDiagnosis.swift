import Federate
import FederateApple
import FederateGoogle

/// `federate doctor --client-id`: what can be checked for one client without its secret. The
/// ID-token policy is the one Federate's provider profile really derives for this client.
enum ClientDiagnosis {
    /// The provider profile Federate applies to an issuer.
    enum Profile: String {
        case google, apple, standard

        /// Google's or Apple's profile when the issuer is theirs, else the standard one.
        init(issuer: String) {
            if GoogleEndpoints.google.issuers.contains(issuer) {
                self = .google
            } else if issuer == AppleEndpoints.apple.issuer {
                self = .apple
            } else {
                self = .standard
            }
        }

        var profile: any OpenIDProviderProfile {
            switch self {
            case .google: return GoogleProfile()
            case .apple: return AppleProfile()
            case .standard: return StandardOpenIDProfile()
            }
        }

        var name: String {
            switch self {
            case .google: return "Google's profile (GoogleProvider, FederateGoogle)"
            case .apple: return "Apple's profile (AppleProvider, FederateApple)"
            case .standard: return "the standard OpenID Connect profile (OIDCProvider)"
            }
        }
    }

    /// The findings `client.id`, `client.policy`, `client.azp` and `client.authentication`.
    static func checks(_ metadata: ProviderMetadata, clientID: String) -> [DoctorCheck] {
        let profile = Profile(issuer: metadata.issuer)
        return [
            identifier(clientID, profile: profile), policy(metadata, clientID: clientID, profile: profile),
            authorizedParty(clientID, profile: profile), authentication(metadata, profile: profile),
        ]
    }

    private static func identifier(_ clientID: String, profile: Profile) -> DoctorCheck {
        let federate = "Federate compares aud and azp with the client ID byte for byte (no trimming, no case folding)."
        if clientID.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) {
            return DoctorCheck(
                "client.id", .failure, "The client ID \(DoctorText.quoted(clientID)) contains whitespace or control characters.",
                federate: federate + " A client ID with spaces will match no token's aud.")
        }
        if profile == .google, !clientID.hasSuffix(".apps.googleusercontent.com") {
            return DoctorCheck(
                "client.id", .warning,
                "\(DoctorText.quoted(clientID)) does not look like a Google OAuth client ID (NNN-xxx.apps.googleusercontent.com).",
                federate: federate + " Google's ID tokens carry the OAuth client ID as aud, so this value would match none.")
        }
        return DoctorCheck("client.id", .ok, "The client ID is \(DoctorText.quoted(clientID)).", federate: federate)
    }

    private static func policy(_ metadata: ProviderMetadata, clientID: String, profile: Profile) -> DoctorCheck {
        let policy = profile.profile.policy(metadata: metadata, clientID: clientID, authentication: .none)
        let algorithms = policy.allowedAlgorithms.sorted().map(\.rawValue)
        let details: JSONValue = .object([
            "profile": .string(profile.rawValue), "issuers": .array(policy.issuers.sorted.map(JSONValue.string)),
            "audiences": .array(policy.audiences.sorted.map { .string(DoctorText.clipped($0, limit: 200)) }),
            "algorithms": .array(algorithms.map(JSONValue.string)), "clock_tolerance_seconds": .double(policy.clockTolerance.inSeconds),
        ])
        return DoctorCheck(
            "client.policy", .ok,
            "Federate applies \(profile.name) to this issuer.",
            federate:
                "An ID token for this client must have iss \(DoctorText.list(policy.issuers.sorted)), aud containing \(DoctorText.quoted(clientID)), alg \(algorithms.joined(separator: " or ")), a non-empty sub, and exp, iat and nbf within \(policy.clockTolerance.wholeSeconds) s.",
            details: details)
    }

    private static func authorizedParty(_ clientID: String, profile: Profile) -> DoctorCheck {
        switch profile {
        case .google:
            return DoctorCheck(
                "client.azp", .ok,
                "Google sets azp to the client that asked for the token, which differs from aud when an Android or iOS app gets an ID token for this (web) client.",
                federate:
                    "Federate accepts azp only when it is this client ID, unless GoogleProfile/GoogleIDTokenVerifier is given the other clients as authorizedParties; azp is required when aud has several values (azp_mismatch)."
            )
        case .apple, .standard:
            return DoctorCheck(
                "client.azp", .ok, "azp is checked when present.",
                federate: "Federate accepts azp only when it is this client ID, and requires it when aud has several values (azp_mismatch)."
            )
        }
    }

    private static func authentication(_ metadata: ProviderMetadata, profile: Profile) -> DoctorCheck {
        if profile == .apple {
            return DoctorCheck(
                "client.authentication", .ok, "Apple's token endpoint authenticates clients with an ES256 client-secret JWT.",
                federate:
                    "Federate's AppleProvider signs that JWT with your .p8 key (`federate apple client-secret` prints one); not checked without the key."
            )
        }
        let advertised = metadata.tokenEndpointAuthMethodsSupported ?? ["client_secret_basic"]
        if advertised.contains("none") {
            return DoctorCheck(
                "client.authentication", .ok, "The provider accepts public clients ('none' in token_endpoint_auth_methods_supported).",
                federate: "Without a secret Federate sends only client_id at the token endpoint; PKCE S256 protects the code.")
        }
        return DoctorCheck(
            "client.authentication", .warning,
            "The provider does not advertise 'none': it probably refuses a client without a secret at the token endpoint.",
            federate:
                "Without a secret Federate would send only client_id; give the client's secret (--client-secret or FEDERATE_CLIENT_SECRET) or a private key (private_key_jwt) to `federate login`. The secret itself is not checked here."
        )
    }
}
