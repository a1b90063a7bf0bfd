import Discovery
import Foundation
import GSL
import Sessions
import SimulatedNetwork

/// N discovery nodes on an ``InMemoryNetwork`` under a ``VirtualClock``: a whole run on one clock, as fast as
/// the machine goes, and the same for the same seed (a large group's announcements are taken on the network's
/// ``InMemoryNetwork/frameWorkers``, with the same outcome).
package final class InMemoryCluster: Cluster {
    package let settings: ClusterSettings
    package let clock = VirtualClock()
    package let network: InMemoryNetwork
    package let monitor: ClusterMonitor
    package private(set) var drivers: [NodeDriver] = []
    private let random: RandomSource
    private var incarnations: [Incarnation]
    /// Each node's key pair, derived from the run's seed: a restarted node keeps its own (and so its peer id). They
    /// sign in-process (``NodeIdentity/Scheme/inProcess``): every node of the network is in this process.
    private let identities: [NodeIdentity]
    package let peerIDs: [PeerID]
    /// Whether the nodes seal what they send one another, as over a socket. By default they do not: every node of the
    /// room reads its peers' datagrams through their memos, and a room's invitations, answers, jolts and profiles
    /// go with their tag and signature in the memo alone (docs/security.md, "In one process"); group frames are
    /// sealed either way.
    package let sealsEverything: Bool

    /// Builds the nodes and schedules their starts; nothing runs before ``run(until:stopWhenConverged:)``.
    ///
    /// - Parameter recordEvents: keep the ordered event log (for determinism checks and traces).
    package init(settings: ClusterSettings, conditions: NetworkConditions, recordEvents: Bool = false,
                 sealsEverything: Bool = false) throws {
        self.settings = settings
        self.sealsEverything = sealsEverything
        network = try InMemoryNetwork(clock: clock, conditions: conditions, seed: settings.seed)
        network.frameCopies = { [groupKey = settings.groupKey] datagram, count in
            DiscoveryNode.frameCopies(of: datagram, key: groupKey, count: count)
        }
        monitor = ClusterMonitor(nodes: settings.peers, sessionsPerNode: settings.sessionsPerNode,
                                 recordsEvents: recordEvents)
        random = try RandomSource(runSeed: settings.seed, stream: StreamIdentity(kind: .scenario, first: 0, second: 0))
        var keys: [NodeIdentity] = []
        var seen = Set<PeerID>()
        for i in 0..<settings.peers {
            // Ids are 64 bits of a key's hash: two alike in a room would take about 2^32 nodes; a later
            // derivation stands in for one all the same.
            var derivation = UInt64(i)
            var identity = NodeIdentity.derived(from: settings.seed, index: derivation, scheme: .inProcess)
            while seen.contains(identity.peer) {
                derivation += 1 << 32
                identity = NodeIdentity.derived(from: settings.seed, index: derivation, scheme: .inProcess)
            }
            seen.insert(identity.peer)
            keys.append(identity)
        }
        identities = keys
        peerIDs = keys.map(\.peer)
        incarnations = Array(repeating: 1, count: settings.peers)
        for i in 0..<settings.peers {
            drivers.append(try makeDriver(i))
            // Drawn even when the app starts the node, so that the stream's later draws stay the same.
            let startAt = random.uniform() * settings.startSpread
            if settings.startsOnRequest { continue }
            clock.schedule(at: startAt) { [unowned self] in self.drivers[i].start() }
        }
    }

    private func makeDriver(_ i: Int) throws -> NodeDriver {
        let transport = network.attach()
        var configuration = DiscoveryNode.Configuration(
            serviceType: settings.serviceType, identity: identities[i], incarnation: incarnations[i],
            displayName: "peer-\(i)", discoveryInfo: settings.discoveryInfo(i),
            maximumSessions: settings.maximumSessions, timing: settings.timing,
            expectedPeers: min(settings.expectedNeighbours ?? settings.sessionsPerNode, settings.sessionsPerNode),
            groupKey: settings.groupKey)
        configuration.connectsByConsent = settings.connectsByConsent
        let streamKey = UInt64(i) << 16 | incarnations[i]
        let node = try DiscoveryNode(
            configuration: configuration, unicastPort: transport.unicastEndpoint.port,
            tokens: SeededTokenSource(random: RandomSource(
                runSeed: settings.seed, stream: StreamIdentity(kind: .token, first: streamKey, second: 0))),
            random: RandomSource(runSeed: settings.seed, stream: StreamIdentity(kind: .discovery, first: streamKey, second: 0)))
        let driver = NodeDriver(node: node, transport: transport, clock: clock, inProcessRoom: !sealsEverything)
        let monitor = self.monitor
        driver.onEvent = { [unowned driver] event, time in
            monitor.record(event, node: i, established: driver.establishedSessions, time: time)
        }
        return driver
    }

    /// The peer id of node `index`.
    package func peerID(of index: Int) -> PeerID { peerIDs[index] }

    /// Runs the world until `deadline` (virtual seconds), or until convergence when asked.
    ///
    /// - Returns: the virtual time reached.
    /// - Parameter stop: asked after every action; `true` ends the run there (a signal to stop, for example).
    @discardableResult
    package func run(until deadline: Double, stopWhenConverged: Bool = false, stop: () -> Bool = { false }) -> Double {
        clock.run(until: deadline) { (stopWhenConverged && monitor.convergedAt != nil) || stop() }
    }

    /// Starts node `index` now, on the cluster's clock (with ``ClusterSettings/startsOnRequest``); a running node
    /// stays as it is.
    package func startNode(_ index: Int) {
        clock.schedule(at: clock.now) { [unowned self] in
            if !self.drivers[index].isRunning { self.drivers[index].start() }
        }
    }

    /// Stops node `index` now: with a goodbye, or silently (as a crash or a dead battery would).
    package func stop(_ index: Int, goodbye: Bool) {
        drivers[index].stop(goodbye: goodbye)
    }

    /// Starts node `index` again as a new incarnation: same peer id, new tokens, new address.
    package func restart(_ index: Int) throws {
        drivers[index].stop(goodbye: false)
        incarnations[index] += 1
        drivers[index] = try makeDriver(index)
        drivers[index].start()
    }

    package var isVirtual: Bool { true }

    package var now: Double { clock.now }

    package func start() {}

    package func repeatAt(rate: Double, until end: Double, _ action: @escaping (Double) -> Void) {
        let last = Int((end * rate).rounded(.down))
        func schedule(_ k: Int) {
            guard k <= last else { return }
            let time = Double(k) / rate
            clock.schedule(at: time) {
                action(time)
                schedule(k + 1)
            }
        }
        schedule(0)
    }

    package func advance(to time: Double, stop: @escaping () -> Bool) async -> Double {
        run(until: time, stop: stop)
    }

    package func send(from: Int, to: Int, kind: UInt8, payload: [UInt8]) {
        _ = drivers[from].sendData(to: peerIDs[to], kind: kind, payload: payload)
    }

    package func finish(wallSeconds: Double, interruptedAt: Double?) async -> ClusterReport {
        if interruptedAt != nil {
            // Said into the simulated network, which runs no further: kept so that the nodes end as they would.
            for driver in drivers { driver.stop(goodbye: true) }
        }
        return report(wallSeconds: wallSeconds, interruptedAt: interruptedAt)
    }

    /// The counters and outcome so far.
    ///
    /// - Parameter interruptedAt: when a signal ended the run early, on its virtual clock.
    package func report(wallSeconds: Double, interruptedAt: Double? = nil) -> ClusterReport {
        var counters = DiscoveryCounters()
        for driver in drivers { counters.add(driver.node.counters) }
        return ClusterReport(
            transport: "memory", settings: settings, monitor: monitor, sessions: monitor.establishedSessions,
            simulatedSeconds: clock.now, wallSeconds: wallSeconds,
            datagrams: DatagramCounts(counters, droppedByNetwork: network.dropped, receiveQueueDrops: network.queueDrops),
            lostPeers: monitor.lostPeers, interruptedAt: interruptedAt)
    }
}
