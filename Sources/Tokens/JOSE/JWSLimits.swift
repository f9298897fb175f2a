/// Size and structure limits applied to a compact JWS before any other work.
public struct JWSLimits: Sendable, Hashable {
    /// The longest accepted compact serialization, in bytes. Default 64 KiB.
    package var maxTokenBytes: Int
    /// The deepest JSON nesting accepted in the header and payload. Default 16.
    package var maxJSONDepth: Int

    /// Creates limits.
    public init(maxTokenBytes: Int = 64 * 1024, maxJSONDepth: Int = 16) {
        self.maxTokenBytes = maxTokenBytes
        self.maxJSONDepth = maxJSONDepth
    }

    /// The defaults: 64 KiB, depth 16.
    public static let `default` = JWSLimits()
}
