import Federate
import Foundation

/// Writes the tool's JSON lines to standard output, flushed line by line.
enum CLIOutput {
    /// Writes one JSON value as a line and flushes.
    static func line(_ value: JSONValue) {
        write(JSONSerializer.string(value) + "\n")
    }

    /// Writes raw text and flushes (so a program feeding standard input sees each answer at once).
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
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

    /// Writes a message to standard error.
    static func warn(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

extension FederateError.Code {
    /// The command-line tool met an error that is not a `FederateError` (a bug, or the system): the message names its type.
    static let internalError: Self = "internal_error"
}
