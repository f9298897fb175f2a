public import Logging
import Synchronization

/// Collects what is logged through a swift-log `Logger`, at every level, with its metadata.
public final class LogCapture: Sendable {
    private let messages = Mutex<[(level: Logger.Level, text: String)]>([])

    /// Creates an empty capture.
    public init() {}

    /// The warnings logged so far.
    public var warnings: [String] { messages.withLock { $0.filter { $0.level == .warning }.map(\.text) } }
    /// Everything logged so far, at any level, with its metadata.
    public var everything: [String] { messages.withLock { $0.map(\.text) } }

    /// A logger writing into this capture, at `trace` level.
    public var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            let error = event.error.map { " error: \($0)" } ?? ""
            capture.messages.withLock {
                $0.append((event.level, "\(event.message) \(merged) \(event.source) \(event.function)\(error)"))
            }
        }
    }
}
