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
package final class Simulation {
    /// How far a run has come, for a progress line.
    package struct Progress: Sendable {
        package let simulated: Double
        package let duration: Double
        package let sessions: Int
        package let expectedSessions: Int
        package let bumps: Int
    }

    /// Makes the UDP cluster of a run (`UDPCluster.maker` in the `UDPRun` module).
    package typealias ClusterMaker = @Sendable (ClusterSettings) async throws -> any Cluster

    /// The events an observer asks for beyond those every observer gets (discovery, sessions, bumps, contacts,
    /// near misses, profiles): the many that cost something to make.
    package struct Detail: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        /// Every update of every session (`didUpdate`, with its reading), and the haptic intensity played.
        package static let updates = Detail(rawValue: 1)
        /// Every device's pose every ``SimulationSettings/posesInterval`` seconds.
        package static let poses = Detail(rawValue: 2)
    }

    package let settings: SimulationSettings
    /// What the run is and the settings it uses, as the summary's `run` section and the trace's first line say.
    package let runInfo: SimulationSummary.Run
    let world: World
    /// Each device's own clock, which stamps its updates (the radio's crystal counts it).
    package let clocks: [DeviceClock]
    let udp: ClusterMaker?
    var planner: any RangingPlanner
    var plan = RangingPlan()
    /// The world's medium: which of the planned exchanges collide (none under `ideal`, which has no air).
    var air: AirPhysics?
    /// The phones' Bluetooth readings: the world's signals, which the phones hear.
    var signals: BluetoothSignals
    var lastHeard = -Double.infinity
    /// The device side: every phone's jolt finding and NearCatch's logic (``Phones``).
    var phones: Phones
    /// Bumps a pair's detector fired on a push one of its phones had already bumped on, which NearCatch declined.
    var declinedBumps = 0
    /// Every device's observations and actions as text lines, for a test that the devices read no truth.
    package var deviceRecord: (@Sendable (String) -> Void)?
    let running: RunningSessions
    let trace: TraceRecorder?
    let tally = SummaryTally()
    var observers: [(Detail, @Sendable (RunEvent) -> Void)] = []
    var detail: Detail = []
    var lastPoses = -Double.infinity
    var bands = BandTally()
    var airTally: AirTally
    var reach: DiscoveryReach
    /// The sessions running at the end of the simulated time, before the nodes say goodbye.
    var finalSessions: RunningSessions.Snapshot?
    /// Every device's pose at the start of the next round (the world has run to it); empty before the first.
    var roundStart: [Pose] = []
    /// Whether the world runs each next round on another thread while the devices' datagrams are delivered
    /// (``WorldAhead``): a run to its end in memory, on more than one worker. A run that its caller steps (the
    /// app-testing library) reads the world between rounds, and does not.
    var runsWorldAhead = false
    /// The world's next round, while it runs ahead.
    var ahead: WorldAhead?
    let peers: Int

    /// With sampled accelerometers: told each device's samples once the run's time has reached them (the apps of the
    /// app-testing library read them).
    package var sampleTap: ((Int, ArraySlice<AccelerometerSample>, ArraySlice<GyroSample>) -> Void)? {
        get { phones.sampleTap }
        set { phones.sampleTap = newValue }
    }

    /// Prepares a run: checks the settings, builds the world, and opens the trace.
    ///
    /// - Parameter udp: makes the cluster of a run over UDP; without it, only `--transport memory` runs.
    /// - Throws: ``SimulationSettingsError`` naming the setting at fault; nothing is written then.
    package init(settings: SimulationSettings, udp: ClusterMaker? = nil) throws {
        var settings = settings
        if case .scripted(let file) = settings.scenario {
            // A scenario file's phones of a model of their own.
            settings.radio.deviceProfileOverrides.merge(file.deviceProfiles) { _, file in file }
        }
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
        let clocks = try DeviceRadio.room(count: peers, runSeed: settings.seed, configuration: settings.radio)
            .map(\.clock)
        self.clocks = clocks
        var sampling: [(clock: DeviceClock, syncOffset: Double)]?
        if settings.sensors == .samples {
            // A scenario file's own physics, where it gives any, over the settings'.
            var motion = settings.motion
            if case .scripted(let file) = settings.scenario, let own = file.motion { motion = own }
            try world.startSensing(clocks: clocks, seed: settings.seed, imu: settings.imu, motion: motion)
            // How far each phone's app's stamps are off the time its pairs agree on (`--clock-offset`).
            sampling = try (0..<settings.peerCount).map { d throws(GSLError) in
                let random = try RandomSource(runSeed: settings.seed,
                                              stream: StreamIdentity(kind: .clock, first: UInt64(d), second: 0))
                return (clocks[d], (random.uniform() - 0.5) * settings.clockOffset)
            }
        }
        planner = try settings.makePlanner(peers: peers)
        air = settings.makeAir()
        signals = BluetoothSignals(seed: settings.seed, settings: settings.bluetooth)
        phones = Phones(
            bump: settings.bump, haptics: settings.haptics,
            interests: settings.runsReferenceApp ? world.interests : nil, sampling: sampling,
            bluetooth: BluetoothDistances(referencePower: settings.bluetooth.referencePower,
                                          exponent: settings.bluetooth.exponent, smoothing: settings.bluetoothSmoothing,
                                          shadowingSigma: settings.bluetooth.shadowingSigma))
        airTally = AirTally(channels: settings.medium.channels)
        reach = DiscoveryReach(peers: peers, maximumSessions: settings.maximumSessions)
        runInfo = SimulationSummary.Run(settings: settings)
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
    package func observe(wanting detail: Detail = [], _ observer: @escaping @Sendable (RunEvent) -> Void) {
        observers.append((detail, observer))
        self.detail.formUnion(detail)
    }

    func emit(_ event: RunEvent) {
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
    package func run(progress: (@Sendable (Progress) -> Void)? = nil) async throws -> SimulationSummary {
        let started = Date()
        do {
            let cluster: any Cluster
            if let udp, settings.transport == .udp {
                cluster = try await udp(clusterSettings)
            } else {
                cluster = try InMemoryCluster(settings: clusterSettings, conditions: NetworkConditions(loss: settings.loss))
            }
            runsWorldAhead = cluster.isVirtual && settings.workers > 1
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
            // A run stopped between two rounds leaves the world running ahead: nothing reads it before it is back.
            _ = ahead?.finish()
            ahead = nil
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
    package func begin(conditions: NetworkConditions? = nil) throws -> InMemoryCluster {
        precondition(settings.transport == .memory, "a stepped run is in memory")
        let cluster = try InMemoryCluster(settings: clusterSettings,
                                          conditions: conditions ?? NetworkConditions(loss: settings.loss))
        _ = try setUp(cluster)
        return cluster
    }

    /// Who runs a ranging session with whom: fed from the discovery nodes' sessions, or, with
    /// ``SimulationSettings/appInTheLoop``, by the apps.
    package var runningSessions: RunningSessions { running }

    /// The world's truth: poses, contacts and near misses.
    package var truth: World { world }

    /// The engine, the observers and the rounds of a run on `cluster`, before its nodes start.
    private func setUp(_ cluster: any Cluster) throws -> RoundEngine {
        let engine = try RoundEngine(
            peerIDs: cluster.peerIDs.map(\.rawValue),
            settings: PairSettings(seed: settings.seed, radio: settings.radio, estimator: settings.tunedEstimator,
                                   bump: phones.bump, walls: world.walls, detectsBumps: phones.runsApp),
            workers: settings.workers, view: running)
        if let memory = cluster as? InMemoryCluster {
            // A large room's announcements are taken on as many threads as the rounds' pairs (the same outcome).
            memory.network.frameWorkers = settings.workers
            if settings.discoveryRange.isFinite {
                reach.limit(to: settings.discoveryRange, on: memory.network)
                reach.place(world.poses, sessions: running.snapshot(), at: 0)
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
        // Every discovery event is looked up here: a million in a 1,000-peer start.
        let devices = PeerIDIndex(cluster.peerIDs)
        let running = self.running
        let observers = self.observers
        let appInTheLoop = settings.appInTheLoop
        let inbox = phones.inbox
        @Sendable func emit(_ event: RunEvent) {
            for (_, observer) in observers { observer(event) }
        }
        cluster.monitor.observe { entry in
            let device = entry.node
            switch entry.event {
            case .found(let ad):
                guard let peer = devices.place(of: ad.peer) else { return }
                running.found(device, peer)
                emit(RunEvent(time: entry.time, kind: .found(device: device, peer: peer)))
            case .lost(let id, let reason):
                guard let peer = devices.place(of: id) else { return }
                emit(RunEvent(time: entry.time, kind: .lost(device: device, peer: peer, reason: reason)))
            case .session(let id, let event):
                guard let peer = devices.place(of: id) else { return }
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
                guard let peer = devices.place(of: id) else { return }
                inbox.receive(payload, from: peer, at: device, time: entry.time)
            case .data(let id, let kind, let payload):
                guard let peer = devices.place(of: id), kind == ReferenceApp.profileKind else { return }
                emit(RunEvent(time: entry.time, kind: .profile(device: device, peer: peer, bytes: payload.count)))
            }
        }
    }
}
