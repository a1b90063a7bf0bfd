import Discovery
import Foundation
import GSL
import MulticastTransport
import NIOCore
import NIOPosix
import Sessions
import Transport

/// N discovery nodes over real UDP multicast in this process, in real time: each node on one event loop of a
/// shared group (as many loops as cores), with its two sockets, its timers and its state confined there.
public final class UDPCluster: Sendable {
    /// How far a run has come, for a progress line.
    public struct Progress: Sendable {
        public let elapsed: Double
        public let sessions: Int
        public let expectedSessions: Int
    }

    public let settings: ClusterSettings
    public let monitor: ClusterMonitor
    /// The run's time origin; every node's clock counts from it.
    public let origin: NIODeadline
    /// The nodes, each bound to its event loop.
    public let drivers: [NIOLoopBound<NodeDriver>]
    /// The peer id of each node, by index.
    public let peerIDs: [PeerID]
    private let group: MultiThreadedEventLoopGroup

    private init(settings: ClusterSettings, monitor: ClusterMonitor, origin: NIODeadline,
                 drivers: [NIOLoopBound<NodeDriver>], peerIDs: [PeerID], group: MultiThreadedEventLoopGroup) {
        self.settings = settings
        self.monitor = monitor
        self.origin = origin
        self.drivers = drivers
        self.peerIDs = peerIDs
        self.group = group
    }

    /// Seconds since the origin.
    public var now: Double { Double((NIODeadline.now() - origin).nanoseconds) / 1e9 }

    /// Opens every node's sockets and starts the nodes over `settings.startSpread` seconds.
    ///
    /// - Parameter recordEvents: keep the ordered event log.
    /// - Throws: ``MulticastSetupError`` when the sockets cannot be set up; a GSL allocation failure.
    public static func start(
        settings: ClusterSettings, multicast: MulticastConfiguration, recordEvents: Bool = false
    ) async throws -> UDPCluster {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let monitor = ClusterMonitor(nodes: settings.peers, sessionsPerNode: settings.sessionsPerNode,
                                     recordsEvents: recordEvents)
        let origin = NIODeadline.now()
        // Incarnations grow with the wall clock, so a restarted process always outranks its earlier life.
        let incarnation = Incarnation(Date().timeIntervalSince1970 * 1e9)
        let multicast = multicast.sized(forPeers: settings.expectedPeers ?? settings.peers,
                                        burst: settings.timing.burstCount)
        var generator = SystemRandomNumberGenerator()
        var drivers: [NIOLoopBound<NodeDriver>] = []
        var peerIDs: [PeerID] = []
        do {
            let startTimes = try RandomSource(
                runSeed: settings.seed, stream: StreamIdentity(kind: .scenario, first: 0, second: 0))
            for i in 0..<settings.peers {
                let loop = group.next()
                let transport = try await UDPMulticastTransport.make(on: loop, configuration: multicast).get()
                let peer = PeerID(generator.next())
                let jitterSeed: UInt64 = generator.next()
                let driver = try await loop.submit {
                    let configuration = DiscoveryNode.Configuration(
                        serviceType: settings.serviceType, peer: peer, incarnation: incarnation,
                        displayName: "peer-\(i)", discoveryInfo: settings.discoveryInfo(i),
                        maximumSessions: settings.maximumSessions, timing: settings.timing,
                        expectedPeers: settings.sessionsPerNode, groupKey: settings.groupKey)
                    let node = try DiscoveryNode(
                        configuration: configuration, unicastPort: transport.value.unicastEndpoint.port,
                        tokens: SystemTokenSource(), random: RandomSource(seed: jitterSeed))
                    let driver = NodeDriver(
                        node: node, transport: transport.value, clock: EventLoopClock(loop: loop, origin: origin))
                    driver.receiveCost = settings.receiveCost
                    driver.onEvent = { [unowned driver] event, time in
                        monitor.record(event, node: i, established: driver.establishedSessions, time: time)
                    }
                    return NIOLoopBound(driver, eventLoop: loop)
                }.get()
                drivers.append(driver)
                peerIDs.append(peer)
            }
            for driver in drivers {
                let delay = TimeAmount.nanoseconds(Int64(startTimes.uniform() * settings.startSpread * 1e9))
                driver.eventLoop.scheduleTask(deadline: origin + delay) { driver.value.start() }
            }
        } catch {
            _ = await Self.stopAll(drivers, goodbye: false)
            try? await group.shutdownGracefully()
            throw error
        }
        return UDPCluster(settings: settings, monitor: monitor, origin: origin, drivers: drivers, peerIDs: peerIDs,
                          group: group)
    }

