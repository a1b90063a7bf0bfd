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
public enum UDPCluster {
    /// How far a run has come, for a progress line.
    public struct Progress: Sendable {
        public let elapsed: Double
        public let sessions: Int
        public let expectedSessions: Int
    }

    /// Runs the nodes until the group converges or `settings.duration` passes, then for `linger` seconds more (so
    /// that peers in other processes converge too), then stops them with a goodbye.
    ///
    /// - Parameter progress: called about ten times a second from a background task.
    /// - Throws: ``MulticastSetupError`` when the sockets cannot be set up; a GSL allocation failure.
    public static func run(
        settings: ClusterSettings, multicast: MulticastConfiguration, linger: Double = 0,
        progress: (@Sendable (Progress) -> Void)? = nil
    ) async throws -> ClusterReport {
        let wallStart = Date()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        do {
            let report = try await run(
                settings: settings, multicast: multicast, linger: linger, group: group, wallStart: wallStart,
                progress: progress)
            try await group.shutdownGracefully()
            return report
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private static func run(
        settings: ClusterSettings, multicast: MulticastConfiguration, linger: Double,
        group: MultiThreadedEventLoopGroup, wallStart: Date, progress: (@Sendable (Progress) -> Void)?
    ) async throws -> ClusterReport {
        let monitor = ClusterMonitor(nodes: settings.peers, sessionsPerNode: settings.sessionsPerNode,
                                     recordsEvents: false)
        let origin = NIODeadline.now()
        let startTimes = try RandomSource(runSeed: settings.seed, stream: StreamIdentity(kind: .scenario, first: 0, second: 0))
        // Incarnations grow with the wall clock, so a restarted process always outranks its earlier life.
        let incarnation = Incarnation(Date().timeIntervalSince1970 * 1e9)
        var generator = SystemRandomNumberGenerator()
        var drivers: [NIOLoopBound<NodeDriver>] = []
        do {
            for i in 0..<settings.peers {
                let loop = group.next()
                let transport = try await UDPMulticastTransport.make(on: loop, configuration: multicast).get()
                let peer = PeerID(generator.next())
                let jitterSeed: UInt64 = generator.next()
                let driver = try await loop.submit {
                    let configuration = DiscoveryNode.Configuration(
                        serviceType: settings.serviceType, peer: peer, incarnation: incarnation,
                        displayName: "peer-\(i)", discoveryInfo: settings.discoveryInfo(i),
                        maximumSessions: settings.maximumSessions, timing: settings.timing)
                    let node = try DiscoveryNode(
                        configuration: configuration, unicastPort: transport.value.unicastEndpoint.port,
                        tokens: SystemTokenSource(), random: RandomSource(seed: jitterSeed))
                    let driver = NodeDriver(
                        node: node, transport: transport.value, scheduler: EventLoopScheduler(loop: loop, origin: origin))
                    driver.onEvent = { [unowned driver] event, time in
                        monitor.record(event, node: i, established: driver.node.table.establishedCount, time: time)
                    }
                    return NIOLoopBound(driver, eventLoop: loop)
                }.get()
                drivers.append(driver)
            }
        } catch {
            await stopAll(drivers, goodbye: false)
            throw error
        }
        for driver in drivers {
            let delay = TimeAmount.nanoseconds(Int64(startTimes.uniform() * settings.startSpread * 1e9))
            driver.eventLoop.scheduleTask(deadline: origin + delay) { driver.value.start() }
        }

        let expected = settings.peers * settings.sessionsPerNode
        while monitor.convergedAt == nil {
            let elapsed = Double((NIODeadline.now() - origin).nanoseconds) / 1e9
            progress?(Progress(elapsed: elapsed, sessions: monitor.establishedSessions, expectedSessions: expected))
            if elapsed >= settings.duration { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        // Counted when the wait ends, before lingering: meanwhile other processes may stop and take their peers.
        let sessions = monitor.establishedSessions
        let elapsed = Double((NIODeadline.now() - origin).nanoseconds) / 1e9
        if linger > 0 { try await Task.sleep(for: .seconds(linger)) }
        let counters = await stopAll(drivers, goodbye: true)

        let converged = monitor.convergedAt
        return ClusterReport(
            transport: "udp", peers: settings.peers, expectedPeers: settings.expectedPeers ?? settings.peers,
            seed: settings.seed, converged: converged != nil, convergenceSeconds: converged, sessions: sessions,
            expectedSessions: expected, simulatedSeconds: elapsed, wallSeconds: Date().timeIntervalSince(wallStart),
            datagrams: DatagramCounts(counters, droppedByNetwork: 0), events: monitor.eventCount, eventDigest: nil)
    }

    /// Stops every node on its own loop and sums their counters.
    @discardableResult
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
