#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard input, line by line, read in 64 KiB blocks with `read(2)`.
///
/// `readLine()` costs about a microsecond per line on long lines; `federate verify` reads
/// one token per line and a raw RSA verification takes 15 µs, so that microsecond shows.
/// `read(2)` returns as soon as some input is there, so interactive use (one line in, one
/// answer out) still answers each line at once.
struct StandardInputLines {
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    /// The next line without its `\n`, or `nil` at the end of input.
    mutating func next() -> String? {
        while true {
            if let newline = nextNewline() {
                let line = String(decoding: buffer[start..<newline], as: UTF8.self)
                start = newline + 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = String(decoding: buffer[start...], as: UTF8.self)
                start = buffer.count
                return line
            }
            fill()
        }
    }

    /// The index of the next `\n` at or after `start` (`memchr`: a byte loop showed in profiles).
    private func nextNewline() -> Int? {
        buffer.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress, start < raw.count else { return nil }
            guard let found = memchr(base + start, 0x0A, raw.count - start) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    /// Drops consumed bytes and reads one more block.
    private mutating func fill() {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        let blockSize = 64 * 1024
        let oldCount = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: blockSize))
        var count = -1
        buffer.withUnsafeMutableBytes { raw in
            let target = raw.baseAddress.map { $0 + oldCount }
            repeat {
                count = read(0, target, blockSize)
            } while count < 0 && errno == EINTR
        }
        buffer.removeLast(blockSize - max(count, 0))
        if count <= 0 { atEnd = true }
    }
}