    /// Stops every node (with a goodbye), closes the sockets and the event loops, and sums the nodes' counters.
    public func stop() async -> DiscoveryCounters {
        await stopCounting().counters
    }

    /// Stops as ``stop()`` does, and also returns the datagrams the kernel dropped at the nodes' full receive
    /// buffers, read from the sockets just before they close.
    public func stopCounting() async -> (counters: DiscoveryCounters, kernelDrops: Int) {
        var drops = 0
        for driver in drivers {
            let future = driver.eventLoop.flatSubmit { () -> EventLoopFuture<Int> in
                guard let udp = driver.value.transport as? UDPMulticastTransport else {
                    return driver.eventLoop.makeSucceededFuture(0)
                }
                return udp.kernelDrops()
            }
            drops += (try? await future.get()) ?? 0
        }
        let counters = await Self.stopAll(drivers, goodbye: true)
        try? await group.shutdownGracefully()
        return (counters, drops)
    }

    /// Runs the nodes until the group converges or `settings.duration` passes, then for `linger` seconds more (so
    /// that peers in other processes converge too), then stops them with a goodbye.
    ///
    /// - Parameter progress: called about twenty times a second.
    /// - Throws: ``MulticastSetupError`` when the sockets cannot be set up; a GSL allocation failure.
    public static func run(
        settings: ClusterSettings, multicast: MulticastConfiguration, linger: Double = 0,
        progress: (@Sendable (Progress) -> Void)? = nil
    ) async throws -> ClusterReport {
        let wallStart = Date()
        let cluster = try await start(settings: settings, multicast: multicast)
        let expected = settings.peers * settings.sessionsPerNode
        // A cancelled task (a signal, for the command line) ends the wait or the lingering early: the nodes still say
        // goodbye, and the report says when it was cut short.
        var interruptedAt: Double?
        while cluster.monitor.convergedAt == nil {
            let elapsed = cluster.now
            progress?(Progress(elapsed: elapsed, sessions: cluster.monitor.establishedSessions,
                               expectedSessions: expected))
            if elapsed >= settings.duration { break }
            do {
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                interruptedAt = cluster.now
                break
            }
        }
        // Counted when the wait ends, before lingering: meanwhile other processes may stop and take their peers.
        let sessions = cluster.monitor.establishedSessions
        let elapsed = cluster.now
        if linger > 0, interruptedAt == nil {
            do {
                try await Task.sleep(for: .seconds(linger))
            } catch {
                interruptedAt = cluster.now
            }
        }
        // Before this process's own nodes stop: their goodbyes to each other are not losses anyone saw.
        let lost = cluster.monitor.lostPeers
        let (counters, kernelDrops) = await cluster.stopCounting()
        let converged = cluster.monitor.convergedAt
        return ClusterReport(
            transport: "udp", peers: settings.peers, expectedPeers: settings.expectedPeers ?? settings.peers,
            seed: settings.seed, converged: converged != nil, convergenceSeconds: converged, sessions: sessions,
            expectedSessions: expected, simulatedSeconds: elapsed, wallSeconds: Date().timeIntervalSince(wallStart),
            datagrams: DatagramCounts(counters, droppedByNetwork: 0, receiveQueueDrops: kernelDrops),
            events: cluster.monitor.eventCount, eventDigest: nil, lostPeers: lost,
            interruptedAt: interruptedAt, groupKey: settings.groupKey.name)
    }

    /// Stops every node on its own loop and sums their counters.
    private static func stopAll(_ drivers: [NIOLoopBound<NodeDriver>], goodbye: Bool) async -> DiscoveryCounters {
        var total = DiscoveryCounters()
        for driver in drivers {
            if let counters = try? await driver.eventLoop.submit({
                driver.value.stop(goodbye: goodbye)
                return driver.value.node.counters
            }).get() {
                total.add(counters)
            }
        }
        return total
    }
}
