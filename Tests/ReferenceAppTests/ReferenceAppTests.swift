import Bump
import Foundation
import ReferenceApp
import Sessions
import Testing

@Suite struct ReferenceAppTests {
    /// An update as a device receives it, `time` on its own clock.
    private func update(_ distance: Float?, at time: Double) -> NearbyUpdate {
        NearbyUpdate(distance: distance, direction: nil, horizontalAngle: nil, verticalEstimate: .unknown, timestamp: time)
    }

    private static func app() -> ReferenceApp {
        ReferenceApp(interests: [["music"], ["books", "chess"], []], bump: BumpConfiguration(), haptics: HapticCurve())
    }

    /// The haptic follows the peer a device holds nearest: a farther peer is ignored while the nearest is heard
    /// within a second, taken after; a nearer one at once. Out of range, nothing plays.
    @Test func theHapticFollowsTheNearestPeer() {
        var app = Self.app()
        let curve = HapticCurve()
        #expect(app.didUpdate(device: 0, peer: 1, update(0.5, at: 1.0)) == curve.intensity(at: 0.5))
        #expect(app.didUpdate(device: 0, peer: 2, update(0.9, at: 1.5)) == nil)
        #expect(app.didUpdate(device: 0, peer: 1, update(0.6, at: 1.6)) == curve.intensity(at: 0.6))
        #expect(app.didUpdate(device: 0, peer: 2, update(0.9, at: 2.7)) == curve.intensity(at: 0.9))
        #expect(app.didUpdate(device: 0, peer: 1, update(0.3, at: 2.8)) == curve.intensity(at: 0.3))
        #expect(app.didUpdate(device: 0, peer: 2, update(nil, at: 2.9)) == nil)
        // Another device holds its own nearest.
        #expect(app.didUpdate(device: 1, peer: 2, update(1.2, at: 2.9)) == curve.intensity(at: 1.2))
        #expect(curve.intensity(at: 0.3) > curve.intensity(at: 0.6) && curve.intensity(at: 0.6) > 0)
    }

    /// A bump sends each side's profile to the other: its name and interests, as JSON, of the profile kind.
    @Test func aBumpSendsBothProfiles() throws {
        let messages = Self.app().didBump(initiator: 0, responder: 1)
        #expect(messages.map { [$0.from, $0.to] } == [[0, 1], [1, 0]])
        #expect(messages.allSatisfy { $0.kind == ReferenceApp.profileKind })
        let second = try #require(try JSONSerialization.jsonObject(with: Data(messages[1].payload)) as? [String: String])
        #expect(second == ["name": "peer-1", "interests": "books,chess"])
    }
}
