import DiscoveryRun
import Foundation
import Planning
import Sessions
import SimulatedNetwork
import Simulation

/// A room and its clock: each call ranges every pair once, a tenth of a second after the previous round.
public final class RoomState {
    /// Who ranges when (the run's `--ranging-policy`).
    public typealias Policy = RangingPolicy

    let room: RangingRoom
    private var time = 0.0

    /// - Parameter areaPerPeer: floor area per peer, m² (4 in the mingle hall; 0.01 puts everyone in a 6 m hall,
    ///   all within range of each other).
    /// - Parameter policy: who ranges when; `ideal` (every pair every round) measures the ranging pipeline itself.
    public init(peers: Int, workers: Int, areaPerPeer: Double = 4, policy: Policy = .ideal) throws {
        var settings = SimulationSettings()
        settings.mingle.areaPerPeer = areaPerPeer
        settings.rangingPolicy = policy
        room = try RangingRoom(peers: peers, workers: workers, settings: settings)
    }

    public func next() -> Int {
        time += 0.1
        return room.round(at: time)
    }

    /// Plans the next round without ranging it.
    public func nextPlan() -> Int {
        time += 0.1
        return room.plan(at: time)
    }
}

/// Discovery to a full mesh of running sessions on the in-memory network.
public func setUpSessions(peers: Int) throws -> Double {
    var settings = ClusterSettings()
    settings.peers = peers
    let cluster = try InMemoryCluster(settings: settings, conditions: NetworkConditions())
    cluster.run(until: 60, stopWhenConverged: true)
    guard let converged = cluster.monitor.convergedAt else { fatalError("the benchmark's group did not converge") }
    return converged
}

/// Inserts `peers` sessions, looks each up by peer and by both tokens, then replaces each with a new incarnation.
public func tableOperations(peers: Int) -> Int {
    var table = PeerSessionTableState(capacity: peers)
    var next: UInt64 = 0
    func token() -> DiscoveryToken {
        next += 1
        return DiscoveryToken(high: 0xA, low: next)
    }
    var found = 0
    for p in 0..<peers {
        _ = try? table.open(peer: PeerID(UInt64(p)), incarnation: 1, remoteToken: token(), time: 0, makeToken: token)
    }
    for p in 0..<peers {
        guard let entry = table.session(with: PeerID(UInt64(p))) else { continue }
        if table.peer(forLocalToken: entry.localToken) != nil { found += 1 }
        if let remote = entry.remoteToken, table.peer(forRemoteToken: remote) != nil { found += 1 }
    }
    for p in 0..<peers {
        _ = try? table.open(peer: PeerID(UInt64(p)), incarnation: 2, remoteToken: token(), time: 1, makeToken: token)
    }
    return found + table.count
}

/// One whole run in memory on the virtual clock: discovery, announcements, 10 Hz ranging, bumps and scoring.
public func wholeRun(peers: Int, seconds: Double) async throws -> Int {
    var settings = SimulationSettings()
    settings.peers = peers
    settings.duration = seconds
    settings.transport = .memory
    settings.clock = .virtual
    settings.workers = ProcessInfo.processInfo.activeProcessorCount
    return try await Simulation(settings: settings).run().ranging.updatesDelivered
}

