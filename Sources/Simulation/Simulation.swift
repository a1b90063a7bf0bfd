import Bump
import Discovery
import DiscoveryRun
import Estimation
import Foundation
import GSL
import Geometry
import MulticastTransport
import NIOCore
import Radio
import Ranging
import Sessions
import Synchronization
import Transport
import World

/// A whole run: peers discover each other, open their sessions, range every pair of running sessions at the
/// configured rate, fire bumps, and every estimate is scored against the world's truth.
public final class Simulation {
    /// How far a run has come, for a progress line.
    public struct Progress: Sendable {
        public let simulated: Double
        public let duration: Double
        public let sessions: Int
        public let expectedSessions: Int
        public let bumps: Int
    }

    public let settings: SimulationSettings
    /// What the run is and the settings it uses, as the summary's `run` section and the trace's first line say.
    public let runInfo: SimulationSummary.Run
    private let world: World
    private let engine: RoundEngine
    private var planner: any RangingPlanner = EveryRunningPair()
    private var plan = RangingPlan()
    private let matrix: RunningSessions
    /// When each pair's updates last went into the trace.
    private var lastTraced: [Double] = []
    private let trace: TraceWriter?
    private let profiles = Tally()
    private var bumps: [RangingBump] = []
    private let peers: Int

    /// Prepares a run: checks the settings, builds the world and one slot per pair, and opens the trace.
    ///
    /// - Throws: ``SimulationSettingsError`` naming the setting at fault; nothing is written then.
    public init(settings: SimulationSettings) throws {
        try settings.validate()
        self.settings = settings
        peers = settings.peerCount
        world = try World(scenario: settings.scenario, peers: settings.peers, seed: settings.seed,
                          mingle: settings.mingle)
        matrix = RunningSessions(peers: peers)
        engine = try RoundEngine(
            peerIDs: (0..<peers).map(UInt64.init),
            settings: PairSettings(seed: settings.seed, radio: settings.radio, estimator: settings.tunedEstimator,
                                   bump: settings.bump),
            workers: settings.workers)
        lastTraced = Array(repeating: -.infinity, count: engine.pairs.count)
        trace = try settings.traceFile.map { file throws(SimulationSettingsError) in try TraceWriter(file: file) }
        runInfo = SimulationSummary.Run(
            peers: peers, scenario: settings.scenario.name, transport: settings.transport.rawValue,
            clock: settings.clock.rawValue, workers: engine.workers, seed: settings.seed, duration: settings.duration,
            rate: settings.rate, interruptedAt: nil, groupKey: settings.groupKey.name, version: settings.version,
            // The Float's decimal value, not its binary one (0.08, not 0.0799999982).
            loss: settings.loss, bumpDistance: Double(String(settings.bump.distance)) ?? Double(settings.bump.distance),
            lineOfSightSigma: settings.radio.lineOfSightSigma, antennaDelaySigma: settings.radio.antennaDelaySigma,
            link: settings.radio.linkModel.rawValue, traceUpdateInterval: settings.traceUpdateInterval)
    }

    private var clusterSettings: ClusterSettings {
        var s = ClusterSettings()
        s.peers = peers
        s.seed = settings.seed
        s.timing = settings.discoveryTiming
        s.maximumSessions = max(peers, 1)
        s.groupKey = settings.groupKey
        s.duration = settings.duration
        let interests = world.interests
        s.discoveryInfo = { ["interests": interests[$0].joined(separator: ",")] }
        return s
    }

    /// How a run's simulated time ended.
    private struct Outcome {
        var convergence: Double?
        /// Sessions running at the end.
        var sessions: Int
        /// The simulated time reached: the duration, or less when the run was cancelled.
        var reached: Double
        var cancelled: Bool
    }

    /// Runs to the end and scores the run. The trace is moved into place only when the run succeeds.
    ///
    /// Cancelling the task ends the run early and cleanly: the nodes say goodbye, the summary covers the simulated
    /// time reached (``SimulationSummary/Run/interruptedAt``), and the trace, incomplete, is not written.
    public func run(progress: (@Sendable (Progress) -> Void)? = nil) async throws -> SimulationSummary {
        let started = Date()
        do {
            let outcome: Outcome
            switch settings.transport {
            case .memory: outcome = try await runInMemory(progress: progress)
            case .udp: outcome = try await runOverUDP(progress: progress)
            }
            let summary = summarise(outcome, wall: Date().timeIntervalSince(started))
            if outcome.cancelled { trace?.abandon() } else { try trace?.finish() }
            return summary
        } catch {
            trace?.abandon()
            throw error
        }
    }

    // MARK: - Clocks and transports

