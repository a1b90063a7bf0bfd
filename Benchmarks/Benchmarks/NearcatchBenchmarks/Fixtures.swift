import DiscoveryRun
import Estimation
import Foundation
import GSL
import NearbySimulator
import NearCatchApp
import SessionManager
import Geometry
import Radio
import Sessions
import RangingBench
import Simulation
import SimulatedNetwork

/// A room and its clock: each call ranges every pair once, a tenth of a second after the previous round.
final class RoomState {
    let room: RangingRoom
    private var time = 0.0

    /// - Parameter areaPerPeer: floor area per peer, m² (4 in the mingle hall; 0.01 puts everyone in a 6 m hall,
    ///   all within range of each other).
    /// - Parameter policy: who ranges when; `ideal` (every pair every round) measures the ranging pipeline itself.
    init(peers: Int, workers: Int, areaPerPeer: Double = 4, policy: SimulationSettings.RangingPolicy = .ideal) throws {
        var settings = SimulationSettings()
        settings.mingle.areaPerPeer = areaPerPeer
        settings.rangingPolicy = policy
        room = try RangingRoom(peers: peers, workers: workers, settings: settings)
    }

    func next() -> Int {
        time += 0.1
        return room.round(at: time)
    }

    /// Plans the next round without ranging it.
    func nextPlan() -> Int {
        time += 0.1
        return room.plan(at: time)
    }
}

/// Discovery to a full mesh of running sessions on the in-memory network.
func setUpSessions(peers: Int) throws -> Double {
    var settings = ClusterSettings()
    settings.peers = peers
    let cluster = try InMemoryCluster(settings: settings, conditions: NetworkConditions())
    cluster.run(until: 60, stopWhenConverged: true)
    guard let converged = cluster.monitor.convergedAt else { fatalError("the benchmark's group did not converge") }
    return converged
}

/// Inserts `peers` sessions, looks each up by peer and by both tokens, then replaces each with a new incarnation.
func tableOperations(peers: Int) -> Int {
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
func wholeRun(peers: Int, seconds: Double) async throws -> Int {
    var settings = SimulationSettings()
    settings.peers = peers
    settings.duration = seconds
    settings.transport = .memory
    settings.clock = .virtual
    settings.workers = ProcessInfo.processInfo.activeProcessorCount
    return try await Simulation(settings: settings).run().ranging.updatesDelivered
}

/// An app test's room (docs/app-testing.md): `devices` devices mingling for `seconds` on the virtual clock, each
/// running the example app's session manager (connections, token exchange, one session per peer, bumps).
///
/// - Returns: the peers with an estimate, summed over the apps.
func appRoom(devices: Int, seconds: Double) throws -> Int {
    var configuration = RoomConfiguration()
    configuration.peers = devices
    let room = try SimulatedRoom(configuration)
    let apps = room.devices.map { SessionManager(device: $0, profile: Array("user \($0.index)".utf8)) }
    room.advance(by: seconds)
    return apps.map(\.latest.count).reduce(0, +)
}

/// The same through Apple's frameworks' faces (docs/app-testing.md): `devices` devices mingling for `seconds`, each
/// running examples/nearcatch-app's session manager, written against MultipeerConnectivity and NearbyInteraction.
///
/// - Returns: the peers with a distance, summed over the apps.
func appleFacesRoom(devices: Int, seconds: Double) throws -> Int {
    var configuration = RoomConfiguration()
    configuration.peers = devices
    let room = try SimulatedRoom(configuration)
    let apps = room.devices.map { device in
        device.perform {
            NearCatchSessionManager(displayName: "phone-\(device.index)",
                                    interests: Set((device.discoveryInfo["interests"] ?? "").split(separator: ",").map(String.init)),
                                    profile: Data("user \(device.index)".utf8))
        }
    }
    room.advance(by: seconds)
    return apps.map(\.distances.count).reduce(0, +)
}
