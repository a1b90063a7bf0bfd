import Air
import Bump
import DeviceInterface
import Discovery
import DiscoveryRun
import Estimation
import Foundation
import GSL
import Geometry
import Radio
import Planning
import Ranging
import ReferenceApp
import Sessions
import Synchronization
import SimulatedNetwork
import World

/// A whole run: peers discover each other, open their sessions, range the pairs a planner chooses, fire bumps, and
/// every estimate is scored against the world's truth. What happens goes out once as ``RunEvent``s, to the trace,
/// to the summary's tally, and to any observer.
///
/// Wiring only: the world, a cluster (in memory, or over UDP through a ``ClusterMaker`` the caller provides, so that
/// this module links no networking library), the round engine and its planner, paced by ``ClusterPacer``.
public final class Simulation {
    /// How far a run has come, for a progress line.
    public struct Progress: Sendable {
        public let simulated: Double
        public let duration: Double
        public let sessions: Int
        public let expectedSessions: Int
        public let bumps: Int
    }

    /// Makes the UDP cluster of a run (`UDPCluster.maker` in the `UDPRun` module).
    public typealias ClusterMaker = @Sendable (ClusterSettings) async throws -> any Cluster

    /// The events an observer asks for beyond those every observer gets (discovery, sessions, bumps, contacts,
    /// near misses, profiles): the many that cost something to make.
    public struct Detail: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Every update of every session (`didUpdate`, with its reading), and the haptic intensity played.
        public static let updates = Detail(rawValue: 1)
        /// Every device's pose every ``SimulationSettings/posesInterval`` seconds.
        public static let poses = Detail(rawValue: 2)
    }

    public let settings: SimulationSettings
    /// What the run is and the settings it uses, as the summary's `run` section and the trace's first line say.
    public let runInfo: SimulationSummary.Run
    let world: World
    /// Each device's own clock, which stamps its updates (the radio's crystal counts it).
    public let clocks: [DeviceClock]
    let udp: ClusterMaker?
    var planner: any RangingPlanner
    var plan = RangingPlan()
    /// The world's medium: which of the planned exchanges collide (none under `ideal`, which has no air).
    var air: AirPhysics?
    /// The phones' Bluetooth readings (the world's) and the distances the devices take from them.
    var signals: BluetoothSignals
    var heard: BluetoothDistances
    var lastHeard = -Double.infinity
    /// NearCatch's logic on every device (`nil` when the apps of a `NearbySimulator` room run their own and the test
    /// did not ask for it).
    var app: ReferenceApp?
    /// With ``SimulationSettings/sensors`` `samples`: each device's jolt finder, and the jolts it found in the last
    /// seconds, on the world's time (a pair's ranging keeps its two clocks' offset to nanoseconds: docs/sensors.md).
    var extractors: [ImpactExtractor] = []
    var sensedImpacts: [[Impact]] = []
    /// With samples, the jolts go over the data channel: each phone's clock's offset from the true time (the jolts'
    /// times are stamped by it), the jolts each app found and has yet to send, what arrived (from the transport's
    /// threads, into the inbox) and what each app holds of it.
    var syncOffsets: [Double] = []
    var outbox: [[Impact]] = []
    let inbox = ImpactInbox()
    var heardImpacts: [[HeardImpact]] = []
    /// When the oldest jolt each app holds became known: its list is reached to drop what is over 3 s old only when
    /// something is (reaching every list every round, for lists the round's engine may still share, copied them).
    var oldestHeard: [Double] = []
    var joltsSent = 0
    /// With sampled accelerometers: told each device's samples once the run's time has reached them (the apps of the
    /// app-testing library read them), and those the world took ahead of it.
    package var sampleTap: ((Int, ArraySlice<AccelerometerSample>) -> Void)?
    private var aheadSamples: [[AccelerometerSample]] = []
    /// What the step in progress saw happen and what the devices send, handed out when it ends.
    /// Every device's observations and actions as text lines, for a test that the devices read no truth.
    package var deviceRecord: (@Sendable (String) -> Void)?
    let running: RunningSessions
    let trace: TraceRecorder?
    let tally = SummaryTally()
    var observers: [(Detail, @Sendable (RunEvent) -> Void)] = []
    var detail: Detail = []
    var lastPoses = -Double.infinity
    /// Pair-seconds of running pairs by distance band, counted once a simulated second, with the estimates' ages.
    var bandSeconds = [Double](repeating: 0, count: RoundEngine.bandLimits.count)
    var bands = RoundEngine.BandSample()
    var lastBandCount = 0.0
    /// The air used, by channel, over the run and since the last `air` event; suspensions by device limits.
    var channelExchanges: [Int]
    var channelCollided: [Int]
    var secondExchanges: [Int]
    var secondCollided: [Int]
    var lastReceivedByBand = [Int](repeating: 0, count: RoundEngine.bandLimits.count)
    var suspensions = 0
    var roundsRun = 0
    /// In memory: how far discovery's radio reaches (``SimulationSettings/discoveryRange``), placed every round at
    /// the devices' positions; `nil` over UDP or with no limit.
    var reach: RadioReach?
    /// Whether discovery has been bounded (a pair out of reach, or a device with more peers within reach than it may
    /// hold) at a whole second before it converged, and the first whole second at which every device held a running
    /// session with each peer within reach, or as many as it may hold.
    var reachLimited = false
    var convergedWithinReach: Double?
    private var lastReachCount = -Double.infinity
    /// The sessions running at the end of the simulated time, before the nodes say goodbye.
    var finalSessions: RunningSessions.Snapshot?
    /// Every device's pose at the start of the next round (the world has run to it); empty before the first.
    var roundStart: [Pose] = []
    let peers: Int

    /// Prepares a run: checks the settings, builds the world, and opens the trace.
    ///
    /// - Parameter udp: makes the cluster of a run over UDP; without it, only `--transport memory` runs.
    /// - Throws: ``SimulationSettingsError`` naming the setting at fault; nothing is written then.
    public init(settings: SimulationSettings, udp: ClusterMaker? = nil) throws {
        try settings.validate()
        if settings.transport == .udp, udp == nil {
            throw SimulationSettingsError(message: "--transport udp is not available here: use --transport memory")
        }
        self.settings = settings
        self.udp = udp
        peers = settings.peerCount
        world = try World(scenario: settings.scenario, peers: settings.peers, seed: settings.seed,
                          mingle: settings.mingle, scramble: settings.truthScramble)
        running = RunningSessions(peers: peers)
        clocks = try DeviceRadio.room(count: peers, runSeed: settings.seed, configuration: settings.radio).map(\.clock)
        if settings.sensors == .samples {
            // A scenario file's own physics, where it gives any, over the settings'.
            var motion = settings.motion
            if case .scripted(let file) = settings.scenario, let own = file.motion { motion = own }
            try world.startSensing(clocks: clocks, seed: settings.seed, imu: settings.imu, motion: motion)
            extractors = Array(repeating: ImpactExtractor(), count: peers)
            sensedImpacts = Array(repeating: [], count: peers)
            outbox = sensedImpacts
            heardImpacts = Array(repeating: [], count: peers)
            oldestHeard = Array(repeating: .infinity, count: peers)
            syncOffsets = try (0..<peers).map { d throws(GSLError) in
                let random = try RandomSource(runSeed: settings.seed,
                                              stream: StreamIdentity(kind: .clock, first: UInt64(d), second: 0))
                return (random.uniform() - 0.5) * settings.clockOffset
            }
        }
        planner = try settings.makePlanner(peers: peers)
        air = settings.rangingPolicy == .ideal ? nil : AirPhysics(medium: settings.medium, scheme: settings.radio.scheme)
        signals = BluetoothSignals(seed: settings.seed, settings: settings.bluetooth)
        heard = BluetoothDistances(referencePower: settings.bluetooth.referencePower,
                                   exponent: settings.bluetooth.exponent, smoothing: settings.bluetoothSmoothing,
                                   shadowingSigma: settings.bluetooth.shadowingSigma)
        channelExchanges = [Int](repeating: 0, count: settings.medium.channels)
        channelCollided = channelExchanges
        secondExchanges = channelExchanges
        secondCollided = channelExchanges
        app = settings.runsReferenceApp
            ? ReferenceApp(interests: world.interests, bump: settings.bump, haptics: settings.haptics) : nil
        runInfo = SimulationSummary.Run(
            peers: peers, scenario: settings.scenario.name, transport: settings.transport.rawValue,
            clock: settings.clock.rawValue, workers: settings.workers, seed: settings.seed,
            duration: settings.duration, rate: settings.rate, interruptedAt: nil, groupKey: settings.groupKey.name,
            version: settings.version,
            // The Float's decimal value, not its binary one (0.08, not 0.0799999982).
            loss: settings.loss, bumpDistance: Double(String(settings.bump.distance)) ?? Double(settings.bump.distance),
            lineOfSightSigma: settings.radio.lineOfSightSigma, antennaDelaySigma: settings.radio.antennaDelaySigma,
            levelBias: settings.radio.levelBiasShare, link: settings.radio.linkModel.rawValue, planner: settings.rangingPolicy.label,
            detector: settings.bump.method.rawValue,
            sensors: settings.sensors.rawValue, imuRate: settings.sensors == .samples ? settings.imu.rate : nil,
            clockOffset: settings.sensors == .samples ? settings.clockOffset : nil,
            traceUpdateInterval: settings.traceUpdateInterval, tracePoseInterval: settings.tracePoseInterval,
            traceEvery: settings.tracePath != nil && settings.traceEvery > 1 ? settings.traceEvery : nil,
            discoveryRange: settings.transport == .memory && settings.discoveryRange.isFinite
                ? settings.discoveryRange : nil,
            maximumSessions: settings.maximumSessions)
        trace = try settings.traceFile.map { file throws(SimulationSettingsError) in
            TraceRecorder(writer: try TraceWriter(file: file), peers: settings.peerCount,
                          every: settings.traceEvery, updateInterval: settings.traceUpdateInterval,
                          horizon: TraceRecorder.lookBack + 2 / settings.rate + 0.5)
        }
        if let trace {
            observe(wanting: [.updates, .poses]) { trace.record($0) }
        }
        let tally = self.tally
        observe { tally.record($0) }
    }

    /// Adds an observer of the run's events, called in the order they are produced (over UDP, discovery events
    /// come from the nodes' threads). Call before ``run(progress:)``.
    public func observe(wanting detail: Detail = [], _ observer: @escaping @Sendable (RunEvent) -> Void) {
        observers.append((detail, observer))
        self.detail.formUnion(detail)
    }

    private func emit(_ event: RunEvent) {
        if let deviceRecord, let line = event.deviceSide { deviceRecord(line) }
        for (wants, observer) in observers {
            switch event.kind {
            case .session(_, _, .didUpdate, _), .haptic: if !wants.contains(.updates) { continue }
            case .pose: if !wants.contains(.poses) { continue }
            default: break
            }
            observer(event)
        }
    }

    var clusterSettings: ClusterSettings {
        var s = ClusterSettings()
        s.peers = peers
        s.seed = settings.seed
        s.timing = settings.discoveryTiming
        s.maximumSessions = settings.maximumSessions
        if settings.discoveryRange.isFinite, let area = world.floorAreaPerPeer {
            // A node's tables are sized for the peers within reach in a crowd of this density.
            s.expectedNeighbours = Int((Double.pi * settings.discoveryRange * settings.discoveryRange / area).rounded(.up))
        }
        s.groupKey = settings.groupKey
        s.duration = settings.duration
        s.connectsByConsent = settings.appInTheLoop && settings.connectsByConsent
        s.startsOnRequest = settings.appInTheLoop && settings.discoveryStartsWithApp
        let interests = world.interests
        s.discoveryInfo = { ["interests": interests[$0].joined(separator: ",")] }
        return s
    }

    /// Runs to the end and scores the run. The trace is moved into place only when the run succeeds.
    ///
    /// Cancelling the task ends the run early and cleanly: the nodes say goodbye, the summary covers the simulated
    /// time reached (``SimulationSummary/Run/interruptedAt``), and the trace, incomplete, is not written.
    public func run(progress: (@Sendable (Progress) -> Void)? = nil) async throws -> SimulationSummary {
        let started = Date()
        do {
            let cluster: any Cluster
            if let udp, settings.transport == .udp {
                cluster = try await udp(clusterSettings)
            } else {
                cluster = try InMemoryCluster(settings: clusterSettings, conditions: NetworkConditions(loss: settings.loss))
            }
            let engine = try setUp(cluster)
            // The most the devices may hold: every other peer, or each device's limit.
            let expected = peers * min(peers - 1, settings.maximumSessions)
            let outcome = await ClusterPacer.run(
                cluster, until: settings.duration, step: 1, realTime: settings.clock == .real,
                progress: { [running, tally, settings] reached in
                    progress?(Progress(simulated: reached, duration: settings.duration,
                                       sessions: running.snapshot().count, expectedSessions: expected,
                                       bumps: tally.bumpCount))
                })
            // Counted at the end of the simulated time, before the nodes say goodbye (which removes them).
            finalSessions = running.snapshot()
            let sessions = finalSessions?.count ?? 0
            // Let the last profiles arrive before the nodes say goodbye (not when told to stop: then at once).
            if !cluster.isVirtual, !outcome.interrupted { try? await Task.sleep(for: .milliseconds(100)) }
            let report = await cluster.finish(wallSeconds: Date().timeIntervalSince(started),
                                              interruptedAt: outcome.interrupted ? outcome.reached : nil)
            var summary = summarise(outcome, engine: engine, convergence: report.convergenceSeconds,
                                    sessions: sessions, wall: Date().timeIntervalSince(started))
            if outcome.interrupted {
                trace?.abandon()
            } else if let trace {
                trace.writeSummary(summary, at: outcome.reached)
                do {
                    try trace.finish()
                } catch {
                    throw UnpublishedRun(summary: summary, problem: error)
                }
                summary.traceLines = trace.lineCount
            }
            return summary
        } catch {
            trace?.abandon()
            throw error
        }
    }

    /// Sets up a run in memory that its caller advances step by step (the app-testing library) instead of pacing it
    /// to its end: the nodes are built and their starts scheduled on the cluster's virtual clock, and nothing runs
    /// before `cluster.run(until:)`. The rounds are scheduled up to ``SimulationSettings/duration``.
    ///
    /// - Returns: the cluster, whose clock is the run's.
    /// - Parameter conditions: what the network does to each datagram (by default: ``SimulationSettings/loss``).
    public func begin(conditions: NetworkConditions? = nil) throws -> InMemoryCluster {
        precondition(settings.transport == .memory, "a stepped run is in memory")
        let cluster = try InMemoryCluster(settings: clusterSettings,
                                          conditions: conditions ?? NetworkConditions(loss: settings.loss))
        _ = try setUp(cluster)
        return cluster
    }

    /// Who runs a ranging session with whom: fed from the discovery nodes' sessions, or, with
    /// ``SimulationSettings/appInTheLoop``, by the apps.
    public var runningSessions: RunningSessions { running }

    /// The world's truth: poses, contacts and near misses.
    public var truth: World { world }

    /// The engine, the observers and the rounds of a run on `cluster`, before its nodes start.
    private func setUp(_ cluster: any Cluster) throws -> RoundEngine {
        let engine = try RoundEngine(
            peerIDs: cluster.peerIDs.map(\.rawValue),
            settings: PairSettings(seed: settings.seed, radio: settings.radio, estimator: settings.tunedEstimator,
                                   bump: app?.bump ?? settings.bump, walls: world.walls, detectsBumps: app != nil),
            workers: settings.workers, view: running)
        if let memory = cluster as? InMemoryCluster {
            // A large room's announcements are taken on as many threads as the rounds' pairs (the same outcome).
            memory.network.frameWorkers = settings.workers
            if settings.discoveryRange.isFinite {
                reach = RadioReach(range: settings.discoveryRange)
                memory.network.reach = reach
                placeReach(world.poses, sessions: running.snapshot(), at: 0)
            }
        }
        // Watched before the nodes start, so that no event goes unseen.
        watch(cluster)
        trace?.writeHeader(run: runInfo, peerIDs: cluster.peerIDs)
        cluster.start()
        var first = StepOutput()
        samplePoses(at: 0, world.poses, into: &first)
        handOut(first, to: cluster)
        cluster.repeatAt(rate: settings.rate, until: settings.duration) { [unowned self] time in
            handOut(step(at: time, engine: engine), to: cluster)
            trace?.advance(to: time)
        }
        return engine
    }

    /// Keeps the running-session view in step with the nodes' events and turns those into run events.
    private func watch(_ cluster: any Cluster) {
        let index = Dictionary(uniqueKeysWithValues: cluster.peerIDs.enumerated().map { ($1, $0) })
        let running = self.running
        let observers = self.observers
        let appInTheLoop = settings.appInTheLoop
        let inbox = self.inbox
        @Sendable func emit(_ event: RunEvent) {
            for (_, observer) in observers { observer(event) }
        }
        cluster.monitor.observe { entry in
            let device = entry.node
            switch entry.event {
            case .found(let ad):
                guard let peer = index[ad.peer] else { return }
                running.found(device, peer)
                emit(RunEvent(time: entry.time, kind: .found(device: device, peer: peer)))
            case .lost(let id, let reason):
                guard let peer = index[id] else { return }
                emit(RunEvent(time: entry.time, kind: .lost(device: device, peer: peer, reason: reason)))
            case .session(let id, let event):
                guard let peer = index[id] else { return }
                switch event {
                // The apps run their own sessions: discovery's only connect the devices.
                case _ where appInTheLoop: break
                case .began: running.began(device, peer)
                case .suspensionEnded: running.set(device, peer, running: true)
                case .suspended, .didRemove, .invalidated: running.set(device, peer, running: false)
                // Estimates are the ranging's, delivered from the rounds.
                case .didUpdate: return
                }
                emit(RunEvent(time: entry.time, kind: .session(device: device, peer: peer, event: event, reading: nil)))
            // Only the app-testing library's nodes ask their apps for consent; its room hears the cluster itself.
            case .invited: return
            case .data(let id, let kind, let payload) where kind == ImpactMessage.kind:
                guard let peer = index[id] else { return }
                inbox.receive(payload, from: peer, at: device, time: entry.time)
            case .data(let id, let kind, let payload):
                guard let peer = index[id], kind == ReferenceApp.profileKind else { return }
                emit(RunEvent(time: entry.time, kind: .profile(device: device, peer: peer, bytes: payload.count)))
            }
        }
    }

    /// Tells discovery's radio where the devices stand and, once a second until discovery has converged, checks
    /// whether it has: every device holding a running session with every peer within reach, or as many as it may
    /// hold (``SimulationSettings/maximumSessions``).
    private func placeReach(_ poses: [Pose], sessions: RunningSessions.Snapshot, at time: Double) {
        if let reach {
            var coordinates: [Double] = []
            coordinates.reserveCapacity(3 * poses.count)
            for pose in poses { coordinates += [pose.position.x, pose.position.y, pose.position.z] }
            reach.place(coordinates)
        }
        // Once a second: at a thousand peers the count reads half a million pairs.
        guard convergedWithinReach == nil, time - lastReachCount >= 1 - 1e-9 else { return }
        lastReachCount = time
        let count = reachCount(sessions)
        if count.bounded { reachLimited = true }
        if count.filled { convergedWithinReach = time }
    }

    /// What discovery can and does hold at the devices' positions as last placed: the pairs within reach, the
    /// running sessions they hold, the most the devices could hold there (each its peers within reach, up to its
    /// limit), whether every device holds that many, and whether the reach or the limit bounds what a device may
    /// hold at all.
    func reachCount(_ sessions: RunningSessions.Snapshot)
        -> (pairs: Int, sessions: Int, fillable: Int, filled: Bool, bounded: Bool)
    {
        let cap = settings.maximumSessions
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
        return (pairs, held.reduce(0, +), fillable, filled, bounded)
    }

    private func samplePoses(at time: Double, _ poses: [Pose], into out: inout StepOutput) {
        guard detail.contains(.poses), time - lastPoses >= settings.tracePoseInterval - 1e-9 else { return }
        lastPoses = time
        for (device, pose) in poses.enumerated() {
            out.happened(at: time, .pose(device: device, pose: pose))
        }
    }

    // MARK: - One round

    /// Advances the world and turns what the truth saw on the way into run events.
    private func advanceWorld(to time: Double, into out: inout StepOutput) {
        record(world.advance(to: time), until: time, into: &out)
    }

    /// Only the oracle is told the truth: where everyone stands and who walks to whom (`-1`: nobody).
    private func oracleTargets() -> [Int32] {
        settings.rangingPolicy.isOracle ? (0..<peers).map { Int32(world.partner(of: $0) ?? -1) } : []
    }

    /// Turns what the truth saw while the world ran to `time` into run events.
    private func record(_ changes: [ContactChange], until time: Double, into out: inout StepOutput) {
        for change in changes {
            switch change {
            case .contactStarted(let c):
                out.happened(at: c.start, .contactStarted(device: c.a, peer: c.b))
            case .contactEnded(let c):
                out.happened(at: c.end ?? time, .contactEnded(device: c.a, peer: c.b, minimumDistance: c.minimumDistance))
            case .nearMiss(let m):
                out.happened(at: m.time, .nearMiss(device: m.a, peer: m.b, minimumDistance: m.minimumDistance))
            }
        }
    }

    /// Hands out what a step saw happen, in the order it happened, to every observer, and sends what the devices
    /// sent.
    private func handOut(_ out: StepOutput, to cluster: any Cluster) {
        for event in out.events { emit(event) }
        for m in out.messages { cluster.send(from: m.from, to: m.to, kind: m.kind, payload: m.payload) }
    }

    /// One round, the run's step: the world advances, the devices get what they observe at the round's start, plan
    /// and range, and the air and the distance bands are counted once a second. It touches no observer and no
    /// transport: it returns what happened and what the devices send, for ``handOut(_:to:)``.
    private func step(at time: Double, engine: RoundEngine) -> StepOutput {
        var out = StepOutput()
        // Mingling peers choose among the peers they hold sessions with, as of the round's start.
        let sessions = running.snapshot()
        world.knows = { i, j in sessions.holds(i, j) }
        // The world runs a round ahead: an exchange planned at an offset into the round measures the positions at
        // its instant, between the round's start and end.
        if roundStart.isEmpty {
            advanceWorld(to: time, into: &out)
            roundStart = world.poses
        }
        let poses = roundStart
        // The round at the run's end ranges nothing: its exchanges would come after the end.
        let ranges = time < settings.duration - 1e-9
        // What the devices observe of the round's start, read before the world runs on: each phone's own speed over
        // the last round; and, for the oracle alone, who walks to whom.
        let speeds = ranges ? world.groundSpeeds : []
        let targets = ranges ? oracleTargets() : []
        // What the devices take in of the round's start touches nothing of the world's: in a large room it runs on
        // one core while the world runs on through the round on the other.
        var start = StepOutput()
        let takeInStart = {
            // Pairs found or in session since the last round join the engine's before anything is planned for them.
            do {
                try engine.adoptMeetings()
            } catch {
                fatalError("out of memory for the random streams of new pairs: \(error)")
            }
            self.placeReach(poses, sessions: sessions, at: time)
            self.samplePoses(at: time, poses, into: &start)
            if ranges { self.readBluetooth(at: time, poses: poses, engine: engine) }
        }
        let changes = ranges
            ? WorldAdvance.run(world, to: time + 1 / settings.rate,
                               beside: settings.workers > 1 && peers >= WorldAdvance.besideFrom, takeInStart)
            : nil
        if changes == nil { takeInStart() }
        out.events += start.events
        if let changes {
            rangeRound(at: time, poses: poses, sessions: sessions, engine: engine, speeds: speeds, targets: targets,
                       changes: changes, into: &out)
        }
        if time - lastBandCount >= 1 - 1e-9 {
            let inBands = engine.sampleBands(at: time, poses: poses, sessions: sessions, into: &bands)
            for b in inBands.indices { bandSeconds[b] += Double(inBands[b]) * (time - lastBandCount) }
            lastBandCount = time
            let received = engine.receivedByBand
            out.happened(at: time, .air(exchanges: secondExchanges, collided: secondCollided,
                                    receivedByBand: zip(received, lastReceivedByBand).map { $0 - $1 }))
            lastReceivedByBand = received
            for c in secondExchanges.indices {
                secondExchanges[c] = 0
                secondCollided[c] = 0
            }
        }
        return out
    }

    /// Once a reading interval, every pair's Bluetooth signal at the round's start; a pair found since the last
    /// reading is read at once: its devices found each other by their advertisements.
    private func readBluetooth(at time: Double, poses: [Pose], engine: RoundEngine) {
        let everyPair = time - lastHeard >= settings.bluetooth.interval - 1e-9
        let first = everyPair ? 0 : signals.readings.count
        let pairs = engine.pairs
        if everyPair { lastHeard = time }
        guard first < pairs.count else { return }
        do {
            try signals.read(poses, from: first, pairs: pairs.count) { (Int(pairs[$0].low), Int(pairs[$0].high)) }
        } catch {
            fatalError("out of memory for the Bluetooth streams of \(pairs.count) pairs: \(error)")
        }
        heard.take(signals.readings, from: first)
        record {
            (everyPair ? "bluetooth \(time) " : "bluetooth-found \(time) ")
                + signals.readings[first...].map { $0.isFinite ? "\($0)" : "-" }.joined(separator: ",")
        }
    }

    /// Plans the round at `time` from what the devices know (`speeds`, and for the oracle `targets`), lets the
    /// world's medium take out what collides, ranges the rest, and handles the bumps: each side sends its profile to
    /// the other, as the app does. `changes`: what the truth saw while the world ran through the round.
    private func rangeRound(
        at time: Double, poses: [Pose], sessions: RunningSessions.Snapshot, engine: RoundEngine,
        speeds: [Float], targets: [Int32], changes: [ContactChange], into out: inout StepOutput
    ) {
        let interval = 1 / settings.rate
        let oracle = settings.rangingPolicy.isOracle
        record(changes, until: time + interval, into: &out)
        let end = world.poses
        roundStart = end
        // Each phone's latest tap up to the round's start (the world has felt a round further).
        let bump = settings.bump
        let felt = feltImpacts(upTo: time + interval, handingOutTo: time)
        let taps = felt.map { peaks in
            peaks.last { $0.known <= time && bump.isKnock($0) }.map { Float($0.time) } ?? -.infinity
        }
        planner.plan(PlanningContext(time: time, interval: interval, sessions: sessions, pairs: engine.table,
                                     estimates: engine.estimates, bluetooth: heard.distances,
                                     bluetoothFloor: heard.floor, targets: targets,
                                     speeds: speeds, taps: taps, truth: oracle ? poses : nil),
                     into: &plan)
        record {
            // Under `ideal` the plan has no channels: each exchange's is 0.
            let channels = plan.channels + repeatElement(0, count: plan.exchanges.count - plan.channels.count)
            return "plan \(time) speeds \(speeds) taps \(taps) "
                + zip(plan.exchanges, channels).map { "\($0.pair):\($0.offset):\($1)" }.joined(separator: ",")
        }
        air?.resolve(&plan, pairs: engine.pairs, positions: poses.map(\.position), interval: interval,
                     circular: planner.roundIsCircular)
        countAir(at: time, into: &out)
        roundsRun += 1
        let impacts = settings.bump.method == .fused ? felt : []
        record { "impacts \(time) \(impacts)" }
        // Each app sends its jolts to the peers it believes may be within reach of a touch, by what its own phone
        // knows (never the oracle's truth): its estimate brought forward by two walkers' speeds, but no nearer than
        // the pair's Bluetooth signal allows.
        let known = PlanningContext(time: time, interval: interval, sessions: sessions, pairs: engine.table,
                                    estimates: engine.estimates, bluetooth: heard.distances,
                                    bluetoothFloor: heard.floor)
        let heard = exchangeJolts(at: time, sessions: sessions, into: &out) {
            max(known.believedDistance($0, $1),
                known.table.index($0, $1).map(known.nearestByBluetooth) ?? 0) <= settings.bump.shareReach
        }
        let result = engine.round(plan, at: time, poses: poses, end: end, interval: interval, sessions: sessions,
                                  impacts: impacts, heard: heard,
                                  record: detail.contains(.updates) || deviceRecord != nil)
        for x in result.exchanges { deliver(x, into: &out) }
        for bump in result.bumps {
            out.happened(at: bump.time, .bump(device: bump.initiator, peer: bump.responder, estimate: bump.estimate,
                                          trueDistance: bump.trueDistance))
            out.messages += app?.didBump(initiator: bump.initiator, responder: bump.responder) ?? []
        }
    }

    /// With sampled accelerometers: each app sends the jolts it has come to know that could be its side of a bump
    /// to every peer it holds a session with and believes may be near enough to touch, and takes what has arrived
    /// from its peers; returns what each holds.
    private func exchangeJolts(at time: Double, sessions: RunningSessions.Snapshot, into out: inout StepOutput,
                               mayBeNear: (Int, Int) -> Bool) -> [[HeardImpact]] {
        guard sendsJolts else { return [] }
        for d in 0..<peers where !outbox[d].isEmpty {
            let due = outbox[d].prefix { $0.known <= time }
            guard !due.isEmpty else { continue }
            for jolt in due {
                let payload = ImpactMessage.encode(jolt)
                for p in 0..<peers where p != d && sessions.holds(d, p) && mayBeNear(d, p) {
                    out.messages.append(AppMessage(from: d, to: p, kind: ImpactMessage.kind, payload: payload))
                    joltsSent += 1
                }
                record { "jolt-sent \(time) \(d) \(jolt.time)" }
            }
            outbox[d].removeFirst(due.count)
        }
        for (d, arrived) in inbox.take() where d < peers {
            heardImpacts[d] += arrived
            oldestHeard[d] = arrived.reduce(oldestHeard[d]) { min($0, $1.impact.known) }
        }
        for d in 0..<peers where oldestHeard[d] < time - 3 {
            heardImpacts[d].removeAll { $0.impact.known < time - 3 }
            oldestHeard[d] = heardImpacts[d].reduce(.infinity) { min($0, $1.impact.known) }
        }
        return heardImpacts
    }

    /// Whether the apps send each other their jolts: the reference app does, with sampled accelerometers and the
    /// fused detector.
    var sendsJolts: Bool { app != nil && settings.sensors == .samples && settings.bump.method == .fused }

    /// Every phone's accelerometer impacts of the last seconds up to `time`: the labelled peaks, or the jolts each
    /// device found in its own new samples.
    private func feltImpacts(upTo time: Double, handingOutTo now: Double) -> [[Impact]] {
        guard settings.sensors == .samples else { return world.impacts }
        if sampleTap != nil, aheadSamples.isEmpty { aheadSamples = Array(repeating: [], count: peers) }
        world.drainSamples { d, fresh in
            if let sampleTap {
                aheadSamples[d] += fresh
                let due = clocks[d].reading(at: now)
                let count = aheadSamples[d].firstIndex { $0.timestamp > due } ?? aheadSamples[d].count
                if count > 0 { sampleTap(d, aheadSamples[d][..<count]) }
                aheadSamples[d].removeFirst(count)
            }
            // One access to the finders for the device's samples, not one a sample.
            let jolts = extractors.withUnsafeMutableBufferPointer { finders in
                fresh.compactMap { finders[d].take($0) }
            }
            for jolt in jolts {
                // Stamped by the phone's clock as its app compares it with its peers' (the offset it has from true
                // time), known at the world's instant the app could know it.
                let impact = Impact(time: clocks[d].time(atReading: jolt.time) + syncOffsets[d], magnitude: jolt.peak,
                                    width: jolt.width, direction: jolt.direction, vertical: jolt.vertical,
                                    interval: jolt.interval, known: clocks[d].time(atReading: jolt.known))
                sensedImpacts[d].append(impact)
                if settings.bump.isKnock(impact) { outbox[d].append(impact) }
            }
            if let first = sensedImpacts[d].first, first.time < time - 3 {
                sensedImpacts[d].removeAll { $0.time < time - 3 }
            }
        }
        return sensedImpacts
    }

    /// Counts the plan's use of each channel, and tells the apps of the sessions a device limit suspended or let run
    /// again.
    private func countAir(at time: Double, into out: inout StepOutput) {
        for c in plan.channels {
            channelExchanges[Int(c)] += 1
            secondExchanges[Int(c)] += 1
        }
        for (c, n) in plan.collided.enumerated() where n > 0 {
            channelExchanges[c] += n
            secondExchanges[c] += n
            channelCollided[c] += n
            secondCollided[c] += n
        }
        for change in plan.suspensions {
            if change.suspended { suspensions += 1 }
            out.happened(at: time, .session(device: change.device, peer: change.peer,
                                        event: change.suspended ? .suspended : .suspensionEnded, reading: nil))
        }
    }

    /// Writes a line of the device record, made only when a test asks for it.
    @inline(__always)
    private func record(_ line: () -> String) {
        if let deviceRecord { deviceRecord(line()) }
    }

    /// Both sides' updates of one exchange, as their apps receive them (`didUpdate`), and the haptic the reference
    /// app plays.
    private func deliver(_ x: RangingExchange, into out: inout StepOutput) {
        let m = x.measurement
        for initiator in [true, false] {
            let (device, peer) = initiator ? (x.initiator, x.responder) : (x.responder, x.initiator)
            let update = initiator ? x.atInitiator : x.atResponder
            if let intensity = app?.didUpdate(device: device, peer: peer, update) {
                out.happened(at: x.time, .haptic(device: device, peer: peer, intensity: Double(intensity)))
            }
            let angle = initiator ? m.angleAtInitiator : m.angleAtResponder
            let reading = RunEvent.Reading(
                rawDistance: m.distance, rawHorizontalAngle: angle?.horizontalAngle, trueDistance: x.truth.distance,
                trueDirection: (initiator ? x.truth.bearingFromA : x.truth.bearingFromB).direction,
                initiator: initiator)
            out.happened(at: x.time, .session(device: device, peer: peer, event: .didUpdate(update), reading: reading))
        }
    }
}

