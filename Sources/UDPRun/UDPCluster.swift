import Discovery
import DiscoveryRun
import Foundation
import GSL
import MulticastTransport
import NIOCore
import NIOPosix
import Sessions
import Synchronization

/// N discovery nodes over real UDP multicast in this process, in real time: each node on one event loop of a
/// shared group (as many loops as cores), with its two sockets, its timers and its state confined there.
package final class UDPCluster: Cluster, Sendable {
    package let settings: ClusterSettings
    package let monitor: ClusterMonitor
    /// The run's time origin; every node's clock counts from it.
    package let origin: RunOrigin
    /// The nodes, each bound to its event loop.
    package let drivers: [NIOLoopBound<NodeDriver>]
    /// The peer id of each node, by index.
    package let peerIDs: [PeerID]
    private let group: MultiThreadedEventLoopGroup
    /// Each node's start, seconds after ``start()``.
    private let startDelays: [Double]
    /// The actions of ``repeatAt(rate:until:_:)``: run from ``advance(to:stop:)``, on the task that paces the run.
    private let repeating = Mutex<Repeating?>(nil)

    private struct Repeating {
        let rate: Double
        let last: Int
        var next: Int
        let action: @Sendable (Double) -> Void
    }

    private init(settings: ClusterSettings, monitor: ClusterMonitor, origin: RunOrigin,
                 drivers: [NIOLoopBound<NodeDriver>], peerIDs: [PeerID], group: MultiThreadedEventLoopGroup,
                 startDelays: [Double]) {
        self.startDelays = startDelays
        self.settings = settings
        self.monitor = monitor
        self.origin = origin
        self.drivers = drivers
        self.peerIDs = peerIDs
        self.group = group
    }

    /// Seconds since the origin.
    package var now: Double { Double((NIODeadline.now() - origin.deadline).nanoseconds) / 1e9 }

    /// Opens every node's sockets; the nodes start with ``start()``, once the monitor's observers are in place.
    ///
    /// - Parameter recordEvents: keep the ordered event log.
    /// - Throws: ``MulticastSetupError`` when the sockets cannot be set up; a GSL allocation failure.
    package static func open(
        settings: ClusterSettings, multicast: MulticastConfiguration, recordEvents: Bool = false
    ) async throws -> UDPCluster {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let monitor = ClusterMonitor(nodes: settings.peers, sessionsPerNode: settings.sessionsPerNode,
                                     recordsEvents: recordEvents)
        let origin = RunOrigin()
        // Incarnations grow with the wall clock, so a restarted process always outranks its earlier life.
        let incarnation = Incarnation(Date().timeIntervalSince1970 * 1e9)
        let multicast = multicast.sized(forPeers: settings.expectedPeers ?? settings.peers,
                                        burst: settings.timing.burstCount)
        var generator = SystemRandomNumberGenerator()
        var drivers: [NIOLoopBound<NodeDriver>] = []
        var peerIDs: [PeerID] = []
        let startDelays: [Double]
        do {
            let startTimes = try RandomSource(
                runSeed: settings.seed, stream: StreamIdentity(kind: .scenario, first: 0, second: 0))
            for i in 0..<settings.peers {
                let loop = group.next()
                let transport = try await UDPMulticastTransport.make(on: loop, configuration: multicast).get()
                let identity = NodeIdentity.random()
                let peer = identity.peer
                let jitterSeed: UInt64 = generator.next()
                let driver = try await loop.submit {
                    let configuration = DiscoveryNode.Configuration(
                        serviceType: settings.serviceType, identity: identity, incarnation: incarnation,
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
            startDelays = drivers.map { _ in startTimes.uniform() * settings.startSpread }
        } catch {
            _ = await Self.stopAll(drivers, goodbye: false)
            try? await group.shutdownGracefully()
            throw error
        }
        return UDPCluster(settings: settings, monitor: monitor, origin: origin, drivers: drivers, peerIDs: peerIDs,
                          group: group, startDelays: startDelays)
    }

    /// Stops every node (with a goodbye), closes the sockets and the event loops, and sums the nodes' counters.
    package func stop() async -> DiscoveryCounters {
        await stopCounting().counters
    }

    /// Stops as ``stop()`` does, and also returns the datagrams the kernel dropped at the nodes' full receive
    /// buffers, read from the sockets just before they close.
    package func stopCounting() async -> (counters: DiscoveryCounters, kernelDrops: Int) {
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

    /// Starts a cluster and runs discovery on it (``ClusterPacer/discover(_:duration:linger:step:started:progress:)``)
    /// until the group converges or `settings.duration` passes, then `linger` seconds more.
    ///
    /// - Parameter progress: told the seconds elapsed about twenty times a second.
    /// - Throws: ``MulticastSetupError`` when the sockets cannot be set up; a GSL allocation failure.
    package static func run(
        settings: ClusterSettings, multicast: MulticastConfiguration, linger: Double = 0,
        progress: (Double) -> Void = { _ in }
    ) async throws -> ClusterReport {
        let started = Date()
        let cluster = try await open(settings: settings, multicast: multicast)
        cluster.start()
        return await ClusterPacer.discover(cluster, duration: settings.duration, linger: linger, step: 0.05,
                                           started: started, progress: progress)
    }

    /// What a simulation over UDP starts its cluster with.
    package static func maker(multicast: MulticastConfiguration) -> @Sendable (ClusterSettings) async throws -> any Cluster {
        { settings in try await open(settings: settings, multicast: multicast) }
    }

    package var isVirtual: Bool { false }

    /// Starts the nodes, spread over `settings.startSpread` seconds, and the run's clock with them: opening the
    /// sockets of a large group takes a while, and that time is not the run's.
    package func start() {
        origin.reset()
        let start = origin.deadline
        for (driver, delay) in zip(drivers, startDelays) {
            driver.eventLoop.scheduleTask(deadline: start + .nanoseconds(Int64(delay * 1e9))) { driver.value.start() }
            Self.watchDrops(of: driver, every: Self.dropPollInterval)
        }
    }

    /// How often each node reads its sockets' drop counts.
    static let dropPollInterval = 0.5

    /// Tells the node, every `interval` seconds while it runs, how many datagrams its sockets dropped at full
    /// buffers (the kernel's count): a peer whose announcements were dropped is not silent (docs/discover.md).
    private static func watchDrops(of driver: NIOLoopBound<NodeDriver>, every interval: Double) {
        let loop = driver.eventLoop
        loop.scheduleRepeatedAsyncTask(initialDelay: .milliseconds(Int64(interval * 1000)),
                                       delay: .milliseconds(Int64(interval * 1000))) { _ in
            // Until the loops shut down: a node not started yet, or stopped, is told nothing.
            guard driver.value.isRunning, let udp = driver.value.transport as? UDPMulticastTransport else {
                return loop.makeSucceededVoidFuture()
            }
            return udp.kernelDrops().map { total in
                let now = driver.value.clock.now
                driver.value.apply { $0.noteReceiveDrops(total, now: now) }
            }
        }
    }

    package func repeatAt(rate: Double, until end: Double, _ action: @escaping (Double) -> Void) {
        // Called back only from `advance`, on the caller's task.
        nonisolated(unsafe) let action = action
        repeating.withLock {
            $0 = Repeating(rate: rate, last: Int((end * rate).rounded(.down)), next: 0, action: { action($0) })
        }
    }

    package func advance(to time: Double, stop: @escaping () -> Bool) async -> Double {
        while true {
            let due: (Double, @Sendable (Double) -> Void)? = repeating.withLock { r in
                guard let r, r.next <= r.last, Double(r.next) / r.rate <= time else { return nil }
                return (Double(r.next) / r.rate, r.action)
            }
            let target = due?.0 ?? time
            let wait = target - now
            do {
                if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
            } catch {
                return min(now, time)
            }
            if stop() { return min(now, time) }
            guard let (at, action) = due else { return time }
            action(at)
            repeating.withLock { $0?.next += 1 }
        }
    }

    package func send(from: Int, to: Int, kind: UInt8, payload: [UInt8]) {
        let driver = drivers[from]
        let peer = peerIDs[to]
        driver.eventLoop.execute { _ = driver.value.sendData(to: peer, kind: kind, payload: payload) }
    }

    /// The nodes say goodbye and their sockets close; the report counts the peers lost before this process's own
    /// nodes stop (their goodbyes to each other are not losses anyone saw).
    package func finish(wallSeconds: Double, interruptedAt: Double?) async -> ClusterReport {
        let elapsed = now
        let sessions = monitor.establishedSessions
        let lost = monitor.lostPeers
        let (counters, kernelDrops) = await stopCounting()
        return ClusterReport(
            transport: "udp", settings: settings, monitor: monitor, sessions: sessions, simulatedSeconds: elapsed,
            wallSeconds: wallSeconds,
            datagrams: DatagramCounts(counters, droppedByNetwork: 0, receiveQueueDrops: kernelDrops),
            lostPeers: lost, interruptedAt: interruptedAt)
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
