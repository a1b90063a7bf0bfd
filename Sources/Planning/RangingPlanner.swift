import DeviceInterface
import Geometry

/// A tap a peer told a device of: who, and when it felt it.
package struct PeerTap: Sendable, Equatable {
    package let peer: Int32
    package let time: Float

    package init(peer: Int32, time: Float) {
        self.peer = peer
        self.time = time
    }
}

/// What the devices know when their ranging service plans a round: the round's span, who holds running sessions
/// with whom, the pairs, the latest estimate of each pair, each pair's Bluetooth distance, each device's own speed,
/// and the peer each device's app chose to walk to. All of it is the devices' own observations; the true poses and
/// partners come in only for the `oracle` policy, an upper bound (``truth``).
package struct PlanningContext {
    /// The round's start, seconds, and its length (1 / the rate).
    package let time: Double
    package let interval: Double
    package let sessions: RunningSessions.Snapshot
    /// Every pair found, by index: the lower and the higher device index ...
    package let pairs: [RangingPair]
    /// ... and the table they come from, which finds a pair's index from its devices.
    package let table: PairTable
    /// The latest estimate of each pair, by pair index (empty: none known).
    package let estimates: [PairEstimate]
    /// Each pair's distance from Bluetooth signal strength, metres, by pair index; NaN where none was heard, and
    /// none past its end (a pair met since the last reading; empty: none known) ...
    package let bluetooth: [Float]
    /// ... and the least share of it the pair may truly be at (``BluetoothDistances/floor``).
    package let bluetoothFloor: Float
    /// The device each device's app chose to walk to, -1 for none (empty: none chosen).
    package let targets: [Int32]
    /// Each device's own speed over the ground, m/s, as its motion sensors tell it (empty: none known).
    package let speeds: [Float]
    /// When each device's accelerometer last felt a tap (a peak at or over the bump detector's threshold), seconds;
    /// -∞ never (empty: none known) ...
    package let taps: [Float]
    /// ... and, by device, the taps its peers told it of over the data channel that have arrived by the round's
    /// start (their time on the pair's clock): a device knows of another's tap only when a message brought it.
    package let peerTaps: [[PeerTap]]
    /// The device that initiates each pair's exchanges, by pair index, whose chip controls the session (empty: the
    /// lower).
    package let initiators: [Int32]
    /// The world's truth, for the `oracle` policy alone: every device's true pose at the round's start.
    package let truth: [Pose]?
    /// A count the caller raises whenever a pair's estimate or Bluetooth distance changes other than by ranging the
    /// pairs the planner placed or by a reading of pairs past the end of ``bluetooth``: with it a planner may pass over
    /// a pair nothing of which changed; `nil`, unknown: every pair is looked at every round.
    package let outsideChanges: Int?

    package init(time: Double, interval: Double, sessions: RunningSessions.Snapshot, pairs: PairTable,
                estimates: [PairEstimate] = [], bluetooth: [Float] = [], bluetoothFloor: Float = 1,
                targets: [Int32] = [], speeds: [Float] = [], taps: [Float] = [], peerTaps: [[PeerTap]] = [],
                initiators: [Int32] = [], truth: [Pose]? = nil, outsideChanges: Int? = nil) {
        self.time = time
        self.interval = interval
        self.sessions = sessions
        self.pairs = pairs.pairs
        table = pairs
        self.estimates = estimates
        self.bluetooth = bluetooth
        self.bluetoothFloor = bluetoothFloor
        self.targets = targets
        self.speeds = speeds
        self.taps = taps
        self.peerTaps = peerTaps
        self.initiators = initiators
        self.truth = truth
        self.outsideChanges = outsideChanges
    }

    /// The device whose chip controls pair `p`'s session.
    @inline(__always)
    package func initiator(of p: Int) -> Int {
        p < initiators.count ? Int(initiators[p]) : Int(pairs[p].low)
    }

    /// How fast two people may have closed on each other since an estimate, m/s, when the devices do not say (two
    /// brisk walkers).
    static let staleClosingSpeed: Float = 2

    /// How near pair `p` may be by its Bluetooth signal alone, metres: 0 when none was heard.
    @inline(__always)
    package func nearestByBluetooth(_ p: Int) -> Float {
        guard p < bluetooth.count, bluetooth[p].isFinite else { return 0 }
        return bluetooth[p] * bluetoothFloor
    }

    /// How near devices `i` and `j` may be, as far as the devices know, metres: the pair's estimate brought forward
    /// by how far two walkers could have come since, or else as near as its Bluetooth signal allows; +∞ when
    /// neither device has heard the other (Bluetooth carries farther than the interference range). The true
    /// distance under `oracle`.
    @inline(__always)
    package func believedDistance(_ i: Int, _ j: Int) -> Float {
        if let truth { return Float((truth[i].position - truth[j].position).length) }
        guard i != j, let p = table.index(i, j) else { return i == j ? 0 : .infinity }
        if !estimates.isEmpty, estimates[p].distance.isFinite {
            let age = max(0, Float(time) - estimates[p].time)
            return max(0, estimates[p].distance - Self.staleClosingSpeed * age)
        }
        if p < bluetooth.count, bluetooth[p].isFinite { return bluetooth[p] * bluetoothFloor }
        return .infinity
    }

    /// Whether pairs `p` and `q` are in hearing of each other, as far as the devices know: a device of one within
    /// `range` metres of a device of the other (``believedDistance(_:_:)``).
    @inline(__always)
    package func inHearing(_ p: RangingPair, _ q: RangingPair, range: Float) -> Bool {
        let a = Int(p.low), b = Int(p.high), c = Int(q.low), d = Int(q.high)
        return believedDistance(a, c) <= range || believedDistance(a, d) <= range
            || believedDistance(b, c) <= range || believedDistance(b, d) <= range
    }

    /// Calls `body` with the index and the devices of every pair whose two devices both hold a running session, in
    /// pair order (of the pairs that have begun a session: a pair found and never in session cannot range). The
    /// devices are read side by side in that order (``PairTable/inSessionDevices``), not at each pair's index.
    @inline(__always)
    package func forEachRunningPair(_ body: (Int, RangingPair) -> Void) {
        let indices = table.inSession, devices = table.inSessionDevices
        for k in indices.indices {
            let pair = RangingPair(low: Int32(truncatingIfNeeded: devices[k] >> 32),
                                   high: Int32(truncatingIfNeeded: devices[k]))
            if sessions.ranges(Int(pair.low), Int(pair.high)) { body(Int(indices[k]), pair) }
        }
    }
}