/// What one step of the run saw happen and what its devices send, in order: the step's value, handed out after it.
struct StepOutput {
    var events: [RunEvent] = []
    var messages: [AppMessage] = []

    @inline(__always)
    mutating func happened(at time: Double, _ kind: RunEvent.Kind) {
        events.append(RunEvent(time: time, kind: kind))
    }
}

/// The world running on to a time beside other work that touches nothing of the world's.
private enum WorldAdvance {
    /// The fewest devices for which running the world beside pays: at 100 devices its round (about 0.15 ms) and what
    /// runs beside it are short enough that handing one to another thread made the whole run about 3% slower
    /// (0.71 against 0.69 s, eight runs each); at 300 it was 3% faster, at 1,000 about 9%.
    static let besideFrom = 200

    /// Runs the world to `time` and `work`, on two threads when `beside` (one after the other when no second thread
    /// is free, as `concurrentPerform` does), and returns what the truth saw on the way.
    static func run(_ world: World, to time: Double, beside: Bool, _ work: () -> Void) -> [ContactChange] {
        guard beside else {
            let changes = world.advance(to: time)
            work()
            return changes
        }
        var changes: [ContactChange] = []
        withoutActuallyEscaping(work) { work in
            withUnsafeMutablePointer(to: &changes) { changes in
                let shared = AdvanceShared(world: world, changes: changes, work: work)
                DispatchQueue.concurrentPerform(iterations: 2) { k in
                    if k == 0 { shared.changes.pointee = shared.world.advance(to: time) } else { shared.work() }
                }
            }
        }
        return changes
    }
}

/// The world and the other work, handed to `concurrentPerform`: one iteration touches the world and its changes
/// alone, the other everything but, which is what makes sharing them safe.
private struct AdvanceShared: @unchecked Sendable {
    let world: World
    let changes: UnsafeMutablePointer<[ContactChange]>
    let work: () -> Void
}
