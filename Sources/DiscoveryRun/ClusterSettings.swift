import Discovery

/// What a discovery run starts: how many nodes, how they advertise, and for how long.
package struct ClusterSettings: Sendable {
    /// Nodes run by this process.
    package var peers: Int = 10
    /// Peers expected in the whole group, this process's and others'; a node has converged when it holds a running
    /// session with each of the others. Defaults to `peers`.
    package var expectedPeers: Int?
    /// The run seed (peer ids, tokens and jitter in memory; jitter and start times over UDP).
    package var seed: UInt64 = 1
    package var serviceType = "nearcatch"
    package var timing = DiscoveryTiming()
    /// The active-sessions limit of each node.
    package var maximumSessions = 1024
    /// The key the group's datagrams are sealed under; the development key unless one is given.
    package var groupKey: GroupKey = .development
    /// Nodes start at times spread uniformly over this many seconds, as people arriving do.
    package var startSpread: Double = 0.5
    /// Seconds a run may last before it gives up converging.
    package var duration: Double = 60
    /// Discovery info each node publishes, by node index.
    package var discoveryInfo: @Sendable (Int) -> [String: String] = { ["node": "\($0)"] }
    /// Over UDP, seconds each node's driver spends on every datagram before handling it (a busy wait on its event
    /// loop): a host slower than this one, for overload tests. In memory, `NetworkConditions.receiveCost` instead.
    package var receiveCost: Double = 0
    /// Whether the nodes connect only to the peers their apps consent to (the app-testing library), not to every
    /// peer they find.
    package var connectsByConsent = false
    /// Whether each node waits for ``InMemoryCluster/startNode(_:)`` (its app starting discovery) instead of
    /// starting by itself within `startSpread`.
    package var startsOnRequest = false

    /// How many peers each node is expected to find, to size its tables at start; by default all the others.
    /// Where discovery's radio reaches only part of a large hall, fewer: tables sized for 10,000 peers on each of
    /// 10,000 nodes would take gigabytes.
    package var expectedNeighbours: Int?

    package init() {}

    /// The number of sessions each node must hold to have converged.
    package var sessionsPerNode: Int { (expectedPeers ?? peers) - 1 }
}
