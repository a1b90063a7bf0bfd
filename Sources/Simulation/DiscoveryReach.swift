import Geometry
import Planning
import SimulatedNetwork

/// How far discovery's radio reaches in memory (``SimulationSettings/discoveryRange``, placed every round at the
/// devices' positions; none over UDP or with no limit), and how discovery fares within it: whether it has been
/// bounded (a pair out of reach, or a device with more peers within reach than it may hold) at a whole second before
/// it converged, and the first whole second at which every device held a running session with each peer within
/// reach, or as many as it may hold.
struct DiscoveryReach {
    /// What discovery can and does hold at the devices' positions as last placed.
    struct Count {
        /// The pairs within reach, and the running sessions they hold.
        let pairs: Int
        let sessions: Int
        /// The most the devices could hold there: each its peers within reach, up to its limit.
        let fillable: Int
        /// Whether every device holds that many.
        let filled: Bool
        /// Whether the reach or the limit bounds what a device may hold at all.
        let bounded: Bool
    }

    let peers: Int
    let maximumSessions: Int
    private(set) var reach: RadioReach?
    private(set) var limited = false
    private(set) var convergedAt: Double?
    private var lastCount = -Double.infinity

    init(peers: Int, maximumSessions: Int) {
        self.peers = peers
        self.maximumSessions = maximumSessions
    }

    /// Gives discovery a radio of `range` metres on `network`.
    mutating func limit(to range: Double, on network: InMemoryNetwork) {
        let reach = RadioReach(range: range)
        network.reach = reach
        self.reach = reach
    }

    /// Tells discovery's radio where the devices stand and, once a second until discovery has converged, checks
    /// whether it has.
    mutating func place(_ poses: [Pose], sessions: RunningSessions.Snapshot, at time: Double) {
        if let reach {
            var coordinates: [Double] = []
            coordinates.reserveCapacity(3 * poses.count)
            for pose in poses { coordinates += [pose.position.x, pose.position.y, pose.position.z] }
            reach.place(coordinates)
        }
        // Once a second: at a thousand peers the count reads half a million pairs.
        guard convergedAt == nil, time - lastCount >= 1 - 1e-9 else { return }
        lastCount = time
        let count = self.count(sessions)
        if count.bounded { limited = true }
        if count.filled { convergedAt = time }
    }

    /// What discovery can and does hold at the devices' positions as last placed.
    func count(_ sessions: RunningSessions.Snapshot) -> Count {
        let cap = maximumSessions
        var within = [Int](repeating: 0, count: peers), held = within
        var pairs = 0
        for a in 0..<peers {
            for b in (a + 1)..<peers where reach?.reaches(a, b) ?? true {
                pairs += 1
                within[a] += 1
                within[b] += 1
                if sessions.holds(a, b) { held[a] += 1 }
                if sessions.holds(b, a) { held[b] += 1 }
            }
        }
        var fillable = 0, filled = true, bounded = pairs < peers * (peers - 1) / 2
        for d in 0..<peers {
            let most = min(within[d], cap)
            fillable += most
            if held[d] < most { filled = false }
            if within[d] > cap { bounded = true }
        }
        return Count(pairs: pairs, sessions: held.reduce(0, +), fillable: fillable, filled: filled, bounded: bounded)
    }
}
