import Federate
import Foundation

/// Writes the tool's output, flushed line by line. Every print site of the tool goes through
/// here, so nothing a provider sent reaches the terminal raw: text lines pass through
/// `TerminalText.sanitized(_:maxBytes:)` (control characters and bidirectional overrides
/// replaced, each line bounded), and in JSON lines the same characters are written as `\u`
/// escapes, so the data stays exact.
enum CLIOutput {
    /// The most bytes of one text line (an authorization URL with a request object fits).
    static let maximumLineBytes = 16_384

    /// Writes one JSON value as a line and flushes.
    static func line(_ value: JSONValue) {
        let json = escapingUnsafeCharacters(JSONSerializer.string(value))
        FileHandle.standardOutput.write(Data((json + "\n").utf8))
    }

    /// Writes text and flushes (so a program feeding standard input sees each answer at once),
    /// each line made safe for a terminal.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(safeLines(text).utf8))
    }

    /// `text` line by line through `TerminalText.sanitized(_:maxBytes:)`, the line breaks kept.
    static func safeLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { TerminalText.sanitized(String($0), maxBytes: maximumLineBytes) }
            .joined(separator: "\n")
    }

    /// Serialized JSON with every character `TerminalText.isUnsafe(_:)` refuses written as a
    /// `\u` escape (the serializer already escapes C0 controls; this adds DEL, C1 and the
    /// bidirectional controls, which can only occur inside strings).
    static func escapingUnsafeCharacters(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: TerminalText.isUnsafe) else { return json }
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if TerminalText.isUnsafe(scalar) {
                let hex = String(scalar.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// The `{"error": CODE, "message": ...}` object for a setup failure.
    static func errorObject(_ error: any Error) -> JSONValue {
        let federateError = asFederateError(error)
        return ["error": .string(federateError.code.rawValue), "message": .string(federateError.message)]
    }

    /// Any error as a FederateError (foreign errors become `internal_error`).
    static func asFederateError(_ error: any Error) -> FederateError {
        if let error = error as? FederateError { return error }
        return FederateError(.internalError, String(describing: type(of: error)))
    }

    /// Writes a message to standard error, made safe for a terminal.
    static func warn(_ text: String) {
        FileHandle.standardError.write(Data((safeLines(text) + "\n").utf8))
    }
}

extension FederateError.Code {
    /// The command-line tool met an error that is not a `FederateError` (a bug, or the system): the message names its type.
    static let internalError: Self = "internal_error"
}
