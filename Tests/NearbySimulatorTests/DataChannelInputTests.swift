@testable import NearbySimulator
import Testing

/// The data channel's datagrams are input from outside: short or malformed segments and acknowledgements are
/// counted and dropped, never a trap, and the channel goes on.
@Suite struct DataChannelInputTests {
    @Test func malformedDatagramsAreCountedAndDropped() throws {
        var configuration = RoomConfiguration()
        configuration.peers = 2
        let room = try SimulatedRoom(configuration)
        room.advance(by: 3)
        let (a, b) = (room.devices[0], room.devices[1])
        let from = a.peerID
        room.received(kind: ReliableLinks.segmentKind, payload: [1, 2, 3], by: 1, from: from)
        room.received(kind: ReliableLinks.segmentKind, payload: [0, 0, 0, 0, 0, 0, 0, 0, 7], by: 1, from: from)
        room.received(kind: ReliableLinks.ackKind, payload: [1], by: 1, from: from)
        room.received(kind: ReliableLinks.ackKind, payload: [UInt8](repeating: 0, count: 9), by: 1, from: from)
        #expect(room.dataCounters.malformed == 4)
        let listener = ReceivedCounter(b)
        try a.send([42], to: b.peerID)
        room.advance(by: 1)
        #expect(listener.received == [[42]])
    }
}

private final class ReceivedCounter: SimulatedDeviceDelegate {
    var received: [[UInt8]] = []

    init(_ device: SimulatedDevice) {
        device.delegate = self
    }

    func device(_ device: SimulatedDevice, received data: [UInt8], from peer: PeerID) { received.append(data) }
}
