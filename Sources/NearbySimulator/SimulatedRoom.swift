import DeviceInterface
import DiscoveryRun
import Foundation
import GSL
import Planning
import Ranging
import Sessions
import Simulation
import SimulatedNetwork
import Synchronization
import World

/// What a room is: its crowd, its seed, its air, its network.
public struct RoomConfiguration: Sendable {
    /// Where the devices are and how they move.
    public enum Crowd: Sendable {
        /// People mingling in a hall (4 m² each), walking to the peers they share interests with and touching phones.
        case mingle
        /// People walking between random points.
        case randomWaypoint
        /// A scenario file (docs/scenario-format.md): its peers, waypoints and interests.
        case file(String)
        /// A crowd written in the test: devices placed and moved, walls, encounters (``RoomScript``).
        case script(RoomScript)
    }

    /// Who ranges when: docs/airtime.md.
    /// Who ranges when (docs/airtime.md): `proximity` (the command line's default: each phone's chip schedules its
    /// own sessions), `coordinated` (a room-wide slot map no phone has), `ideal`, `roundRobin`, `uncoordinated`, or
    /// `oracle` (an upper bound no phone reaches); one list with the command line's.
    public typealias Policy = RangingPolicy

    /// Devices in a generated crowd (2 to 1000); a file brings its own.
    public var peers = 20
    /// Where the devices are and how they move.
    public var crowd = Crowd.mingle
    /// The same seed gives the same room, event for event.
    public var seed: UInt64 = 1
    /// Who ranges when.
    public var policy = Policy.proximity
    /// Ranging sessions a device keeps active; the others are suspended and their apps told (`nil`: no limit).
    public var sessionsPerDevice: Int?
    /// UWB channels.
    public var channels = 1
    /// How much stronger a frame must arrive than the frames overlapping it to be received, dB (`nil`: no capture);
    /// docs/airtime.md, "Frames and capture".
    public var captureThreshold: Double? = 6
    /// What the network does to each datagram of discovery and data: loss, delay, duplication, reordering.
    public var network = NetworkConditions()
    /// Simulated seconds the room can be advanced to.
    public var horizon = 3600.0
    /// How devices come to be connected.
    public enum Connections: Sendable {
        /// Every found peer is invited (by the side with the lower peer id) and every invitation accepted, as the
        /// command line's nodes do.
        case automatic
        /// A device connects only to the peers its app invites (``SimulatedDevice/invite(_:)``) or whose
        /// invitation it accepts (``SimulatedDeviceDelegate/device(_:invitedBy:)``, ``SimulatedDevice/accept(_:)``).
        case byConsent
    }

    /// How devices come to be connected.
    public var connections = Connections.automatic
    /// Whether a device advertises and browses only once its app calls ``SimulatedDevice/startDiscovery()``; by
    /// default every device starts within the room's first half second, as people arriving do.
    public var discoveryStartsWithApp = false
    /// The radio's line-of-sight distance noise, metres (docs/radio-model.md); small values make a test about the
    /// app's logic rather than about the noise.
    public var lineOfSightSigma = 0.085
    /// The spread of each device's antenna-delay bias, metres.
    public var antennaDelaySigma = 0.06
    /// How much of the leading edge's bias with the received level the pairs show in line of sight (1: Decawave's
    /// measured table, 1 cm short near and up to 15 cm long far; 0: none), docs/radio-model.md.
    public var levelBias = 1.0
    /// Whether the people's bodies (and a scenario file's walls) obstruct the links between them, as they do
    /// (docs/radio-model.md); `false` keeps every link in line of sight, for a test about the app's logic. Distance
    /// and the phones' orientation weaken a link either way.
    public var obstructions = true

    /// Whether the command line's reference app (NearCatch's own logic: its fused bump detector, haptics and
    /// profiles) runs on every device beside your app, as the command line runs it: its bumps are in
    /// ``SimulatedRoom/referenceBumps``, and a pair it bumped is left alone for 2 s. Off by default: your app alone
    /// decides, and nothing of the reference app holds the air.
    public var referenceApp = false
    /// The platform whose motion sensors the phones have (docs/sensors.md): what rate and range it delivers, how
    /// its stamps and gaps come. The default, `.ios`, is the command line's.
    public var sensorProfile = SensorPlatform.ios
    /// The rate each phone's accelerometer and gyroscope sample its physical motion at (Hz, 1 to 800), over the
    /// profile's own: an app gets its device's samples (``SimulatedDevice/startAccelerometerUpdates(_:)``,
    /// ``SimulatedDevice/startGyroUpdates(_:)``), and the reference app, if it runs, finds its jolts in them
    /// (docs/sensors.md). `nil`, the default: the profile's.
    public var accelerometerRate: Double?

