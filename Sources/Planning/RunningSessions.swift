import DeviceInterface
import Synchronization

/// Which device holds a running session with which: the planner's view of the session tables, kept up to date from
/// the session events, readable from any thread.
///
/// Every discovery and every session begun is also logged by pair, for the ranging engine, which takes the log once
/// a round (``takeMeetings()``): a pair found by either side joins the pairs the devices know (and read Bluetooth
/// for); a pair that begins its first session gets its slot; a new session on either side (a peer restarting with a
/// new token, a pair repaired after a timeout) starts the pair's estimators and bump detector afresh. Suspensions and
/// their ends are not logged: the same session runs on.
package final class RunningSessions: Sendable {
    private struct State {
        var bits: [UInt64]
        var meetings: [Meeting] = []
        var version: UInt64 = 0
    }

    private let state: Mutex<State>
    package let peers: Int

    package init(peers: Int) {
        self.peers = peers
        state = Mutex(State(bits: [UInt64](repeating: 0, count: (peers * peers + 63) / 64)))
    }

    /// Records that `holder` began a new session with `peer` (running from now).
    package func began(_ holder: Int, _ peer: Int) {
        let i = holder * peers + peer
        let pair = RangingPair(low: Int32(min(holder, peer)), high: Int32(max(holder, peer)))
        state.withLock { s in
            s.meetings.append(Meeting(pair: pair, began: true))
            s.bits[i >> 6] |= 1 << UInt64(i & 63)
            s.version &+= 1
        }
    }

    /// Records that `device` found `peer` (its first announcement heard, or a new life's).
    package func found(_ device: Int, _ peer: Int) {
        let pair = RangingPair(low: Int32(min(device, peer)), high: Int32(max(device, peer)))
        state.withLock { $0.meetings.append(Meeting(pair: pair, began: false)) }
    }

    /// Marks whether `holder`'s session with `peer` is running (suspended, resumed, ended), the same session.
    package func set(_ holder: Int, _ peer: Int, running: Bool) {
        let i = holder * peers + peer
        state.withLock { s in
            let before = s.bits[i >> 6]
            if running { s.bits[i >> 6] |= 1 << UInt64(i & 63) } else { s.bits[i >> 6] &= ~(1 << UInt64(i & 63)) }
            if s.bits[i >> 6] != before { s.version &+= 1 }
        }
    }

    /// A consistent copy of who runs a session with whom, for one round (shared until the next change: copy on
    /// write).
    package func snapshot() -> Snapshot {
        state.withLock { s in Snapshot(bits: s.bits, version: s.version, peers: peers) }
    }

    /// A pair's discovery by one of its devices, or a session one of them began.
    package struct Meeting: Sendable, Equatable {
        package let pair: RangingPair
        /// A session began (otherwise the pair was found).
        package let began: Bool

        package init(pair: RangingPair, began: Bool) {
            self.pair = pair
            self.began = began
        }
    }

    /// The discoveries and sessions begun since the last call, in the order they happened.
    package func takeMeetings() -> [Meeting] {
        state.withLock { s in
            defer { s.meetings.removeAll(keepingCapacity: true) }
            return s.meetings
        }
    }

    /// The sessions at one instant.
    package struct Snapshot: Sendable {
        let bits: [UInt64]
        /// Changes whenever a session begins, stops or runs again: equal versions, equal sessions.
        package let version: UInt64
        package let peers: Int

        /// Whether `holder` has a running session with `peer`.
        @inline(__always)
        package func holds(_ holder: Int, _ peer: Int) -> Bool {
            let bit = holder * peers + peer
            return bits[bit >> 6] & (1 << UInt64(bit & 63)) != 0
        }

        /// Whether the pair ranges: both sides hold a running session with the other.
        @inline(__always)
        package func ranges(_ a: Int, _ b: Int) -> Bool { holds(a, b) && holds(b, a) }

        /// Running sessions in all.
        package var count: Int { bits.reduce(0) { $0 + $1.nonzeroBitCount } }
    }
}
