/// Reads a UCI payload's little-endian fields in order; every read past the end is reported, never trapped.
package struct UCIByteReader: Sendable {
    private let bytes: [UInt8]
    package private(set) var offset = 0

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package var remaining: Int { bytes.count - offset }

    package mutating func u8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func u16() -> UInt16? {
        guard let b = take(2) else { return nil }
        return UInt16(b[0]) | UInt16(b[1]) << 8
    }

    package mutating func u32() -> UInt32? {
        guard let b = take(4) else { return nil }
        return b.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    package mutating func u64() -> UInt64? {
        guard let b = take(8) else { return nil }
        return b.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    package mutating func take(_ n: Int) -> [UInt8]? {
        guard n >= 0, remaining >= n else { return nil }
        defer { offset += n }
        return Array(bytes[offset..<(offset + n)])
    }

    package mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }
}

/// Builds a UCI payload's little-endian fields in order.
package struct UCIByteWriter: Sendable {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    package mutating func u8(_ v: UInt8) { bytes.append(v) }
    package mutating func u16(_ v: UInt16) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    package mutating func i16(_ v: Int16) { u16(UInt16(bitPattern: v)) }
    package mutating func u32(_ v: UInt32) { for k in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * k))) } }
    package mutating func u64(_ v: UInt64) { for k in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * k))) } }
    package mutating func append(_ b: [UInt8]) { bytes += b }
    package mutating func zeros(_ n: Int) { bytes += repeatElement(0, count: n) }
}

/// A MAC address as a session's configuration gives it: 2 bytes (short) or 8 (extended), in the order UCI carries
/// them (little-endian when read as a number).
package struct UCIAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    package let bytes: [UInt8]

    package init?(_ bytes: [UInt8]) {
        guard bytes.count == 2 || bytes.count == 8 else { return nil }
        self.bytes = bytes
    }

    private init(checked bytes: [UInt8]) { self.bytes = bytes }

    /// The address in a field of `length` bytes: cut, or padded with zeros (a short address in an extended field).
    package func bytes(padded length: Int) -> [UInt8] {
        bytes.count == length ? bytes : Array((bytes + [UInt8](repeating: 0, count: 8)).prefix(length))
    }

    /// A short address, its bytes big-endian as pica writes a number ("00:01" for 1).
    package static func short(_ n: UInt16) -> UCIAddress { UCIAddress(checked: [UInt8(n >> 8), UInt8(n & 0xFF)]) }

    /// Zeros: a short address for a `length` under 8, else an extended one.
    package static func zero(_ length: Int) -> UCIAddress {
        UCIAddress(checked: [UInt8](repeating: 0, count: length < 8 ? 2 : 8))
    }

    /// The address as a little-endian number, as measurements and data packets carry it.
    package var value: UInt64 { bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) } }

    package var isExtended: Bool { bytes.count == 8 }

    /// pica's text form: the bytes in order, two hex digits each, joined by colons ("00:01").
    package var description: String {
        bytes.map { b in
            let s = String(b, radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }.joined(separator: ":")
    }

    /// Parses pica's text form; `nil` unless it is 2 or 8 colon-separated pairs of hex digits.
    package init?(text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var bytes: [UInt8] = []
        for p in parts {
            guard p.count == 2, let b = UInt8(p, radix: 16) else { return nil }
            bytes.append(b)
        }
        self.init(bytes)
    }

    package static func < (a: UCIAddress, b: UCIAddress) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
}
