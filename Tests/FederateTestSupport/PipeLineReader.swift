import Foundation
import Synchronization

/// Reads a pipe line by line, waiting on a thread of its own (see ``BlockingThread``) so
/// Swift concurrency's cooperative threads are never blocked. One reader at a time.
final class PipeLineReader: Sendable {
    private let handle: FileHandle
    private let buffer = Mutex(Data())

    init(_ handle: FileHandle) {
        self.handle = handle
    }

    /// The next line without its newline, or `nil` once the pipe is closed and drained.
    func nextLine() async -> String? {
        await BlockingThread.run { [self] in
            while true {
                let line: String? = buffer.withLock { data in
                    guard let newline = data.firstIndex(of: 0x0A) else { return nil }
                    defer { data.removeSubrange(data.startIndex...newline) }
                    return String(decoding: data[data.startIndex..<newline], as: UTF8.self)
                }
                if let line { return line }
                let chunk = handle.availableData
                if chunk.isEmpty { return nil }
                buffer.withLock { $0.append(chunk) }
            }
        }
    }

    /// Everything not yet returned as a line, up to the end of the pipe.
    func remainder() async -> String {
        await BlockingThread.run { [self] in
            let rest = handle.readDataToEndOfFile()
            let data = buffer.withLock { data in
                defer { data.removeAll() }
                return data + rest
            }
            return String(decoding: data, as: UTF8.self)
        }
    }
}