    /// A device's model (docs/radio-model.md, "Device profiles"): `generic` (the default, the radio of
    /// ``lineOfSightSigma``), `iphone`, `pixel`, `galaxy` or `dw3000`, each fitted to its published figures.
    public typealias DeviceModel = DeviceProfile
    /// Every device's model, unless ``deviceModels`` names its own.
    public var deviceModel = DeviceModel.generic
    /// Devices of a model of their own, by device index (0 to ``peers`` − 1): a mixed room. A scenario file's
    /// peers may name theirs too (`device`), which wins.
    public var deviceModels: [Int: DeviceModel] = [:]

    /// The defaults: 20 devices mingling, seed 1, `proximity` on one channel, no loss.
    public init() {}
}

/// A room of simulated devices on a virtual clock that a test advances: discovery, connections, data, and the
/// ranging of the sessions their apps run, with the command line's radio model, estimators, discovery state
/// machine and airtime policy (one implementation: this wraps `Simulation`).
///
/// A minute of 20 devices mingling takes well under a second, and the same configuration gives the same events.
/// Not `Sendable`: a test makes and advances a room from one task, and every delegate is called during
/// ``advance(by:)`` on its thread.
public final class SimulatedRoom {
    /// What the room was made with.
    public let configuration: RoomConfiguration
    /// Every device's present life, by index (a restart puts a new one in its place).
    public private(set) var devices: [SimulatedDevice] = []
    private let simulation: Simulation
    let cluster: InMemoryCluster
    private let router = Router()
    private var tokenCount: UInt64 = 0
    /// Every live session, by token, and every session made, in the order made (walked in that order, so that the
    /// apps hear the same events in the same order every run).
    private var sessionsByToken: [NearbyToken: NearbySession] = [:]
    private var sessionsMade: [NearbySession] = []
    /// The two sessions each ranging pair runs under, by pair index.
    private var pairSessions: [Int: (NearbySession, NearbySession)] = [:]
    var index: [PeerID: Int] = [:]
    private var eventObservers: [(Event) -> Void] = []
    /// The `.reliable` data between connected devices.
    var links = ReliableLinks()

    /// Builds the room; nothing happens before the first ``advance(by:)``.
    ///
    /// - Throws: ``SimulatorError`` naming the setting at fault (or the scenario file's problem).
    public init(_ configuration: RoomConfiguration = RoomConfiguration()) throws(SimulatorError) {
        self.configuration = configuration
        _ = PhoneMainActor.installed
        var s = SimulationSettings()
        s.transport = .memory
        s.clock = .virtual
        s.appInTheLoop = true
        s.connectsByConsent = configuration.connections == .byConsent
        s.discoveryStartsWithApp = configuration.discoveryStartsWithApp
        s.runsReferenceApp = configuration.referenceApp
        s.sensors = .samples
        s.sensorProfile = configuration.sensorProfile.profile
        if let rate = configuration.accelerometerRate { s.imu.rate = rate }
        // An app may start its gyroscope's updates at any time.
        s.imu.gyroscope = true
        s.peers = configuration.peers
        s.seed = configuration.seed
        s.duration = configuration.horizon
        s.workers = 1
        s.medium.channels = configuration.channels
        s.medium.captureThreshold = configuration.captureThreshold
        s.medium.sessionsPerDevice = configuration.sessionsPerDevice
        s.loss = configuration.network.loss
        s.radio.lineOfSightSigma = configuration.lineOfSightSigma
        s.radio.antennaDelaySigma = configuration.antennaDelaySigma
        s.radio.levelBiasShare = configuration.levelBias
        s.radio.linkModel = configuration.obstructions ? .geometry : .lineOfSight
        s.radio.deviceProfiles = [configuration.deviceModel]
        for (device, model) in configuration.deviceModels {
            guard device >= 0 else { throw SimulatorError("deviceModels: device \(device) is not a device index") }
            s.radio.deviceProfileOverrides[UInt64(device)] = model
        }
        s.rangingPolicy = configuration.policy
        do {
            switch configuration.crowd {
            case .mingle: s.scenario = .mingle
            case .randomWaypoint: s.scenario = .randomWaypoint
            case .file(let path): s.scenario = .scripted(try ScenarioFile.load(path: path))
            case .script(let script): s.scenario = .scripted(try script.scenario())
            }
            try configuration.network.validate()
            if let device = configuration.deviceModels.keys.sorted().last, device >= s.peerCount {
                throw SimulatorError("deviceModels: device \(device) is not in the room, whose devices are 0 to "
                    + "\(s.peerCount - 1)")
            }
            simulation = try Simulation(settings: s)
        } catch {
            throw SimulatorError(String(describing: error))
        }
        let router = self.router
        simulation.observe(wanting: [.updates]) { event in router.room?.handle(event) }
        simulation.sampleTap = { device, samples, turns in router.room?.sampled(samples, turns, by: device) }
        do {
            cluster = try simulation.begin(conditions: configuration.network)
        } catch {
            throw SimulatorError(String(describing: error))
        }
        router.room = self
        cluster.monitor.observe { entry in
            switch entry.event {
            case .data(let from, let kind, let payload):
                router.room?.received(kind: kind, payload: payload, by: entry.node, from: from)
            case .invited(let peer):
                router.room?.invited(entry.node, by: peer)
            default:
                return
            }
        }
        let interests = simulation.truth.interests
        for (i, id) in cluster.peerIDs.enumerated() {
            index[id] = i
            devices.append(SimulatedDevice(index: i, peerID: id, discoveryInfo: ["interests": interests[i].joined(separator: ",")],
                                           restarts: 0, room: self))
        }
    }

