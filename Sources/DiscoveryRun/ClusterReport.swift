import Discovery

/// The outcome of a discovery run. Field names are the JSON output's, and stable (docs/discover.md).
package struct ClusterReport: Sendable, Codable, Equatable {
    /// `udp` or `memory`.
    package var transport: String
    package var peers: Int
    package var expectedPeers: Int
    package var seed: UInt64
    /// Whether every node came to hold a running session with every other.
    package var converged: Bool
    /// Seconds from the first node's start until convergence.
    package var convergenceSeconds: Double?
    /// Running sessions held over all nodes when the wait ended (at convergence, or when the duration ran out),
    /// and how many convergence needs.
    package var sessions: Int
    package var expectedSessions: Int
    /// How long the wait for convergence lasted on the run's own clock (lingering not included), and the whole
    /// run on the wall.
    package var simulatedSeconds: Double
    package var wallSeconds: Double
    package var datagrams: DatagramCounts
    /// Events reported by the nodes, and a digest of their log when it was kept.
    package var events: Int
    package var eventDigest: String?
    /// Peers the nodes lost, by reason (`peerEnded`: a goodbye; `timeout`: silence), both listed.
    package var lostPeers: [String: Int]
    /// When a signal (SIGINT, SIGTERM) ended the run early, on the run's own clock; absent when it was not.
    package var interruptedAt: Double?
    /// The key the datagrams were sealed under: `development` (the built-in key, loopback only) or the given key's
    /// fingerprint (16 hexadecimal digits, which reveal nothing of the key).
    package var groupKey: String

    /// Datagrams sent per pair of peers: the protocol's cost of bringing a group together (announcements and
    /// goodbyes included). Over this run's share of the group's pairs: each of its nodes has `expectedPeers - 1`
    /// pairs, and a pair with a node of another process is half this run's, so the shares of all the processes of
    /// a group add up to its pairs, and their sends to its cost.
    package var datagramsPerPair: Double? {
        let pairs = Double(peers) * Double(max(expectedPeers, peers) - 1) / 2
        return pairs > 0 ? Double(datagrams.sentTotal) / pairs : nil
    }
}

/// Datagram accounting over all nodes.
package struct DatagramCounts: Sendable, Codable, Equatable {
    /// Sent, by message type (`announce`, `goodbye`, `invite`, `accept`, `decline`, `sessionData`).
    package var sent: [String: Int]
    package var sentTotal: Int
    package var received: Int
    /// Refused, by reason (docs/wire-format.md); every reason is listed, zeros included.
    package var refused: [String: Int]
    package var ownIgnored: Int
    package var otherServiceIgnored: Int
    package var awaitingDiscovery: Int
    package var discoveredByInvitation: Int
    package var discoveredBySolicit: Int
    package var retransmissions: Int
    /// Resends put off while their node was behind on its reading (the answer might have waited in its queue).
    package var resendsDeferredWhileBehind: Int
    package var unchangedAnnouncements: Int
    package var duplicates: Int
    package var deferredByBudget: Int
    package var heldForWindow: Int
    /// Peers found without a session and forgotten to keep the nodes' memory bounded (4,096 kept past the session
    /// table): ids that announced once and never answered, a member's flood of fake ids.
    package var strangersForgotten: Int
    /// Peers forgotten because another id was found at their address (one id an address).
    package var replacedAtAddress: Int
    /// Sessions that gave their place to a newcomer in a full table: with a peer not heard announcing over an
    /// interval, or silent for two of its periods.
    package var idleReleased: Int
    /// Peers found after their finder had joined, left to contact it (nothing is sent unprompted to a peer that has
    /// not shown it receives at its address).
    package var leftToContactUs: Int
    /// Unprompted contacts with peers that had not shown it, each earned by a group's worth of their announcements.
    package var probes: Int
    /// Deliveries the in-memory network dropped on purpose (`--loss`); 0 over UDP.
    package var droppedByNetwork: Int
    /// Datagrams that arrived at a full receive queue and were dropped before any node read them: over UDP, the
    /// kernel's count for the run's sockets (SO_MEMINFO's drops, the count SO_RXQ_OVFL reports); in memory, the
    /// overflows of the modelled receive queue (`NetworkConditions.receiveQueue`).
    package var receiveQueueDrops: Int

    package init(_ c: DiscoveryCounters, droppedByNetwork: Int, receiveQueueDrops: Int) {
        sent = Dictionary(uniqueKeysWithValues: WireType.allCases.map { ("\($0)", c.sent[$0, default: 0]) })
        sentTotal = c.sentTotal
        received = c.received
        refused = Dictionary(uniqueKeysWithValues: WireRefusal.allCases.map { ($0.rawValue, c.refused[$0, default: 0]) })
        ownIgnored = c.ownIgnored
        otherServiceIgnored = c.otherServiceIgnored
        awaitingDiscovery = c.awaitingDiscovery
        discoveredByInvitation = c.discoveredByInvitation
        discoveredBySolicit = c.discoveredBySolicit
        retransmissions = c.retransmissions
        resendsDeferredWhileBehind = c.resendsDeferredWhileBehind
        unchangedAnnouncements = c.unchangedAnnouncements
        duplicates = c.duplicates
        deferredByBudget = c.deferredByBudget
        heldForWindow = c.heldForWindow
        strangersForgotten = c.strangersForgotten
        replacedAtAddress = c.replacedAtAddress
        idleReleased = c.idleReleased
        leftToContactUs = c.leftToContactUs
        probes = c.probes
        self.droppedByNetwork = droppedByNetwork
        self.receiveQueueDrops = receiveQueueDrops
    }
}

extension ClusterReport {
    /// The report of a cluster run with `settings`, whose `monitor` watched it.
    ///
    /// - Parameters:
    ///   - sessions: running sessions when the wait ended; `simulatedSeconds`: when it ended, on the run's clock.
    ///   - lostPeers: the monitor's count, read before this process's own nodes stopped.
    package init(
        transport: String, settings: ClusterSettings, monitor: ClusterMonitor, sessions: Int,
        simulatedSeconds: Double, wallSeconds: Double, datagrams: DatagramCounts, lostPeers: [String: Int],
        interruptedAt: Double?
    ) {
        let converged = monitor.convergedAt
        self.init(
            transport: transport, peers: settings.peers, expectedPeers: settings.expectedPeers ?? settings.peers,
            seed: settings.seed, converged: converged != nil, convergenceSeconds: converged, sessions: sessions,
            expectedSessions: settings.peers * settings.sessionsPerNode, simulatedSeconds: simulatedSeconds,
            wallSeconds: wallSeconds, datagrams: datagrams, events: monitor.eventCount,
            eventDigest: monitor.recordsEvents ? monitor.logDigest : nil, lostPeers: lostPeers,
            interruptedAt: interruptedAt, groupKey: settings.groupKey.name)
    }
}
