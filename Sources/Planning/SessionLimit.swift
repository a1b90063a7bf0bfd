import DeviceInterface
/// A device's limit of active ranging sessions (``Medium/sessionsPerDevice``): each device keeps at most `limit` of
/// its running sessions active; the others are suspended, and the app is told (`suspended`), and told again when one
/// runs again (`suspensionEnded`). A pair ranges only while both sides keep it active.
///
/// Suspension rather than refusal (`activeSessionsLimitExceeded`): a refused session is gone, and its peer's token
/// with it, so a device could never come back to a peer once it had more peers than sessions; a suspended one keeps
/// its token and runs again when a place frees, which is what lets a policy turn its few sessions to the peers that
/// matter. Android stops its lowest-priority session in the same spirit.
package struct SessionLimit {
    package let limit: Int
    private let peers: Int
    /// Bit `device × peers + peer`: the device keeps its session with the peer active.
    private var active: [UInt64]
    /// Bit `device × peers + peer`: the device's app was told its session with the peer is suspended.
    private var told: [UInt64]
    private var counts: [Int]
    private var candidates: [(peer: Int, score: Double)] = []

    package init(limit: Int, peers: Int) {
        self.limit = limit
        self.peers = peers
        active = [UInt64](repeating: 0, count: (peers * peers + 63) / 64)
        told = active
        counts = [Int](repeating: 0, count: peers)
    }

    @inline(__always)
    private static func bit(_ bits: [UInt64], _ i: Int) -> Bool { bits[i >> 6] & (1 << UInt64(i & 63)) != 0 }

    @inline(__always)
    private static func set(_ bits: inout [UInt64], _ i: Int, _ value: Bool) {
        if value { bits[i >> 6] |= 1 << UInt64(i & 63) } else { bits[i >> 6] &= ~(1 << UInt64(i & 63)) }
    }

    /// Whether device `device` keeps its session with `peer` active.
    @inline(__always)
    package func isActive(_ device: Int, _ peer: Int) -> Bool { Self.bit(active, device * peers + peer) }

    /// Whether the pair ranges as far as the limit goes: both sides keep the session active.
    @inline(__always)
    package func allows(_ a: Int, _ b: Int) -> Bool { isActive(a, b) && isActive(b, a) }

    /// Active sessions of `device`.
    package func activeCount(_ device: Int) -> Int { counts[device] }

    /// Brings the active sets up to date with `sessions`, appending what each app must be told to `changes`.
    ///
    /// - Parameter score: without it, first come first kept: a device keeps its active sessions while they run and
    ///   fills free places in peer order. With it, each device keeps the `limit` running sessions of highest score,
    ///   an active one counted a quarter higher so that close scores do not make sessions flap.
    package mutating func update(
        _ sessions: RunningSessions.Snapshot, score: ((_ device: Int, _ peer: Int) -> Double)? = nil,
        into changes: inout [SuspensionChange]
    ) {
        for d in 0..<peers {
            let row = d * peers
            // Sessions that ended (or that the peer's side suspended) leave the active set without a word: the
            // app heard of them from the session table.
            for e in 0..<peers where e != d && isActive(d, e) && !sessions.holds(d, e) {
                Self.set(&active, row + e, false)
                counts[d] -= 1
            }
            if let score {
                candidates.removeAll(keepingCapacity: true)
                for e in 0..<peers where e != d && sessions.holds(d, e) {
                    candidates.append((e, score(d, e) * (isActive(d, e) ? 1.25 : 1)))
                }
                if candidates.count > limit {
                    candidates.sort { $0.score != $1.score ? $0.score > $1.score : $0.peer < $1.peer }
                }
                for (k, c) in candidates.enumerated() {
                    let keep = k < limit
                    if keep != isActive(d, c.peer) {
                        Self.set(&active, row + c.peer, keep)
                        counts[d] += keep ? 1 : -1
                    }
                }
            } else {
                for e in 0..<peers where counts[d] < limit && e != d && sessions.holds(d, e) && !isActive(d, e) {
                    Self.set(&active, row + e, true)
                    counts[d] += 1
                }
            }
            for e in 0..<peers where e != d {
                let held = sessions.holds(d, e)
                let suspended = held && !isActive(d, e)
                if suspended != Self.bit(told, row + e) {
                    Self.set(&told, row + e, suspended)
                    // A session that ended while suspended needs no word of its end here.
                    if held || suspended { changes.append(SuspensionChange(device: d, peer: e, suspended: suspended)) }
                }
            }
        }
    }
}

/// The pairs a planner may range, in pair order: both sides hold a running session with the other and, under a
/// device limit, both keep it active. Rebuilt when the sessions change, or when the caller asks (a limit that
/// re-ranks its sessions); the suspensions the limit decides go to the plan.
struct AdmittedPairs {
    private(set) var limit: SessionLimit?
    private(set) var pairs: [Int32] = []
    private var builtFor: UInt64?

    init(medium: Medium, peers: Int) {
        limit = medium.sessionsPerDevice.map { SessionLimit(limit: $0, peers: peers) }
    }

    /// Brings the pairs up to date with `context`'s sessions.
    ///
    /// - Parameters:
    ///   - rerank: rebuild even if no session changed (the limit's scores moved).
    ///   - score: how the limit ranks a device's sessions (``SessionLimit/update(_:score:into:)``).
    /// - Returns: whether the pairs were rebuilt.
    @discardableResult
    mutating func refresh(
        _ context: PlanningContext, rerank: Bool = false, score: ((_ device: Int, _ peer: Int) -> Double)? = nil,
        into changes: inout [SuspensionChange]
    ) -> Bool {
        guard builtFor != context.sessions.version || rerank else { return false }
        builtFor = context.sessions.version
        limit?.update(context.sessions, score: score, into: &changes)
        pairs.removeAll(keepingCapacity: true)
        context.forEachRunningPair { p, pair in
            if limit?.allows(Int(pair.low), Int(pair.high)) ?? true { pairs.append(Int32(p)) }
        }
        return true
    }
}
