import Federate
import Foundation

/// `federate doctor`'s clock check: the provider's `Date` headers against this machine's
/// clock, compared with Federate's default clock tolerance (`IDTokenPolicy.clockTolerance`).
enum ClockDiagnosis {
    /// Federate's default leeway for `exp`, `iat`, `nbf` and `auth_time`, in seconds.
    static var defaultTolerance: Double { IDTokenPolicy(issuers: [], audiences: []).clockTolerance.inSeconds }

    /// The finding `clock.skew`, from the exchange whose `Date` is furthest from local time.
    static func check(_ exchanges: [RecordingHTTPClient.Exchange], tolerance: Double = defaultTolerance) -> DoctorCheck {
        var worst: (skew: Double, uncertainty: Double, url: String)?
        var unparsable: String?
        for exchange in exchanges {
            guard let header = exchange.response.header("Date") else { continue }
            guard let seconds = HTTPDate.secondsSince1970(header) else {
                unparsable = header
                continue
            }
            // The server wrote `Date` (truncated to the second) between sending and receiving.
            let sent = exchange.sentAt.timeIntervalSince1970, received = exchange.receivedAt.timeIntervalSince1970
            let skew = Double(seconds) + 0.5 - (sent + received) / 2
            let uncertainty = 0.5 + max(0, received - sent) / 2
            if worst.map({ abs(skew) > abs($0.skew) }) ?? true { worst = (skew, uncertainty, exchange.url) }
        }
        let tolerance = tolerance.rounded()
        guard let worst else {
            let message =
                unparsable.map { "The provider's Date header \(DoctorText.quoted($0, limit: 64)) is not an HTTP date (IMF-fixdate)." }
                ?? "The provider's responses carry no Date header."
            return DoctorCheck(
                "clock.skew", .warning, message + " Clock skew was not checked.",
                federate:
                    "Federate allows \(SafeNumber.clampedInt64(tolerance)) s of clock skew for exp, iat, nbf and auth_time (IDTokenPolicy.clockTolerance); keep both clocks synchronised (NTP)."
            )
        }
        // Clamped, so abs(_:) never overflows.
        let seconds = SafeNumber.clampedInt64(max(-NumericDate.maximum, min(NumericDate.maximum, worst.skew.rounded())))
        let direction = seconds >= 0 ? "ahead of" : "behind"
        let details: JSONValue = .object([
            "skew_seconds": .integer(Int64(seconds)), "uncertainty_seconds": .double((worst.uncertainty * 10).rounded() / 10),
            "tolerance_seconds": .integer(Int64(tolerance)), "url": .string(DoctorText.clipped(worst.url, limit: 200)),
        ])
        if abs(worst.skew) - worst.uncertainty > tolerance {
            let effect =
                seconds >= 0
                ? "fresh ID tokens look issued in the future and are refused (iat), and nbf is not yet reached"
                : "ID tokens look older: they are refused as expired (exp) early, and max_age checks see older sign-ins"
            return DoctorCheck(
                "clock.skew", .warning,
                "The provider's clock is about \(abs(seconds)) s \(direction) this machine's (Date header), more than Federate's \(SafeNumber.clampedInt64(tolerance)) s tolerance.",
                federate:
                    "Federate allows \(SafeNumber.clampedInt64(tolerance)) s of clock skew (IDTokenPolicy.clockTolerance); beyond it \(effect). Synchronise this machine's clock (NTP) or raise clockTolerance.",
                details: details)
        }
        return DoctorCheck(
            "clock.skew", .ok,
            "The provider's clock is within about \(max(1, abs(seconds))) s of this machine's (Date header, ±\(SafeNumber.clampedInt64(worst.uncertainty.rounded(.up))) s).",
            federate:
                "Federate allows \(SafeNumber.clampedInt64(tolerance)) s of clock skew for exp, iat, nbf and auth_time (IDTokenPolicy.clockTolerance).",
            details: details)
    }
}
