/// The identity of one random stream inside a run: a kind and up to two numbers (a device id, or a pair's ids).
///
/// Streams are derived from the run seed and this identity alone, never from creation order, so that a pair's draws
/// are the same whichever worker runs it and however many pairs exist.
package struct StreamIdentity: Sendable, Hashable {
    /// What the stream is for, so that a device stream and a pair stream with the same numbers differ.
    package enum Kind: UInt64, Sendable {
        case device = 1
        case pair = 2
        case session = 3
        case scenario = 4
        case probe = 5
        case network = 6
        case discovery = 7
        case token = 8
        case planner = 9
        case sensors = 10
        case clock = 11
        /// The Bluetooth readings of one pair (its two device indices, lower first).
        case bluetooth = 12
    }

    package let kind: Kind
    package let first: UInt64
    package let second: UInt64

    /// The stream of one device.
    package static func device(_ id: UInt64) -> StreamIdentity {
        StreamIdentity(kind: .device, first: id, second: 0)
    }

    /// The stream of an unordered pair; `pair(a, b)` and `pair(b, a)` are the same stream.
    package static func pair(_ a: UInt64, _ b: UInt64) -> StreamIdentity {
        StreamIdentity(kind: .pair, first: min(a, b), second: max(a, b))
    }

    /// Any other stream, named by kind and numbers.
    package init(kind: Kind, first: UInt64, second: UInt64) {
        self.kind = kind
        self.first = first
        self.second = second
    }

    /// Mixes the run seed and the identity with SplitMix64's finaliser, which spreads nearby inputs over the
    /// whole 64-bit range, so consecutive ids do not give correlated GSL seeds.
    package func derivedSeed(from runSeed: UInt64) -> UInt64 {
        var x = Self.mix(runSeed &+ 0x9E37_79B9_7F4A_7C15)
        x = Self.mix(x ^ kind.rawValue)
        x = Self.mix(x ^ first)
        x = Self.mix(x ^ second)
        return x
    }

    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