/// Decides, each round, which pairs range and at which instant: the seam where the air's limits (channels, slots,
/// per-device session limits) and a policy come in. The engine ranges exactly what the plan says.
package protocol RangingPlanner {
    /// Sets `plan` to the round's exchanges. The plan holds the previous round's, which a planner may keep.
    mutating func plan(_ context: PlanningContext, into plan: inout RangingPlan)
    /// Whether the round's exchanges wrap around its end (sessions on their own timers), for the world's medium.
    var roundIsCircular: Bool { get }
}

extension RangingPlanner {
    package var roundIsCircular: Bool { false }
}

/// Every pair of running sessions at the start of every round, in pair order: the ideal world, with no limit of
/// air. At 100 peers that is 4,950 exchanges a round, which no real channel carries.
package struct EveryRunningPair: RangingPlanner {
    /// The sessions' version the plan was made for: while no session changes, the plan stays as it is.
    private var plannedFor: UInt64?

    package init() {}

    package mutating func plan(_ context: PlanningContext, into plan: inout RangingPlan) {
        let sessions = context.sessions
        guard plannedFor != sessions.version else { return }
        plannedFor = sessions.version
        plan.exchanges.removeAll(keepingCapacity: true)
        context.forEachRunningPair { p, _ in plan.exchanges.append(PlannedExchange(pair: p)) }
    }
}

/// A fair share of the air for every pair of running sessions: each round, the running pairs in turn, each placed
/// in the first slot of the round where neither device is busy and no exchange within the interference range uses
/// the channel (``AirAllocator``), until the round's air is taken. Every pair waits its turn, close or far: at 100
/// peers on one channel a pair ranges about once every 50 s.
package struct RoundRobin: RangingPlanner {
    private var air: AirAllocator
    private var admitted: AdmittedPairs
    private var next = 0

    package init(medium: Medium, scheme: RangingScheme, peers: Int,
                hearingMargin: Float) {
        air = AirAllocator(medium: medium, scheme: scheme, peers: peers, hearingMargin: hearingMargin)
        admitted = AdmittedPairs(medium: medium, peers: peers)
    }

    package mutating func plan(_ context: PlanningContext, into plan: inout RangingPlan) {
        plan.suspensions.removeAll(keepingCapacity: true)
        if admitted.refresh(context, into: &plan.suspensions), next >= admitted.pairs.count { next = 0 }
        let running = admitted.pairs
        air.begin(context, into: &plan)
        guard !running.isEmpty else { return }
        // The turn moves on past the last pair placed: those refused when the air was taken wait for the next round.
        var placedThrough = -1
        for k in 0..<running.count where !air.isSaturated {
            if air.place(running[(next + k) % running.count], context, into: &plan) { placedThrough = k }
        }
        next = (next + placedThrough + 1) % running.count
    }
}
