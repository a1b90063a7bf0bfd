/// A session's discovery token: 128 random bits, fresh for every session, meaningless without the session it came
/// from. A peer routes everything about a session by it.
public struct DiscoveryToken: Sendable, Hashable, CustomStringConvertible {
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The 16 bytes, big-endian, as the wire carries them.
    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    /// The token from 16 big-endian bytes; `nil` for any other length.
    public init?<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        guard bytes.count == 16 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (i, byte) in bytes.enumerated() {
            if i < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }

    /// The first 8 hex digits: enough to tell tokens apart in a trace.
    public var description: String {
        let hex = String(high >> 32, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}

/// Where fresh tokens come from: the system generator in real runs, a seeded one in deterministic runs.
public protocol TokenSource {
    /// A fresh token.
    mutating func nextToken() -> DiscoveryToken
}

/// Tokens from the operating system's cryptographic generator.
public struct SystemTokenSource: TokenSource, Sendable {
    public init() {}

    public mutating func nextToken() -> DiscoveryToken {
        var generator = SystemRandomNumberGenerator()
        return DiscoveryToken(high: generator.next(), low: generator.next())
    }
}
