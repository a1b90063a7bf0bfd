@testable import MultipeerConnectivity
import NearbySimulator
import Testing

/// The faces' messages between devices are input from outside: every kind round-trips, and anything cut short, of
/// an unknown kind, with a flag out of range or with bytes left over decodes to nothing, never a trap.
@Suite struct FaceMessageTests {
    static let messages: [FaceMessage] = [
        .advert(uid: 1 << 40 | 3, name: "ana's phone", serviceType: "nearcatch", info: ["interests": "film,jazz", "v": "2"]),
        .advert(uid: 9, name: "", serviceType: "x", info: nil),
        .unadvert(uid: 9, serviceType: "nearcatch"),
        .invite(id: 7, from: 1, name: "ana", session: 4, to: 2, context: [1, 2, 3]),
        .invite(id: 8, from: 1, name: "ana", session: 4, to: 2, context: nil),
        .answer(id: 7, accepted: true, session: 5, uid: 2, name: "ben"),
        .confirm(id: 7, session: 4),
        .data(toSession: 5, from: 1, payload: Array(0..<255)),
        .leave(toSession: 5, from: 1),
    ]

    @Test func everyKindRoundTrips() {
        for message in Self.messages { #expect(FaceMessage(message.bytes) == message, "\(message)") }
    }

    @Test func malformedMessagesDecodeToNothing() {
        var decoded = 0
        for message in Self.messages {
            let bytes = message.bytes
            for cut in 0..<bytes.count where FaceMessage(Array(bytes.prefix(cut))) != nil { decoded += 1 }
            #expect(FaceMessage(bytes + [0]) == nil)
        }
        #expect(decoded == 0)
        #expect(FaceMessage([0]) == nil && FaceMessage([8]) == nil && FaceMessage([]) == nil)
        // A flag out of range, and a length past the end.
        #expect(FaceMessage([4] + [UInt8](repeating: 0, count: 8) + [2] + [UInt8](repeating: 0, count: 24)) == nil)
        #expect(FaceMessage([6] + [UInt8](repeating: 0, count: 16) + [255, 255, 255, 255, 255, 255, 255, 127]) == nil)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0..<64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = FaceMessage(bytes)
        }
    }

    /// Garbage handed to a device running the faces is counted and dropped; the device goes on.
    @Test func garbageToAFaceIsCountedAndDropped() throws {
        var configuration = RoomConfiguration()
        configuration.peers = 2
        let room = try SimulatedRoom(configuration)
        let device = room.devices[0]
        let session = device.perform { MCSession(peer: MCPeerID(displayName: "a")) }
        let hub = try #require(session.hub)
        room.inject([99, 1, 2], to: device, from: room.devices[1].peerID)
        room.inject(FaceMessage.data(toSession: 12345, from: 1, payload: [1]).bytes, to: device, from: room.devices[1].peerID)
        #expect(hub.dropped == 2)
    }
}