    /// Seconds on the room's clock: the world's time, which no device reads (each reads its own clock,
    /// ``SimulatedDevice/uptime``).
    public var now: Double { cluster.now }

    /// Hands a device's new accelerometer and gyroscope samples to its app, if it asked for them.
    private func sampled(_ samples: ArraySlice<AccelerometerSample>, _ turns: ArraySlice<GyroSample>, by device: Int) {
        let device = devices[device]
        if let handler = device.accelerometerHandler, !samples.isEmpty {
            device.perform {
                for sample in samples { handler(sample) }
            }
        }
        if let handler = device.gyroHandler, !turns.isEmpty {
            device.perform {
                for turn in turns { handler(turn) }
            }
        }
        guard !samples.isEmpty else { return }
        for observer in device.motionObservers {
            device.perform { observer.handler(samples, turns) }
        }
    }

    /// Runs `action` as `device`'s app when the room's clock reaches `time`, and every `interval` after, until
    /// the timer is cancelled or the device's life ends.
    func fire(_ timer: RoomTimer, on device: SimulatedDevice, at time: Double, repeating interval: Double?,
              _ action: @escaping () -> Void) {
        cluster.clock.schedule(at: time) { [weak self, weak device] in
            guard let self, let device, !device.isStopped, !timer.isCancelled else { return }
            device.perform(action)
            if let interval { self.fire(timer, on: device, at: time + interval, repeating: interval, action) }
        }
    }

    /// The rate every phone's accelerometer and gyroscope sample at, Hz.
    var sensorRate: Double { configuration.accelerometerRate ?? configuration.sensorProfile.profile.imu.rate }

    /// Device `index`'s clock reading at the room's time `time`.
    func uptime(of index: Int, at time: Double) -> Double {
        simulation.clocks[index].reading(at: time)
    }

    /// Runs the room for `seconds` more on its virtual clock; every delegate and sequence hears what happened.
    public func advance(by seconds: Double) {
        run(until: now + seconds)
    }

    /// Runs the room until `time` on its virtual clock (at most ``RoomConfiguration/horizon``).
    public func run(until time: Double) {
        AppProblems.began()
        defer { AppProblems.ended() }
        cluster.run(until: min(time, configuration.horizon))
        checkRunLoopTimers()
    }

    /// What the apps did that the room cannot run as a phone would (docs/app-testing.md, "The main queue, timers
    /// and tasks"), in the order it happened; each kind is also said on standard error the first time.
    public var appProblems: [AppProblem] { problems.withLock { $0 } }
    private let problems = Mutex<[AppProblem]>([])

    /// What apps did on no phone while a room advanced, in this process (an `NISession` made by work on the real
    /// main queue, say): no room can tell it was its own, so it is kept here.
    public static var problemsOnNoPhone: [AppProblem] { AppProblems.onNoPhone.withLock { $0 } }

