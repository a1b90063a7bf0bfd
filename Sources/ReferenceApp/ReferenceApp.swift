import Bump
import DeviceInterface
import Foundation
import Sessions

/// NearCatch's own logic on one phone, as the command line's devices run it: the app on top of the phone's
/// discovery, session table and estimators. It sees only what its phone observes (the updates of its sessions, the
/// jolts its phone found, the jolts its peers sent it) and answers with what the phone does: the haptic it plays,
/// the jolts it sends, the profile it sends after a bump. Its updates are the `NearbyUpdate` values an app under
/// test receives in a `NearbySimulator` room, on the phone's own clock; there it runs only when a test asks for it
/// (`RoomConfiguration.referenceApp`). The room's phones together are ``Phones``; the app's bump detector runs in
/// each pair's slot of the round step for speed (docs/architecture.md).
package struct ReferenceApp {
    /// The application data kind of a profile.
    package static let profileKind: UInt8 = 1

    /// The phone's number in the room.
    package let device: Int
    /// The phone's profile, as it sends it after a bump.
    package let profile: [UInt8]
    private let haptics: HapticCurve
    /// The peer the phone plays its haptic for: the one it holds nearest, and when that estimate came.
    private var nearest: (peer: Int, distance: Float, time: Double) = (-1, .infinity, -Double.infinity)
    /// The knocks the phone felt and has yet to send to its peers, oldest first.
    private(set) var outbox: [Impact] = []
    /// The jolts the phone's peers sent it over the last seconds, as they arrived, and when the oldest of them
    /// became known: the list is reached to drop what is over 3 s old only when something is (reaching every list
    /// every round, for lists the round's engine may still share, copied them).
    package private(set) var heard: [HeardImpact] = []
    private var oldestHeard = Double.infinity
    /// The stamps of the phone's own jolts that made a bump, over the last seconds.
    private var bumpedOn: [Double] = []

    /// The app on phone `device`, named `peer-N` and publishing its interests.
    package init(device: Int, interests: [String], haptics: HapticCurve) {
        self.device = device
        self.haptics = haptics
        profile = Self.profile(name: "peer-\(device)", interests: interests)
    }

    /// The phone received `update` from `peer` (the value an app under test receives, stamped on the phone's own
    /// clock): the haptic intensity it plays (0 to 1), when `peer` is the one it holds nearest (the same peer again,
    /// a nearer one, or any after a second without word of the nearest); `nil` when it plays none for this update.
    package mutating func didUpdate(from peer: Int, _ update: NearbyUpdate) -> Float? {
        guard let distance = update.distance else { return nil }
        let time = update.timestamp
        let held = nearest
        guard held.peer == peer || distance < held.distance || time - held.time > 1 else { return nil }
        nearest = (peer, distance, time)
        return haptics.intensity(at: distance)
    }

    /// The pair's detector fired: the profile this phone sends `peer`.
    package func didBump(with peer: Int) -> AppMessage {
        AppMessage(from: device, to: peer, kind: Self.profileKind, payload: profile)
    }

    /// Whether the phone's jolt stamped `jolt` (on its own clock) made a bump in the last seconds up to `time`: a
    /// push touches one phone, so the app takes one bump for it, the first its pairs found whose peer no other
    /// that felt the push reads nearer (``Phones/take(_:initiator:responder:at:estimate:estimates:pairs:)``). A neighbour's
    /// phone tapping its own partner at the same instant matches the push too (docs/simulation.md).
    func hasBumped(on jolt: Double, at time: Double) -> Bool {
        bumpedOn.contains { $0 == jolt && $0 >= time - PhoneJolts.memory }
    }

    /// The phone's jolt stamped `jolt` made a bump at the run's `time`; stamps older than a jolt's memory go.
    mutating func bumped(on jolt: Double, at time: Double) {
        bumpedOn.removeAll { $0 < time - PhoneJolts.memory }
        bumpedOn.append(jolt)
    }

    /// The phone felt a knock that could be its side of a bump: it goes to the peers at the next round.
    mutating func felt(_ knock: Impact) {
        outbox.append(knock)
    }

    /// The knocks known by `time`, taken out of the outbox to be sent.
    mutating func takeDueKnocks(at time: Double) -> ArraySlice<Impact> {
        let due = outbox.prefix { $0.known <= time }
        outbox.removeFirst(due.count)
        return due
    }

    /// Jolts that arrived from the phone's peers.
    mutating func received(_ arrived: [HeardImpact]) {
        heard += arrived
        oldestHeard = arrived.reduce(oldestHeard) { min($0, $1.impact.known) }
    }

    /// Forgets the jolts heard before `time`.
    mutating func forgetHeard(before time: Double) {
        guard oldestHeard < time else { return }
        heard.removeAll { $0.impact.known < time }
        oldestHeard = heard.reduce(.infinity) { min($0, $1.impact.known) }
    }

    /// The profile as JSON with sorted keys. Printable ASCII with nothing to escape is written as it stands, as
    /// `JSONSerialization` writes it: its conversions and protocol look-ups took 150,000 instructions a phone.
    static func profile(name: String, interests: [String]) -> [UInt8] {
        let joined = interests.joined(separator: ",")
        func plain(_ s: String) -> Bool {
            s.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
                && $0 != UInt8(ascii: "/") }
        }
        if plain(name), plain(joined) {
            return Array("{\"interests\":\"\(joined)\",\"name\":\"\(name)\"}".utf8)
        }
        let object: [String: String] = ["name": name, "interests": joined]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map(Array.init) ?? []
    }
}
