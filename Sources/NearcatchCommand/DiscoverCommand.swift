import ArgumentParser
import Discovery
import DiscoveryRun
import Foundation
import MulticastTransport
import SimulatedNetwork
import UDPRun

/// `nearcatch-sim discover`: runs N nodes and reports how long until every node holds a running session with every
/// other, with the datagram accounting.
package struct DiscoverCommand: AsyncParsableCommand, Sendable {
    package static let configuration = CommandConfiguration(
        commandName: "discover",
        abstract: "Run N discovery nodes and report the time until every pair holds a running session.",
        discussion: """
            Over UDP (the default) the nodes announce on a multicast group on the loopback interface, so nothing \
            leaves the machine; start several processes with the same --group and --expect-peers to make them \
            discover each other. In memory the run is deterministic: virtual time, seeded loss. Datagrams are \
            sealed under the group key (--group-key, --group-key-file or NEARCATCH_GROUP_KEY; the built-in \
            development key on loopback only: docs/security.md). The exit status is 0 when the group converged, 1 \
            when it did not within --duration, 130 or 143 when Ctrl-C or SIGTERM ended it (the nodes say goodbye \
            and the report so far is printed). Output fields: docs/discover.md.
            """
    )

    static let defaultGroup = "239.255.77.77:47677"

    @Option(parsing: .unconditional, help: "Nodes to run in this process (1 to 1000; at most 400 over UDP, where start bursts of larger groups keep two cores behind).")
    var peers: Int = 10

    @Option(parsing: .unconditional, help: "Seconds to wait for convergence before giving up (0.1 to 3600).")
    var duration: Double = 60

    @Option(name: .customLong("expect-peers"), parsing: .unconditional,
            help: "Peers in the whole group, counting other processes' (default: --peers).")
    var expectPeers: Int?

    @Option(parsing: .unconditional, help: "Seconds to keep running after convergence, so that other processes converge too (0 to 3600).")
    var linger: Double = 0

    @Option(name: .customLong("missed-announcements"), parsing: .unconditional,
            help: "A silent peer is lost after this many announcement periods (1 to 100).")
    var missedAnnouncements: Int = 5

    @OptionGroup var sessions: SessionLimitOptions

    @Option(name: .customLong("receive-cost"), parsing: .unconditional,
            help: "Seconds each node spends on every datagram it receives, as a slow host would (0 to 0.01): over UDP a busy wait on the node's event loop, in memory a modelled receive queue of --receive-queue datagrams.")
    var receiveCost: Double = 0

    @Option(name: .customLong("receive-queue"), parsing: .unconditional,
            help: "Datagrams a node's receive queue holds in memory with --receive-cost (1 to 1000000).")
    var receiveQueue: Int = 1000

    @Option(name: .customLong("send-budget"), parsing: .unconditional,
            help: "Invitations and solicits a node may send per second, a second's worth at once (1 to 1000000).")
    var sendBudget: Double = 500

    @OptionGroup var network: NetworkOptions

    package init() {}

    private var transport: NetworkOptions.TransportChoice { network.transport }

    package func validate() throws {
        try require(peers >= 1 && peers <= 1000, "--peers must be between 1 and 1000, got \(peers)")
        try require(transport == .memory || peers <= 400,
                  "--peers over UDP must be at most 400 (the start bursts of larger groups keep two cores behind; docs/discover.md), got \(peers)")
        try require(duration.isFinite && duration >= 0.1 && duration <= 3600,
                  "--duration must be between 0.1 and 3600 seconds, got \(duration)")
        if let expectPeers {
            try require(expectPeers >= peers && expectPeers <= 100_000,
                      "--expect-peers must be at least --peers (\(peers)) and at most 100000, got \(expectPeers)")
        }
        try require(linger.isFinite && linger >= 0 && linger <= 3600,
                  "--linger must be between 0 and 3600 seconds, got \(linger)")
        try require(missedAnnouncements >= 1 && missedAnnouncements <= 100,
                  "--missed-announcements must be between 1 and 100, got \(missedAnnouncements)")
        try require(receiveCost.isFinite && receiveCost >= 0 && receiveCost <= 0.01,
                  "--receive-cost must be between 0 and 0.01 seconds, got \(receiveCost)")
        try require(receiveQueue >= 1 && receiveQueue <= 1_000_000,
                  "--receive-queue must be between 1 and 1000000, got \(receiveQueue)")
        try require(sendBudget.isFinite && sendBudget >= 1 && sendBudget <= 1_000_000,
                  "--send-budget must be between 1 and 1000000 per second, got \(sendBudget)")
    }

    /// The run the flags describe (with the development key: ``execute(progress:)`` puts in the resolved one).
    package var settings: ClusterSettings {
        var s = ClusterSettings()
        s.peers = peers
        s.expectedPeers = expectPeers
        s.seed = network.seed
        s.duration = duration
        s.maximumSessions = sessions.maxSessions
        s.timing.missedAnnouncements = missedAnnouncements
        s.timing.sendBudget = sendBudget
        s.receiveCost = transport == .udp ? receiveCost : 0
        return s
    }

    /// Runs the nodes; `progress` receives a line now and then.
    package func execute(progress: (@Sendable (String) -> Void)? = nil) async throws -> ClusterReport {
        let started = Date()
        var settings = self.settings
        settings.groupKey = try network.groupKey()
        let cluster: any Cluster
        switch transport {
        case .memory:
            var conditions = NetworkConditions(loss: network.loss)
            conditions.receiveCost = receiveCost
            conditions.receiveQueue = receiveQueue
            cluster = try InMemoryCluster(settings: settings, conditions: conditions, recordEvents: true)
        case .udp:
            do {
                cluster = try await UDPCluster.open(
                    settings: settings, multicast: try network.multicast(defaultGroup: Self.defaultGroup))
            } catch let error as MulticastSetupError {
                throw NetworkOptions.validationError(error)
            }
        }
        cluster.start()
        let clock = cluster.isVirtual ? "virtual" : "real"
        let expected = peers * settings.sessionsPerNode
        return await ClusterPacer.discover(
            cluster, duration: duration, linger: transport == .udp ? linger : 0,
            step: cluster.isVirtual ? 1 : 0.05, started: started
        ) { reached in
            progress?(Self.progressLine(reached, cluster.monitor.establishedSessions, expected, clock: clock))
        }
    }

    static func progressLine(_ time: Double, _ sessions: Int, _ expected: Int, clock: String) -> String {
        String(format: "%6.1f s (%@): %d of %d sessions running", time, clock, sessions, expected)
    }

    /// The report in the chosen format.
    package func render(_ report: ClusterReport) throws -> String {
        switch network.format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            return String(decoding: try encoder.encode(report), as: UTF8.self)
        case .text:
            let via = transport == .udp
                ? "udp, group \(network.group ?? Self.defaultGroup) on \(network.interface)" : "memory, loss \(network.loss)"
            let key = report.groupKey == "development" ? "development key (loopback only)" : "key \(report.groupKey)"
            return report.text(heading: "discovery: \(peers) peers (\(via), \(key)), seed \(network.seed)")
        }
    }

    package func run() async throws {
        let showProgress = isatty(STDERR_FILENO) == 1
        let writeProgress: @Sendable (String) -> Void = { line in
            FileHandle.standardError.write(Data("\r\(line)\u{1B}[K".utf8))
        }
        let command = self
        let latest = LatestLine("no progress reported yet")
        var ended: ClusterReport?
        let signal = try await InterruptSignals.run(lastWords: { "discovery interrupted twice: " + latest.line }) {
            try await command.execute(progress: { line in
                latest.line = line
                if showProgress { writeProgress(line) }
            })
        } then: { report, _ in
            if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            print(try render(report))
            ended = report
        }
        guard let report = ended else { return }
        try InterruptSignals.exit(after: signal, at: report.interruptedAt,
                                  clock: transport == .memory ? "virtual" : "real")
        if !report.converged {
            FileHandle.standardError.write(Data(
                "error: the group did not converge within \(duration) s (\(report.sessions) of \(report.expectedSessions) sessions)\n".utf8))
            throw ExitCode.failure
        }
    }
}
