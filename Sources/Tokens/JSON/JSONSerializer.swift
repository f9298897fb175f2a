/// Writes ``JSONValue``s as compact JSON text with sorted object keys (deterministic output).
package enum JSONSerializer {
    /// Serializes a value to JSON text.
    package static func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// Serializes a value to UTF-8 bytes.
    package static func bytes(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        write(value, to: &out)
        return out
    }

    private static func write(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .integer(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d):
            // JSON has no NaN or infinity (RFC 8259 §6): such a value is written as null.
            if !d.isFinite {
                out.append(contentsOf: "null".utf8)
            } else if let i = Int64(exactly: d) {
                out.append(contentsOf: String(i).utf8)
            } else {
                out.append(contentsOf: "\(d)".utf8)
            }
        case .string(let s): writeString(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(e, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, key) in members.keys.sorted().enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                write(members[key] ?? .null, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A string literal: `"` and `\` escaped, control characters as `\n`, `\r`, `\t` or
    /// `\u00XX`, everything else (multi-byte UTF-8 included) copied byte for byte.
    private static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): escaped(byte, to: &out)
            case UInt8(ascii: "\n"): escaped(UInt8(ascii: "n"), to: &out)
            case UInt8(ascii: "\r"): escaped(UInt8(ascii: "r"), to: &out)
            case UInt8(ascii: "\t"): escaped(UInt8(ascii: "t"), to: &out)
            case 0..<0x20:
                escaped(UInt8(ascii: "u"), to: &out)
                out.append(UInt8(ascii: "0"))
                out.append(UInt8(ascii: "0"))
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0x0f))
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func escaped(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\\"))
        out.append(byte)
    }

    /// A lowercase hexadecimal digit of `nibble` (0–15).
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