    func record(_ problem: AppProblem) {
        problems.withLock { $0.append(problem) }
    }

    /// A `Timer` an app scheduled on this thread's run loop would fire on the wall clock, and only if something ran
    /// the loop: said once per room. (Looking runs the loop once without waiting: a timer already due fires here.)
    private func checkRunLoopTimers() {
        guard !toldRunLoopTimer, let next = RunLoop.current.limitDate(forMode: .default),
              next < Date.distantFuture else { return }
        toldRunLoopTimer = true
        AppProblems.report(AppProblem(kind: .runLoopTimer, device: nil, message: "a Timer was scheduled on the run "
            + "loop of the thread that advances the room (Timer.scheduledTimer, or RunLoop.current.add): it fires on "
            + "the wall clock, and only while something runs that loop, never on the room's clock. On a phone, use "
            + "DispatchQueue.main.asyncAfter(deadline:), which the room runs on its clock, or "
            + "SimulatedDevice.current?.schedule(after:repeating:_:) (docs/app-testing.md, \"The main queue, timers "
            + "and tasks\")"), in: self)
    }
    private var toldRunLoopTimer = false

    /// The true distance between two devices' UWB antennas now, metres: what a test compares the estimates with.
    public func trueDistance(_ a: SimulatedDevice, _ b: SimulatedDevice) -> Double {
        let poses = simulation.truth.poses
        return (poses[a.index].position - poses[b.index].position).length
    }

    /// A true touch: two phones' bodies touching, from `start` to `end` (`nil` while they still touch).
    public struct Touch: Sendable, Equatable {
        /// The two phones.
        public let a: PeerID
        public let b: PeerID
        /// When they began to touch, seconds on the room's clock.
        public let start: Double
        /// When they parted.
        public let end: Double?
    }

    /// A bump the reference app fired (``RoomConfiguration/referenceApp``): the pair, the initiator first (the lower
    /// peer id), and when, seconds on the room's clock.
    public struct ReferenceBump: Sendable, Equatable {
        public let initiator: PeerID
        public let responder: PeerID
        public let time: Double
    }

    /// Every bump the reference app fired so far (none unless ``RoomConfiguration/referenceApp``).
    public private(set) var referenceBumps: [ReferenceBump] = []

    /// Every touch so far, as the world's truth saw it (held at least 0.2 s: shorter ones are strangers' phones
    /// brushing): what a test compares the app's bumps with.
    public var trueTouches: [Touch] {
        simulation.truth.tracker.contacts.compactMap { c in
            guard (c.end ?? now) - c.start >= ContactTracker.minimumTouchDuration else { return nil }
            return Touch(a: devices[c.a].peerID, b: devices[c.b].peerID, start: c.start, end: c.end)
        }
    }

    // MARK: - Faults

    /// Stops a device now, with a goodbye its peers hear (`peerEnded`) or silently, as a crash or a dead battery
    /// would (`timeout`, once its peers stop hearing its announcements: 5 to 6 s with the default timing). Its life
    /// ends (``SimulatedDevice/isStopped``): its app is cut off and its sessions are invalidated. Stopping a life
    /// that has ended does nothing.
    public func stop(_ device: SimulatedDevice, goodbye: Bool) {
        guard !device.isStopped, devices[device.index] === device else { return }
        end(device)
        cluster.stop(device.index, goodbye: goodbye)
    }

    /// Restarts a phone (running or stopped) as a new life, its app starting afresh: same index and peer id, new
    /// discovery, nothing of the old app left (the old life is cut off as ``stop(_:goodbye:)`` cuts it off, without
    /// a goodbye). Its peers find it again and must replace their sessions with it.
    ///
    /// - Returns: the new life, also in ``devices``: put the new app on it.
    /// - Throws: ``SimulatorError`` when the discovery node cannot be built again.
    @discardableResult
    public func restart(_ device: SimulatedDevice) throws(SimulatorError) -> SimulatedDevice {
        let old = devices[device.index]
        if !old.isStopped { end(old) }
        do { try cluster.restart(device.index) } catch { throw SimulatorError(String(describing: error)) }
        let life = SimulatedDevice(index: old.index, peerID: old.peerID, discoveryInfo: old.discoveryInfo,
                                   restarts: old.restarts + 1, room: self)
        devices[device.index] = life
        return life
    }

