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
/// The payload is kept as bytes: a JWS may sign anything. ``JWTVerifier`` requires it to
/// be a JSON object.
public struct CompactJWS: Sendable {
    /// The decoded protected header.
    public let header: JOSEHeader
    /// The decoded payload bytes.
    public let payload: [UInt8]
    /// The decoded signature bytes.
    public let signature: [UInt8]
    /// The ASCII bytes that were signed: `BASE64URL(header) || '.' || BASE64URL(payload)`.
    public let signingInput: [UInt8]

    /// Parses a compact serialization. Throws ``FederateError`` with code
    /// ``FederateError/Code/tokenTooLarge``, ``FederateError/Code/malformedToken`` or
    /// ``FederateError/Code/unsupportedCriticalHeader``.
    public init(parsing token: String, limits: JWSLimits = .default) throws(FederateError) {
        try self.init(parsing: token, limits: limits, headers: nil)
    }

    /// Parses a compact serialization, taking its header from `headers` when that segment was
    /// parsed before under the same limits (a verifier's cache).
    init(parsing token: String, limits: JWSLimits, headers: JOSEHeaderCache?) throws(FederateError) {
        var token = token
        let utf8Count = token.utf8.count
        guard utf8Count <= limits.maxTokenBytes else {
            throw FederateError(.tokenTooLarge, "token is \(utf8Count) bytes; the limit is \(limits.maxTokenBytes)")
        }
        let parsed: Result<CompactJWS, FederateError> = token.withUTF8 { bytes in
            do throws(FederateError) {
                return .success(try CompactJWS(bytes: bytes, limits: limits, headers: headers))
            } catch {
                return .failure(error)
            }
        }
        // Taken apart, not `get()`: that copied (retained and released) every field.
        switch consume parsed {
        case .success(let jws): self = jws
        case .failure(let error): throw error
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, limits: JWSLimits, headers: JOSEHeaderCache?) throws(FederateError) {
        // memchr: a byte loop over the whole token showed in profiles of the verification path.
        func dot(after start: Int) -> Int? {
            guard let base = bytes.baseAddress, start < bytes.count,
                let found = memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start)
            else { return nil }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
        }
        guard let firstDot = dot(after: 0), let secondDot = dot(after: firstDot + 1), dot(after: secondDot + 1) == nil,
            firstDot > 0
        else {
            throw FederateError(.malformedToken, "a compact JWS has exactly three segments")
        }
        guard secondDot + 1 < bytes.count else {
            throw FederateError(.malformedToken, "the signature segment is empty (unsigned tokens are never accepted)")
        }
        let headerPart = UnsafeBufferPointer(rebasing: bytes[0..<firstDot])
        let payloadPart = UnsafeBufferPointer(rebasing: bytes[(firstDot + 1)..<secondDot])
        let signaturePart = UnsafeBufferPointer(rebasing: bytes[(secondDot + 1)...])

        guard let payload = Base64URL.decode(bytes: payloadPart) else {
            throw FederateError(.malformedToken, "the payload is not canonical base64url")
        }
        guard let signature = Base64URL.decode(bytes: signaturePart) else {
            throw FederateError(.malformedToken, "the signature is not canonical base64url")
        }
        if let headers {
            self.header = try headers.header(for: headerPart, limits: limits) { () throws(FederateError) in try Self.header(headerPart, limits: limits) }
        } else {
            self.header = try Self.header(headerPart, limits: limits)
        }
        self.payload = payload
        self.signature = signature
        self.signingInput = Array(UnsafeBufferPointer(rebasing: bytes[0..<secondDot]))
    }

    /// Decodes and parses the header segment: canonical base64url of a JSON object, `crit` refused.
    private static func header(_ segment: UnsafeBufferPointer<UInt8>, limits: JWSLimits) throws(FederateError) -> JOSEHeader {
        guard let headerBytes = Base64URL.decode(bytes: segment) else {
            throw FederateError(.malformedToken, "the header is not canonical base64url")
        }
        let headerMembers: [String: JSONValue]
        do {
            headerMembers = try JSONParser(limits: .init(maxBytes: limits.maxTokenBytes, maxDepth: limits.maxJSONDepth)).parseObject(headerBytes)
        } catch {
            throw FederateError(.malformedToken, "the header is not a JSON object (\(error))")
        }
        return try JOSEHeader(members: headerMembers)
    }
}
