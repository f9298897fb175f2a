import Federate

/// What an authorization request asks of the authentication: its `acr_values`, or the `acr`
/// of its `claims` parameter (OpenID Connect Core §5.5.1.1), which takes precedence.
struct DevStepUp: Sendable {
    /// The `acr` values requested, in order of preference.
    let requested: [String]
    /// Whether the `acr` is essential (an unmet one fails the sign-in).
    let essential: Bool
    /// Whether the request mentions `acr` at all (then ID tokens carry one).
    let asksForACR: Bool

    /// Reads the request; throws a description for `invalid_request`.
    init(_ parameters: [String: String]) throws(DevStepUpRefusal) {
        var requested = (parameters["acr_values"] ?? "").split(separator: " ").map(String.init)
        guard requested.count <= 16, requested.allSatisfy({ $0.utf8.count <= AuthenticationLevel.maximumValueBytes }) else {
            throw DevStepUpRefusal(description: "acr_values has at most 16 values of at most 256 bytes")
        }
        var essential = false
        var asks = !requested.isEmpty
        if let text = parameters["claims"] {
            let claims: ClaimsRequest
            do { claims = try ClaimsRequest(parsing: text) } catch { throw DevStepUpRefusal(description: error.message) }
            if let acr = claims.idToken["acr"] {
                asks = true
                essential = acr.essential
                let named = (acr.value.map { [$0] } ?? []) + (acr.values ?? [])
                if !named.isEmpty { requested = named }
            }
        }
        self.requested = requested
        self.essential = essential
        self.asksForACR = asks
    }

    /// Whether `method` meets the request (no value requested: any method does).
    func isMet(by method: DevAuthenticationMethod) -> Bool {
        requested.isEmpty || method.meetsAny(of: requested)
    }

    /// The weakest method that meets the request, for the sign-in page to preselect.
    var weakestSufficientMethod: DevAuthenticationMethod {
        DevAuthenticationMethod.allCases.first(where: isMet(by:)) ?? .password
    }
}

/// A step-up request the dev provider refuses (`invalid_request`).
struct DevStepUpRefusal: Error {
    let description: String
}

extension DevRoutes {
    /// The sign-in page's choice of method: the weakest that meets the request, preselected.
    func methodChoice(_ stepUp: DevStepUp?) -> String {
        let preselected = stepUp?.weakestSufficientMethod ?? .password
        let options = DevAuthenticationMethod.allCases.map { method in
            "<option value=\"\(method.rawValue)\"\(method == preselected ? " selected" : "")>\(html(method.label))</option>"
        }.joined()
        let wanted = stepUp.map { $0.requested.isEmpty ? "" : " (requested acr: \(html($0.requested.joined(separator: " "))))" } ?? ""
        return "<p><label>Authenticate with <select name=\"method\">\(options)</select></label>\(wanted)</p>"
    }
}
