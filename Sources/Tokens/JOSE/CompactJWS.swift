#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A parsed, not yet verified, compact JWS (RFC 7515 §7.1): `header.payload.signature`.
///
/// Parsing is strict and bounded: exactly three segments of canonical unpadded base64url,
/// a header that is a JSON object with a string `alg`, `crit` refused unless understood,
/// and the size limit checked before anything is decoded.
///
/// A token is parsed once: the verifiers keep this value from the first read to the verdict
/// (the signature, a refetch of the keys, the payload's validation), and the verified token
/// keeps the decoded payload (``VerifiedJWT/claims``). The payload is kept as bytes: a JWS may
/// sign anything; ``JWTVerifier`` requires it to be a JSON object.
package struct CompactJWS: Sendable {
    /// The decoded protected header.
    package let header: JOSEHeader
    /// The token, its UTF-8 contiguous.
    let token: String
    /// Where the token's two dots are.
    let segments: Segments
    /// The decoded payload followed by the decoded signature, in one buffer.
    let body: [UInt8]
    /// How many bytes of ``body`` are the payload.
    let payloadCount: Int
    /// The limits it was parsed under.
    let limits: JWSLimits
    /// The payload's claims, when a caller read them before the signature was checked
    /// (``readUnverifiedClaims()``): the verifier then does not validate the payload again.
    private(set) var unverifiedClaims: JSONMembers?
    /// Whether ``header`` was read before this parse (a verifier's cache, or the router): then
    /// the verifier does not remember it again.
    let headerWasRemembered: Bool

    /// The decoded payload bytes.
    package var payload: [UInt8] { Array(body[..<payloadCount]) }
    /// The decoded signature bytes.
    package var signature: [UInt8] { Array(body[payloadCount...]) }
    /// The ASCII bytes that were signed: `BASE64URL(header) || '.' || BASE64URL(payload)`.
    package var signingInput: [UInt8] { Array(token.utf8.prefix(segments.secondDot)) }

    /// Parses a compact serialization. Throws ``FederateError`` with code
    /// ``FederateError/Code/tokenTooLarge``, ``FederateError/Code/malformedToken`` or
    /// ``FederateError/Code/unsupportedCriticalHeader``.
    package init(parsing token: String, limits: JWSLimits = .default) throws(FederateError) {
        try self.init(parsing: token, limits: limits, headers: nil)
    }

    /// Where the dots of a compact serialization are.
    struct Segments: Sendable {
        /// The first dot: the header segment's length.
        let firstDot: Int
        /// The second dot: the signing input's length.
        let secondDot: Int

        /// The dots of `bytes`, when it has exactly three segments.
        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            // memchr: a byte loop over the whole token showed in profiles of the verification path.
            func dot(after start: Int) -> Int? {
                guard let base = bytes.baseAddress, start < bytes.count,
                    let found = memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start)
                else { return nil }
                return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
            }
            guard let firstDot = dot(after: 0), let secondDot = dot(after: firstDot + 1), dot(after: secondDot + 1) == nil else {
                return nil
            }
            self.firstDot = firstDot
            self.secondDot = secondDot
        }
    }

    /// Parses a compact serialization, looking its header up in `headers` (a verifier's cache).
    init(parsing token: String, limits: JWSLimits, headers: JOSEHeaderCache?) throws(FederateError) {
        var token = token
        token.makeContiguousUTF8()
        let utf8Count = token.utf8.count
        guard utf8Count <= limits.maxTokenBytes else {
            throw FederateError(.tokenTooLarge, "token is \(utf8Count) bytes; the limit is \(limits.maxTokenBytes)")
        }
        let parsed = token.utf8.withContiguousStorageIfAvailable { bytes in
            Result { () throws(FederateError) in try Self.parse(bytes, limits: limits, headers: headers) }
        }
        guard let parsed else { throw FederateError(.malformedToken, "the token is not contiguous UTF-8") }
        // Taken apart, not `get()`: that copied (retained and released) every field.
        switch consume parsed {
        case .success(let parts):
            self.header = parts.header
            self.segments = parts.segments
            self.body = parts.body
            self.payloadCount = parts.payloadCount
            self.headerWasRemembered = parts.remembered
        case .failure(let error):
            throw error
        }
        self.token = token
        self.limits = limits
    }

    private struct Parts {
        let header: JOSEHeader
        let segments: Segments
        let body: [UInt8]
        let payloadCount: Int
        let remembered: Bool
    }

    private static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, limits: JWSLimits, headers: JOSEHeaderCache?
    ) throws(FederateError) -> Parts {
        guard let segments = Segments(bytes), segments.firstDot > 0 else {
            throw FederateError(.malformedToken, "a compact JWS has exactly three segments")
        }
        guard segments.secondDot + 1 < bytes.count else {
            throw FederateError(.malformedToken, "the signature segment is empty (unsigned tokens are never accepted)")
        }
        let payloadPart = UnsafeBufferPointer(rebasing: bytes[(segments.firstDot + 1)..<segments.secondDot])
        let signaturePart = UnsafeBufferPointer(rebasing: bytes[(segments.secondDot + 1)...])
        guard let payloadCount = Base64URL.decodedCount(payloadPart.count) else {
            throw FederateError(.malformedToken, "the payload is not canonical base64url")
        }
        guard let signatureCount = Base64URL.decodedCount(signaturePart.count) else {
            throw FederateError(.malformedToken, "the signature is not canonical base64url")
        }
        var payloadValid = false
        var signatureValid = false
        let body = [UInt8](unsafeUninitializedCapacity: payloadCount + signatureCount) { buffer, initialized in
            if let base = buffer.baseAddress {
                payloadValid = Base64URL.decode(payloadPart, into: base)
                signatureValid = payloadValid && Base64URL.decode(signaturePart, into: base + payloadCount)
            }
            initialized = payloadCount + signatureCount
        }
        guard payloadValid else { throw FederateError(.malformedToken, "the payload is not canonical base64url") }
        guard signatureValid else { throw FederateError(.malformedToken, "the signature is not canonical base64url") }

        let headerPart = UnsafeBufferPointer(rebasing: bytes[0..<segments.firstDot])
        let header: JOSEHeader
        let remembered: Bool
        // A header the verifier remembers is not parsed again; it is held to this verifier's
        // nesting limit.
        if let known = headers?.header(for: headerPart) {
            guard known.members.depth <= limits.maxJSONDepth else {
                throw FederateError(.malformedToken, "the header is not a JSON object (\(JSONParser.Error.tooDeep))")
            }
            header = known
            remembered = true
        } else {
            header = try JOSEHeader(segment: headerPart, limits: limits)
            remembered = false
        }
        return Parts(header: header, segments: segments, body: body, payloadCount: payloadCount, remembered: remembered)
    }

    /// A token's segments and header, read before the rest of it: ``CallerTokenRouter`` reads
    /// them to route the token on its `typ`.
    struct HeaderRead: Sendable {
        let segments: Segments
        /// The header, or why the header rules refused it (a JSON object nonetheless).
        let header: Result<JOSEHeader, FederateError>
        /// The header's `typ` when it is a string.
        let type: String?

        /// Reads the segments and header of `token` (contiguous UTF-8): `nil` when it does not
        /// have three segments or its header is not a JSON object within `limits`
        /// (`maxHeaderBytes` of base64url). A header in `headers` is not parsed again.
        init?(_ token: String, maxHeaderBytes: Int, limits: JSONParser.Limits, headers: JOSEHeaderCache) {
            let read = token.utf8.withContiguousStorageIfAvailable { bytes -> HeaderRead? in
                guard let segments = Segments(bytes), segments.firstDot <= maxHeaderBytes else { return nil }
                let segment = UnsafeBufferPointer(rebasing: bytes[..<segments.firstDot])
                if let known = headers.header(for: segment) {
                    return HeaderRead(segments: segments, header: .success(known), type: known.type, remembered: true)
                }
                guard let members = try? JOSEHeader.members(segment: segment, limits: limits) else { return nil }
                let typ = members.member(.typ)
                return HeaderRead(
                    segments: segments, header: Result { () throws(FederateError) in try JOSEHeader(validated: members) },
                    type: typ.flatMap { $0.kind == .string ? members.string($0) : nil }, remembered: false)
            }
            guard let read = read ?? nil else { return nil }
            self = read
        }

        /// Whether the header came from the reader's cache.
        let remembered: Bool

        private init(segments: Segments, header: Result<JOSEHeader, FederateError>, type: String?, remembered: Bool) {
            self.segments = segments
            self.header = header
            self.type = type
            self.remembered = remembered
        }
    }

    // MARK: - Reading the parts in place

    /// Calls `body` with the signing input, read in the token.
    func withSigningInput<Value>(_ body: (UnsafeRawBufferPointer) -> Value) -> Value {
        withTokenBytes { body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer($0)[..<segments.secondDot])) }
    }

    /// Calls `body` with the header segment (base64url), read in the token.
    func withHeaderSegment<Value, Failure: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Value) throws(Failure) -> Value {
        try withTokenBytes { (bytes) throws(Failure) in try body(UnsafeBufferPointer(rebasing: bytes[..<segments.firstDot])) }
    }

    /// Calls `body` with the token's UTF-8 bytes, in place (the token was made contiguous when parsed).
    private func withTokenBytes<Value, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        let outcome = token.utf8.withContiguousStorageIfAvailable { bytes in
            Swift.Result { () throws(Failure) in try body(bytes) }
        }
        if let outcome { return try outcome.get() }
        return try Array(token.utf8).withUnsafeBufferPointer(body)
    }

    /// Calls `body` with the decoded signature.
    func withSignature<Value>(_ body: (UnsafeRawBufferPointer) -> Value) -> Value {
        self.body.withUnsafeBytes { bytes in body(UnsafeRawBufferPointer(rebasing: bytes[payloadCount...])) }
    }

    /// The payload's claims, validated under the parse's limits but **not verified**: for a
    /// caller that must read a claim (the client's `iss` in a client assertion) to choose the
    /// keys that verify the token. The verifier reuses them.
    package mutating func readUnverifiedClaims() throws(FederateError) -> JSONMembers {
        if let unverifiedClaims { return unverifiedClaims }
        let claims = try self.claims(limits: limits)
        unverifiedClaims = claims
        return claims
    }

    /// Whether this parse meets `limits` too (a token parsed by its caller, then verified).
    func check(_ limits: JWSLimits) throws(FederateError) {
        let size = token.utf8.count
        guard size <= limits.maxTokenBytes else {
            throw FederateError(.tokenTooLarge, "token is \(size) bytes; the limit is \(limits.maxTokenBytes)")
        }
        guard header.members.depth <= limits.maxJSONDepth else {
            throw FederateError(.malformedToken, "the header is not a JSON object (\(JSONParser.Error.tooDeep))")
        }
    }

    /// The payload validated as a JSON object under `limits`: the claims of the token once
    /// its signature verified. ``FederateError/Code/malformedToken`` when it is not one.
    func claims(limits: JWSLimits) throws(FederateError) -> JSONMembers {
        if let unverifiedClaims {
            guard unverifiedClaims.depth <= limits.maxJSONDepth else {
                throw FederateError(.malformedToken, "the payload is not a JSON object (\(JSONParser.Error.tooDeep))")
            }
            return unverifiedClaims
        }
        do {
            return try payloadObject(limits: limits)
        } catch {
            throw FederateError(.malformedToken, "the payload is not a JSON object (\(error))")
        }
    }

    /// The payload validated as a JSON object under `limits`.
    func payloadObject(limits: JWSLimits) throws(JSONParser.Error) -> JSONMembers {
        try JSONMembers(validating: body, count: payloadCount, limits: limits.json)
    }
}
