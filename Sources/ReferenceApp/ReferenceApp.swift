import Bump
import DeviceInterface
import Foundation
import Sessions

/// NearCatch's own logic, as the command line's devices run it: the app on top of the phone's discovery, session
/// table and estimators. It sees only what its devices observe and answers with what they do: the haptic each plays,
/// the profile each sends after a bump. Its updates are the `NearbyUpdate` values an app under test receives in a
/// `NearbySimulator` room, on each phone's own clock; there it runs only when a test asks for it
/// (`RoomConfiguration.referenceApp`). Its bump detector is `bump`, which the round step runs in each pair's slot
/// for speed (docs/architecture.md).
public struct ReferenceApp {
    /// The application data kind of a profile.
    public static let profileKind: UInt8 = 1

    /// The bump detector every pair runs, and the haptic curve.
    public let bump: BumpConfiguration
    public let haptics: HapticCurve
    /// Each device's profile, as it sends it after a bump.
    private let profiles: [[UInt8]]
    /// The peer each device plays its haptic for: the one it holds nearest, and when that estimate came.
    private var nearest: [(peer: Int, distance: Float, time: Double)]

    /// The app on `interests.count` devices, each named `peer-N` and publishing its interests.
    public init(interests: [[String]], bump: BumpConfiguration, haptics: HapticCurve) {
        self.bump = bump
        self.haptics = haptics
        profiles = interests.indices.map { Self.profile(name: "peer-\($0)", interests: interests[$0]) }
        nearest = Array(repeating: (-1, .infinity, -Double.infinity), count: interests.count)
    }

    /// Device `device` received `update` from `peer` (the value an app under test receives, stamped on the device's
    /// own clock): the haptic intensity it plays (0 to 1), when `peer` is the one it holds nearest (the same peer
    /// again, a nearer one, or any after a second without word of the nearest); `nil` when it plays none for this
    /// update.
    public mutating func didUpdate(device: Int, peer: Int, _ update: NearbyUpdate) -> Float? {
        guard let distance = update.distance else { return nil }
        let time = update.timestamp
        let held = nearest[device]
        guard held.peer == peer || distance < held.distance || time - held.time > 1 else { return nil }
        nearest[device] = (peer, distance, time)
        return haptics.intensity(at: distance)
    }

    /// The pair's detector fired: each side sends its profile to the other.
    public func didBump(initiator: Int, responder: Int) -> [AppMessage] {
        [AppMessage(from: initiator, to: responder, kind: Self.profileKind, payload: profiles[initiator]),
         AppMessage(from: responder, to: initiator, kind: Self.profileKind, payload: profiles[responder])]
    }

    private static func profile(name: String, interests: [String]) -> [UInt8] {
        let object: [String: String] = ["name": name, "interests": interests.joined(separator: ",")]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map(Array.init) ?? []
    }
}
