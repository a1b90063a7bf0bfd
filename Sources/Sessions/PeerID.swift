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

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }

    /// The same value as hashing through ``hash(into:)``, and so the same tables in the same order, in one call: a
    /// node looks peers up by id for every datagram it takes (13 million look-ups in a 1,000-peer start), and the
    /// general path made a hasher, fed it and finished it for each, a tenth of the start's work.
    public func _rawHashValue(seed: Int) -> Int {
        rawValue._rawHashValue(seed: seed)
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