    private func runInMemory(progress: (@Sendable (Progress) -> Void)?) async throws -> Outcome {
        let cluster = try InMemoryCluster(settings: clusterSettings, conditions: NetworkConditions(loss: settings.loss))
        let ids = (0..<peers).map(cluster.peerID(of:))
        watch(cluster.monitor, ids: ids)
        writeHeader(ids)
        let clock = cluster.clock
        let rounds = Int((settings.duration * settings.rate).rounded(.down))
        func schedule(_ k: Int) {
            guard k <= rounds else { return }
            clock.schedule(at: Double(k) / settings.rate) { [unowned self] in
                self.round(at: Double(k) / self.settings.rate) { a, b, payload in
                    cluster.drivers[a].sendData(to: ids[b], kind: 1, payload: payload)
                }
                schedule(k + 1)
            }
        }
        schedule(1)
        let wallStart = Date()
        var reached = 0.0
        var cancelled = false
        while reached < settings.duration, !cancelled {
            // Asked after every action, so that a signal during a large group's start is not kept waiting.
            reached = cluster.run(until: min(reached + 1, settings.duration)) { Task.isCancelled }
            cancelled = Task.isCancelled
            progress?(Progress(simulated: reached, duration: settings.duration, sessions: matrix.snapshot().count,
                               expectedSessions: peers * (peers - 1), bumps: bumps.count))
            if settings.clock == .real, !cancelled {
                let ahead = reached - Date().timeIntervalSince(wallStart)
                do {
                    if ahead > 0 { try await Task.sleep(for: .seconds(ahead)) }
                } catch {
                    cancelled = true
                }
            }
        }
        let sessions = matrix.snapshot().count
        if cancelled {
            // Said into the simulated network, which runs no further: kept so that the nodes end as they would.
            for driver in cluster.drivers { driver.stop(goodbye: true) }
        }
        return Outcome(convergence: cluster.monitor.convergedAt, sessions: sessions, reached: reached,
                       cancelled: cancelled)
    }

    /// The sessions are counted at the end of the simulated time, before the nodes say goodbye (which removes them).
    private func runOverUDP(progress: (@Sendable (Progress) -> Void)?) async throws -> Outcome {
        let cluster = try await UDPCluster.start(settings: clusterSettings, multicast: settings.multicast)
        watch(cluster.monitor, ids: cluster.peerIDs)
        writeHeader(cluster.peerIDs)
        let rounds = Int((settings.duration * settings.rate).rounded(.down))
        let ids = cluster.peerIDs
        var reached = 0.0
        var cancelled = false
        for k in 1...max(rounds, 1) {
            let time = Double(k) / settings.rate
            let wait = time - cluster.now
            do {
                if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
                try Task.checkCancellation()
            } catch {
                cancelled = true
                break
            }
            round(at: time) { a, b, payload in
                let driver = cluster.drivers[a]
                driver.eventLoop.execute { driver.value.sendData(to: ids[b], kind: 1, payload: payload) }
            }
            reached = time
            if k % max(Int(settings.rate), 1) == 0 {
                progress?(Progress(simulated: time, duration: settings.duration,
                                   sessions: matrix.snapshot().count, expectedSessions: peers * (peers - 1),
                                   bumps: bumps.count))
            }
        }
        let sessions = matrix.snapshot().count
        // Let the last profiles arrive before the nodes say goodbye (not when told to stop: then at once).
        if !cancelled { try? await Task.sleep(for: .milliseconds(100)) }
        _ = await cluster.stop()
        return Outcome(convergence: cluster.monitor.convergedAt, sessions: sessions, reached: reached,
                       cancelled: cancelled)
    }

