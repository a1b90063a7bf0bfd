import Foundation
import NearbySimulator
import NearCatchApp
import SessionManager

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
