/// Reads a UCI payload's little-endian fields in order; every read past the end is reported, never trapped.
public struct UCIByteReader: Sendable {
    private let bytes: [UInt8]
    public private(set) var offset = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var remaining: Int { bytes.count - offset }

    public mutating func u8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func u16() -> UInt16? {
        guard let b = take(2) else { return nil }
        return UInt16(b[0]) | UInt16(b[1]) << 8
    }

    public mutating func u32() -> UInt32? {
        guard let b = take(4) else { return nil }
        return b.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    public mutating func u64() -> UInt64? {
        guard let b = take(8) else { return nil }
        return b.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    public mutating func take(_ n: Int) -> [UInt8]? {
        guard n >= 0, remaining >= n else { return nil }
        defer { offset += n }
        return Array(bytes[offset..<(offset + n)])
    }

    public mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }
}

/// Builds a UCI payload's little-endian fields in order.
public struct UCIByteWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func u8(_ v: UInt8) { bytes.append(v) }
    public mutating func u16(_ v: UInt16) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    public mutating func i16(_ v: Int16) { u16(UInt16(bitPattern: v)) }
    public mutating func u32(_ v: UInt32) { for k in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * k))) } }
    public mutating func u64(_ v: UInt64) { for k in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * k))) } }
    public mutating func append(_ b: [UInt8]) { bytes += b }
    public mutating func zeros(_ n: Int) { bytes += repeatElement(0, count: n) }
}

/// A MAC address as a session's configuration gives it: 2 bytes (short) or 8 (extended), in the order UCI carries
/// them (little-endian when read as a number).
public struct UCIAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init?(_ bytes: [UInt8]) {
        guard bytes.count == 2 || bytes.count == 8 else { return nil }
        self.bytes = bytes
    }

    /// The address as a little-endian number, as measurements and data packets carry it.
    public var value: UInt64 { bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) } }

    public var isExtended: Bool { bytes.count == 8 }

    /// pica's text form: the bytes in order, two hex digits each, joined by colons ("00:01").
    public var description: String {
        bytes.map { b in
            let s = String(b, radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }.joined(separator: ":")
    }

    /// Parses pica's text form; `nil` unless it is 2 or 8 colon-separated pairs of hex digits.
    public init?(text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var bytes: [UInt8] = []
        for p in parts {
            guard p.count == 2, let b = UInt8(p, radix: 16) else { return nil }
            bytes.append(b)
        }
        self.init(bytes)
    }

    public static func < (a: UCIAddress, b: UCIAddress) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
}
