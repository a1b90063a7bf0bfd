import Synchronization

/// Which device holds a running session with which: the ranging scheduler's view of the session tables, kept
/// up to date from the session events, readable from any thread.
public final class SessionMatrix: Sendable {
    private let bits: Mutex<[UInt64]>
    public let peers: Int
    private let words: Int

    public init(peers: Int) {
        self.peers = peers
        words = (peers * peers + 63) / 64
        bits = Mutex([UInt64](repeating: 0, count: words))
    }

    /// Marks whether `holder` has a running session with `peer`.
    public func set(_ holder: Int, _ peer: Int, running: Bool) {
        let bit = holder * peers + peer
        bits.withLock { b in
            if running { b[bit >> 6] |= 1 << UInt64(bit & 63) } else { b[bit >> 6] &= ~(1 << UInt64(bit & 63)) }
        }
    }

    /// A consistent copy, for one round.
    public func snapshot() -> Snapshot {
        Snapshot(bits: bits.withLock { $0 }, peers: peers)
    }

    /// The matrix at one instant.
    public struct Snapshot: Sendable {
        let bits: [UInt64]
        let peers: Int

        /// Whether `holder` has a running session with `peer`.
        @inline(__always)
        public func holds(_ holder: Int, _ peer: Int) -> Bool {
            let bit = holder * peers + peer
            return bits[bit >> 6] & (1 << UInt64(bit & 63)) != 0
        }

        /// Whether the pair ranges: both sides hold a running session with the other.
        @inline(__always)
        public func ranges(_ a: Int, _ b: Int) -> Bool { holds(a, b) && holds(b, a) }

        /// Running sessions in all.
        public var count: Int { bits.reduce(0) { $0 + $1.nonzeroBitCount } }
    }
}