    /// Keeps the session matrix and the trace in step with the nodes' events.
    private func watch(_ monitor: ClusterMonitor, ids: [PeerID]) {
        let index = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        let matrix = self.matrix
        let trace = self.trace
        let profiles = self.profiles
        monitor.observe { entry in
            let node = entry.node
            // The matrix and the tally are kept in every run; a line is made only for a trace (formatting the time
            // alone was a tenth of a 1,000-peer start).
            func write(_ line: (_ t: String) -> String) {
                trace?.write([line(TraceFormat.time(entry.time))])
            }
            switch entry.event {
            case .found(let ad):
                guard let peer = index[ad.peer] else { return }
                write { #"{"t":\#($0),"type":"found","node":\#(node),"peer":\#(peer)}"# }
            case .lost(let id, let reason):
                guard let peer = index[id] else { return }
                write { #"{"t":\#($0),"type":"lost","node":\#(node),"peer":\#(peer),"reason":"\#(reason.rawValue)"}"# }
            case .session(let id, let event):
                guard let peer = index[id] else { return }
                switch event {
                case .began: matrix.began(node, peer)
                case .suspensionEnded: matrix.set(node, peer, running: true)
                case .suspended, .didRemove, .invalidated: matrix.set(node, peer, running: false)
                case .didUpdate: return
                }
                write { t in
                    let name = switch event {
                    case .began: "began"
                    case .suspensionEnded: "suspensionEnded"
                    case .suspended: "suspended"
                    case .didRemove(let reason): "removed:\(reason.rawValue)"
                    case .invalidated(let error): "invalidated:\(error.code)"
                    case .didUpdate: "didUpdate"
                    }
                    return #"{"t":\#(t),"type":"session","node":\#(node),"peer":\#(peer),"event":"\#(name)"}"#
                }
            case .data(let id, let kind, let payload):
                guard let peer = index[id], kind == 1 else { return }
                profiles.increment()
                write { #"{"t":\#($0),"type":"profile","node":\#(node),"from":\#(peer),"bytes":\#(payload.count)}"# }
            }
        }
    }

    /// The trace's first line: what the run is, every setting it used but the worker count (the trace is the same
    /// whatever it is), and the peer id of every index. Encoded, not assembled, so that a scenario name with a quote
    /// in it still gives valid JSON.
    private func writeHeader(_ ids: [PeerID]) {
        guard let trace,
              let encoded = try? JSONEncoder().encode(runInfo),
              var run = try? JSONSerialization.jsonObject(with: encoded) as? [String: Any]
        else { return }
        run["workers"] = nil
        let header: [String: Any] = ["type": "run", "run": run, "peerIDs": ids.map(\.description)]
        guard let data = try? JSONSerialization.data(withJSONObject: header, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        trace.write([String(decoding: data, as: UTF8.self)])
    }

    // MARK: - One round

    /// Advances the world, ranges every pair of running sessions, and handles the bumps: each side sends its
    /// profile to the other over the transport, as the app does.
    private func round(at time: Double, sendProfile: (Int, Int, [UInt8]) -> Void) {
        // Mingling peers choose among the peers they hold sessions with, as of the round's start.
        let sessions = matrix.snapshot()
        world.knows = { i, j in sessions.holds(i, j) }
        let changes = world.advance(to: time)
        var lines: [String] = []
        if trace != nil {
            for change in changes {
                switch change {
                case .contactStarted(let c):
                    lines.append(#"{"t":\#(TraceFormat.time(c.start)),"type":"contact","a":\#(c.a),"b":\#(c.b),"event":"start"}"#)
                case .contactEnded(let c):
                    lines.append(#"{"t":\#(TraceFormat.time(c.end ?? time)),"type":"contact","a":\#(c.a),"b":\#(c.b),"event":"end","minimum":\#(TraceFormat.metres(c.minimumDistance))}"#)
                case .nearMiss(let m):
                    lines.append(#"{"t":\#(TraceFormat.time(m.time)),"type":"nearMiss","a":\#(m.a),"b":\#(m.b),"minimum":\#(TraceFormat.metres(m.minimumDistance))}"#)
                }
            }
        }
        let context = PlanningContext(time: time, interval: 1 / settings.rate, sessions: sessions, pairs: engine.pairs,
                                      poses: world.poses)
        plan.exchanges.removeAll(keepingCapacity: true)
        planner.plan(context, into: &plan)
        let result = engine.round(plan, poses: context.poses, sessions: sessions, record: trace != nil)
        if trace != nil {
            for x in result.exchanges {
                lines += exchangeLines(x, targets: world.partner(of:))
            }
        }
        for bump in result.bumps {
            bumps.append(bump)
            lines.append(#"{"t":\#(TraceFormat.time(time)),"type":"bump","a":\#(bump.initiator),"b":\#(bump.responder),"#
                + #""estimate":\#(TraceFormat.metres(bump.estimate)),"trueDistance":\#(TraceFormat.metres(bump.trueDistance))}"#)
            sendProfile(bump.initiator, bump.responder, profile(of: bump.initiator))
            sendProfile(bump.responder, bump.initiator, profile(of: bump.responder))
        }
        trace?.write(lines)
    }

    private func exchangeLines(_ x: RangingExchange, targets: (Int) -> Int?) -> [String] {
        var out: [String] = []
        let t = TraceFormat.time(x.time)
        let a = x.initiator, b = x.responder
        if targets(a) == b {
            out.append(#"{"t":\#(t),"type":"haptic","node":\#(a),"target":\#(b),"intensity":\#(String(format: "%.3f", settings.haptics.intensity(at: x.atInitiator.distance)))}"#)
        }
        if targets(b) == a {
            out.append(#"{"t":\#(t),"type":"haptic","node":\#(b),"target":\#(a),"intensity":\#(String(format: "%.3f", settings.haptics.intensity(at: x.atResponder.distance)))}"#)
        }
        if x.time - lastTraced[x.pair] >= settings.traceUpdateInterval - 1e-9 {
            lastTraced[x.pair] = x.time
            out.append(Self.updateLine(t, node: a, peer: b, x.atInitiator, truth: x.truth.distance))
            out.append(Self.updateLine(t, node: b, peer: a, x.atResponder, truth: x.truth.distance))
        }
        return out
    }

    private static func updateLine(_ t: String, node: Int, peer: Int, _ u: NearbyUpdate, truth: Double) -> String {
        #"{"t":\#(t),"type":"update","node":\#(node),"peer":\#(peer),"distance":\#(TraceFormat.metres(u.distance)),"#
            + #""direction":\#(TraceFormat.vector(u.direction)),"horizontalAngle":\#(TraceFormat.angle(u.horizontalAngle)),"#
            + #""vertical":"\#(u.verticalEstimate.rawValue)","trueDistance":\#(TraceFormat.metres(truth))}"#
    }

    private func profile(of peer: Int) -> [UInt8] {
        Array("{\"name\":\"peer-\(peer)\",\"interests\":\"\(world.interests[peer].joined(separator: ","))\"}".utf8)
    }

    // MARK: - Scoring

    private func summarise(_ outcome: Outcome, wall: Double) -> SimulationSummary {
        let convergence = outcome.convergence
        let sessions = outcome.sessions
        let end = outcome.cancelled ? outcome.reached : settings.duration
        let stats = engine.statistics
        func figures(_ squares: Double, _ count: Int, _ h: Histogram) -> SimulationSummary.ErrorFigures {
            SimulationSummary.ErrorFigures(
                rmse: count > 0 ? (squares / Double(count)).squareRoot() : nil, p50: h.quantile(0.5),
                p95: h.quantile(0.95), count: count)
        }
        let score = BumpScore(bumps: bumps, tracker: world.tracker, end: end)
        let directionTotal = Double(stats.updates)
        let memory = Self.peakMemoryMB()
        return SimulationSummary(
            run: {
                var run = runInfo
                run.interruptedAt = outcome.cancelled ? outcome.reached : nil
                return run
            }(),
            discovery: .init(convergenceSeconds: convergence, pairs: peers * (peers - 1) / 2,
                             sessions: sessions, expectedSessions: peers * (peers - 1)),
            ranging: .init(exchanges: stats.exchanges, received: stats.received, updatesDelivered: stats.updates),
            distanceRaw: figures(stats.rawSquares, stats.rawCount, stats.raw),
            distanceFiltered: figures(stats.filteredSquares, stats.filteredCount, stats.filtered),
            direction: .init(p50Degrees: stats.direction.quantile(0.5).map(Self.degrees(fromHalfChord:)),
                             p95Degrees: stats.direction.quantile(0.95).map(Self.degrees(fromHalfChord:)),
                             nilShare: directionTotal > 0 ? Double(stats.directionMissing) / directionTotal : 0),
            bumps: .init(
                fired: bumps.count, trueContacts: score.contacts, detected: score.detected,
                precision: bumps.isEmpty ? nil : Double(score.matchedBumps) / Double(bumps.count),
                recall: score.contacts == 0 ? nil : Double(score.detected) / Double(score.contacts),
                latencyP50: score.latency.quantile(0.5), latencyP95: score.latency.quantile(0.95),
                falseBumps: bumps.count - score.matchedBumps, falseOnNearMisses: score.falseOnNearMisses,
                nearMisses: world.tracker.nearMisses.count, brushes: score.brushes,
                profilesDelivered: profiles.value),
            performance: .init(wallSeconds: wall, updatesPerSecond: wall > 0 ? Double(stats.updates) / wall : 0,
                               realTimeFactor: wall > 0 ? end / wall : 0, peakMemoryMB: memory),
            traceLines: trace?.lineCount)
    }

    /// The angle between two unit vectors whose chord is twice `halfChord`: 2 asin(halfChord), in degrees.
    static func degrees(fromHalfChord halfChord: Double) -> Double {
        Angle.degrees(fromRadians: 2 * asin(min(halfChord, 1)))
    }

    static func peakMemoryMB() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    }
}

/// A count shared with the nodes' contexts.
final class Tally: Sendable {
    private let count = Mutex(0)

    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

