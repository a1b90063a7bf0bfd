import Synchronization

/// Which device holds a running session with which, and which session it is: the planner's view of the session
/// tables, kept up to date from the session events, readable from any thread.
///
/// A pair's identity is a count of the sessions its two devices have begun with each other: a new session on
/// either side (a peer restarting with a new token, a pair repaired after a timeout) counts one more, a suspension
/// and its end do not. The ranging engine compares it with the identity a pair last ranged under, so that a new
/// session starts with fresh estimators and a fresh bump detector. Kept by pair, in the engine's pair order, so
/// that comparing every pair reads one array front to back.
public final class RunningSessions: Sendable {
    private struct State {
        var bits: [UInt64]
        var generations: [UInt32]
        var version: UInt64 = 0
    }

    private let state: Mutex<State>
    public let peers: Int

    public init(peers: Int) {
        self.peers = peers
        state = Mutex(State(bits: [UInt64](repeating: 0, count: (peers * peers + 63) / 64),
                            generations: [UInt32](repeating: 0, count: peers * (peers - 1) / 2)))
    }

    /// The index of the pair of devices `i` and `j` (either order) among all pairs, in the order (0,1), (0,2) ...
    /// (1,2) ...
    @inline(__always)
    public static func pairIndex(_ i: Int, _ j: Int, peers: Int) -> Int {
        let (low, high) = i < j ? (i, j) : (j, i)
        return low * (2 * peers - low - 1) / 2 + (high - low - 1)
    }

    /// Records that `holder` began a new session with `peer` (running from now).
    public func began(_ holder: Int, _ peer: Int) {
        let i = holder * peers + peer
        let pair = Self.pairIndex(holder, peer, peers: peers)
        state.withLock { s in
            s.generations[pair] &+= 1
            s.bits[i >> 6] |= 1 << UInt64(i & 63)
            s.version &+= 1
        }
    }

    /// Marks whether `holder`'s session with `peer` is running (suspended, resumed, ended), the same session.
    public func set(_ holder: Int, _ peer: Int, running: Bool) {
        let i = holder * peers + peer
        state.withLock { s in
            let before = s.bits[i >> 6]
            if running { s.bits[i >> 6] |= 1 << UInt64(i & 63) } else { s.bits[i >> 6] &= ~(1 << UInt64(i & 63)) }
            if s.bits[i >> 6] != before { s.version &+= 1 }
        }
    }

    /// A consistent copy of who runs a session with whom, for one round (shared until the next change: copy on
    /// write). The identities stay out of it: copied on every change while a group forms, their array (2 MB at
    /// 1,000 peers) made the allocator give memory back and fault it in again.
    public func snapshot() -> Snapshot {
        state.withLock { s in Snapshot(bits: s.bits, version: s.version, peers: peers) }
    }

    /// The identity of the pair of devices `a` and `b`: changes whenever either side begins a new session.
    public func identity(_ a: Int, _ b: Int) -> UInt32 {
        let pair = Self.pairIndex(a, b, peers: peers)
        return state.withLock { $0.generations[pair] }
    }

    /// Brings `known` (an identity per pair, in pair order) up to date, calling `changed` with each pair whose
    /// identity moved: one pass over an array, under the lock.
    public func update(_ known: inout [UInt32], changed: (Int) -> Void) {
        state.withLock { s in
            s.generations.withUnsafeBufferPointer { generations in
                for p in generations.indices where known[p] != generations[p] {
                    known[p] = generations[p]
                    changed(p)
                }
            }
        }
    }

    /// The sessions at one instant.
    public struct Snapshot: Sendable {
        let bits: [UInt64]
        /// Changes whenever a session begins, stops or runs again: equal versions, equal sessions.
        public let version: UInt64
        public let peers: Int

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
