/// The identity of a simulated device on the network, stable for its life; random in real runs, derived from the
/// seed in deterministic ones.
public struct PeerID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(_ rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public static func < (lhs: PeerID, rhs: PeerID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// Sixteen hex digits, as traces and logs print it.
    public var description: String {
        let hex = String(rawValue, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Whether this side initiates the pair's exchanges: the lower id does, so both sides agree without talking.
    @inlinable
    public func initiates(with other: PeerID) -> Bool {
        self < other
    }
}

/// One life of a peer: a device that stops and starts again comes back with a higher incarnation, so its new
/// announcements and tokens replace the old ones and late datagrams of the old life are recognised as stale.
public typealias Incarnation = UInt64