    /// Ends a life: its app hears nothing more, its sessions are invalidated without a word to it, its data links
    /// are dropped.
    private func end(_ device: SimulatedDevice) {
        device.isStopped = true
        device.delegate = nil
        device.accelerometerHandler = nil
        device.gyroHandler = nil
        device.motionObservers = []
        for session in sessionsMade where session.owner === device {
            invalidate(session, error: SessionError(.sessionFailed, peer: session.peer ?? PeerID(0),
                                                    detail: "the device stopped"))
        }
        device.connectedPeers = []
        links.drop(device: device.index)
    }

    /// Hands `device`'s app data as if `peer` had sent it, whatever the network and the connections: a token
    /// from an unexpected peer, a message the app never asked for. A stopped life hears nothing.
    public func inject(_ data: [UInt8], to device: SimulatedDevice, from peer: PeerID) {
        guard !device.isStopped else { return }
        device.perform { device.delegate?.device(device, received: data, from: peer) }
    }

    // MARK: - For the devices and sessions

    func makeSession(on device: SimulatedDevice) -> NearbySession {
        tokenCount += 1
        var bytes: [UInt8] = []
        for part in 0..<2 as Range<UInt64> {
            let word = StreamIdentity(kind: .session, first: tokenCount, second: part).derivedSeed(from: configuration.seed)
            bytes += (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
        }
        let session = NearbySession(token: NearbyToken(data: bytes), owner: device, room: self)
        sessionsMade.append(session)
        if device.isStopped {
            invalidate(session, error: SessionError(.sessionFailed, peer: PeerID(0), detail: "the device stopped"))
        } else {
            sessionsByToken[session.discoveryToken] = session
        }
        return session
    }

    func run(_ session: NearbySession, with token: NearbyToken) {
        guard session.state != .invalidated else { return }
        guard let other = sessionsByToken[token], other.state != .invalidated, other.index != session.index else {
            invalidate(session, error: SessionError(.invalidConfiguration, peer: session.peer ?? PeerID(0),
                                                    detail: "the token \(token) is no live session's of another device"))
            return
        }
        if session.state == .running, session.peerToken == token { return }
        stopRanging(session)
        session.peerToken = token
        session.peer = other.device
        session.state = .running
        startRangingIfMutual(session)
    }

    func pause(_ session: NearbySession) {
        guard session.state == .running else { return }
        stopRanging(session)
        session.state = .paused
    }

    func invalidate(_ session: NearbySession, error: SessionError?) {
        guard session.state != .invalidated else { return }
        stopRanging(session)
        session.state = .invalidated
        sessionsByToken[session.discoveryToken] = nil
        let error = error ?? SessionError(.sessionFailed, peer: session.peer ?? PeerID(0),
                                          detail: "the app invalidated the session")
        session.invalidationError = error
        session.tell(.invalidated(error))
        session.continuation.finish()
    }

    /// A pair ranges while each side's session runs with the other's token: a new pair of sessions starts with
    /// fresh estimators (the engine sees a new session).
    private func startRangingIfMutual(_ session: NearbySession) {
        guard let token = session.peerToken, let other = sessionsByToken[token], other.state == .running,
              other.peerToken == session.discoveryToken else { return }
        let pair = pairKey(session.index, other.index)
        pairSessions[pair] = session.index < other.index ? (session, other) : (other, session)
        simulation.runningSessions.began(session.index, other.index)
        simulation.runningSessions.began(other.index, session.index)
    }

    private func stopRanging(_ session: NearbySession) {
        guard session.state == .running, let peer = session.peer, let j = index[peer] else { return }
        let pair = pairKey(session.index, j)
        guard let (a, b) = pairSessions[pair], a === session || b === session else { return }
        pairSessions[pair] = nil
        simulation.runningSessions.set(session.index, j, running: false)
        simulation.runningSessions.set(j, session.index, running: false)
    }

    /// Tells `device`'s running or paused sessions with `peer` that the peer is gone; they range no more.
    private func removeSessions(of device: Int, with peer: PeerID, reason: SessionRemovalReason) {
        for session in sessionsMade where session.index == device && session.peer == peer
            && (session.state == .running || session.state == .paused) {
            stopRanging(session)
            session.state = .idle
            session.tell(.removed(reason))
        }
    }

    /// The key of the pair of devices `i` and `j` (either order) in ``pairSessions``.
    private func pairKey(_ i: Int, _ j: Int) -> Int { min(i, j) * devices.count + max(i, j) }

    /// The session of `device` in the pair it ranges with `peer`.
    private func session(of device: Int, with peer: Int) -> NearbySession? {
        guard let (a, b) = pairSessions[pairKey(device, peer)] else { return nil }
        return a.index == device ? a : b
    }

    /// One event of the run, as the command line's trace writes it: what a test reads to follow a run (or logs to
    /// find what went wrong).
    public struct Event: Sendable, Equatable {
        /// Seconds on the room's clock.
        public let time: Double
        /// The event as a line of the trace: a JSON object with `t`, `type` (`found`, `lost`, `session`, `update`,
        /// `bump`, `contactStart`, `contactEnd`, `nearMiss`, `profile`, `haptic`, `air`) and the devices by index
        /// (docs/simulation.md, "The trace").
        public let line: String
    }

    /// Hands `handler` every event of the run from now on, in order, on the thread that advances the room (the
    /// updates of every ranging pair included; the poses left out).
    public func observe(_ handler: @escaping (Event) -> Void) {
        eventObservers.append(handler)
    }

    fileprivate func handle(_ event: RunEvent) {
        if !eventObservers.isEmpty, let line = event.traceLine {
            let e = Event(time: event.time, line: line)
            for observer in eventObservers { observer(e) }
        }
        switch event.kind {
        case .found(let d, let p):
            let device = devices[d], peer = devices[p]
            guard !device.isStopped else { return }
            device.perform { device.delegate?.device(device, found: peer.peerID, discoveryInfo: peer.discoveryInfo) }
        case .lost(let d, let p, let reason):
            let device = devices[d], peer = devices[p].peerID
            guard !device.isStopped else { return }
            disconnect(d, from: p)
            removeSessions(of: d, with: peer, reason: reason)
            device.perform { device.delegate?.device(device, lost: peer) }
        case .session(let d, let p, let sessionEvent, _):
            switch sessionEvent {
            case .began:
                let device = devices[d]
                guard !device.isStopped else { return }
                if device.connectedPeers.insert(devices[p].peerID).inserted {
                    links.connect(d, to: p, wait: firstWait)
                    device.perform { device.delegate?.device(device, connected: devices[p].peerID) }
                }
            case .didUpdate(let update): session(of: d, with: p)?.tell(.update(update))
            case .suspended: session(of: d, with: p)?.tell(.suspended)
            case .suspensionEnded: session(of: d, with: p)?.tell(.suspensionEnded)
            case .invalidated(let error) where error.code == .peerReplaced:
                // The peer came back as a new life: its app's sessions died with the old one, as a killed app's
                // do, and ours with it are removed as timed out.
                disconnect(d, from: p)
                removeSessions(of: d, with: devices[p].peerID, reason: .timeout)
            case .didRemove, .invalidated: disconnect(d, from: p)
            }
        case .bump(let d, let p, _, _):
            referenceBumps.append(ReferenceBump(initiator: devices[d].peerID, responder: devices[p].peerID,
                                                time: event.time))
        default:
            return
        }
    }

    func startDiscovery(_ device: SimulatedDevice) {
        cluster.startNode(device.index)
    }

    /// The app's consent to connect `device` with `peer`, given on the room's clock (not inside the node's own
    /// handling of a datagram, where the app may be when it accepts).
    func consent(_ device: SimulatedDevice, to peer: PeerID) {
        let cluster = self.cluster
        cluster.clock.schedule(at: cluster.now) {
            cluster.drivers[device.index].apply { $0.consent(to: peer, now: cluster.now) }
        }
    }

    fileprivate func invited(_ node: Int, by peer: PeerID) {
        let device = devices[node]
        guard !device.isStopped else { return }
        device.perform { device.delegate?.device(device, invitedBy: peer) }
    }

    /// The connection of `device` with `peer` ended: its data links go with it.
    private func disconnect(_ device: Int, from peer: Int) {
        let life = devices[device], id = devices[peer].peerID
        links.disconnect(device, from: peer)
        guard !life.isStopped, life.connectedPeers.remove(id) != nil else { return }
        life.perform { life.delegate?.device(life, disconnected: id) }
    }
}

/// Carries the room into the run's observers, which are `@Sendable`: in a stepped memory run every observer is
/// called on the thread that advances the room, the room's own.
private final class Router: @unchecked Sendable {
    weak var room: SimulatedRoom?
}
