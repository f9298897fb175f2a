import Federate
@testable import FederateGoogle
import Testing

@Suite("App Flip")
struct AppFlipTests {
    static let flip = AppFlip(clientID: "my-client")
    static let redirect = "https://oauth-redirect.googleusercontent.com/a/com.google.OPA"

    static func query(_ parameters: [(String, String)]) -> String { FormURLEncoding.encode(parameters) }

    @Test func validRequestAndSuccessLink() throws {
        let validation = Self.flip.validate(
            query: Self.query([
                ("client_id", "my-client"), ("scope", "a b"), ("state", "s+1/="), ("redirect_uri", Self.redirect),
            ]))
        guard case .valid(let request) = validation else {
            Issue.record("\(validation)")
            return
        }
        #expect(request.scopes == ["a", "b"])
        #expect(request.state == "s+1/=")
        #expect(Self.flip.returnURL(for: request, code: "c-1") == Self.redirect + "?code=c-1&state=s%2B1%2F%3D")
    }

    @Test(arguments: AppFlip.ErrorCode.allCases)
    func everyErrorGoesBackToTheRedirectURI(error: AppFlip.ErrorCode) throws {
        guard
            case .valid(let request) = Self.flip.validate(
                query: Self.query([
                    ("client_id", "my-client"), ("state", "st"), ("redirect_uri", Self.redirect),
                ]))
        else {
            Issue.record("not valid")
            return
        }
        #expect(Self.flip.returnURL(for: request, error: error) == Self.redirect + "?error=\(error.rawValue)&state=st")
        #expect(
            Self.flip.returnURL(for: request, error: error, description: "why not")
                == Self.redirect + "?error=\(error.rawValue)&error_description=why+not&state=st")
    }

    @Test func clientVerificationFailuresAnswerInvalidRequest() {
        let wrongClient = Self.flip.validate(query: Self.query([("client_id", "other"), ("state", "st"), ("redirect_uri", Self.redirect)]))
        #expect(wrongClient == .rejected(returnURL: Self.redirect + "?error=invalid_request&error_description=unknown+client_id&state=st"))
        let noState = Self.flip.validate(query: Self.query([("client_id", "my-client"), ("redirect_uri", Self.redirect)]))
        #expect(noState == .rejected(returnURL: Self.redirect + "?error=invalid_request&error_description=state+is+missing"))
    }

    @Test(arguments: [
        "https://evil.example/a/com.google.OPA", "https://oauth-redirect.googleusercontent.com/a/com.evil.app",
        "http://oauth-redirect.googleusercontent.com/a/com.google.OPA",
        "https://oauth-redirect.googleusercontent.com/a/com.google.OPA/extra",
    ])
    func foreignRedirectsGetNoAnswer(redirect: String) {
        let validation = Self.flip.validate(query: Self.query([("client_id", "my-client"), ("state", "st"), ("redirect_uri", redirect)]))
        guard case .unusable = validation else {
            Issue.record("\(redirect) accepted: \(validation)")
            return
        }
    }

    @Test func everyGoogleAppAndBothHostsAreAccepted() {
        for prefix in AppFlip.redirectPrefixes {
            for bundle in AppFlip.googleAppBundleIDs { #expect(AppFlip.isAllowedRedirect(prefix + bundle)) }
        }
    }
}
