import Testing
import UCI

@Suite struct UCIPacketTests {
    /// The header's bit layout: message type in the top 3 bits, the boundary flag, then the group; the opcode in
    /// the second byte; a control packet's length in the fourth, a data packet's in the third and fourth.
    @Test func headersAreLaidOutAsUCISays() {
        let reset = UCIMessage(type: .command, group: 0, opcode: 0, payload: [0])
        #expect(reset.packets == [[0x20, 0x00, 0x00, 0x01, 0x00]])
        let status = UCIMessage(type: .notification, group: 1, opcode: 2, payload: [1, 0, 0, 0, 3, 0])
        #expect(status.packets == [[0x61, 0x02, 0x00, 0x06, 1, 0, 0, 0, 3, 0]])
        let data = UCIMessage(type: .data, group: 2, opcode: 9, payload: Array(repeating: 7, count: 300))
        #expect(data.packets.count == 1 && Array(data.packets[0].prefix(4)) == [0x02, 0x00, 0x2C, 0x01])
    }

    /// Payloads at and around the segment sizes split into the right segments, the flag on all but the last, and
    /// join back whole, fed in one piece or a byte at a time.
    @Test(arguments: [0, 1, 254, 255, 256, 510, 511, 1023, 1024, 1025, 3000])
    func segmentsSplitAndJoin(length: Int) {
        for type in [UCIMessageType.response, .data] {
            let message = UCIMessage(type: type, group: 3, opcode: 5, payload: (0..<length).map { UInt8(truncatingIfNeeded: $0 * 31) })
            let packets = message.packets
            let limit = type == .data ? 1024 : 255
            #expect(packets.count == max(1, (length + limit - 1) / limit))
            #expect(packets.dropLast().allSatisfy { $0[0] & 0x10 != 0 } && packets.last.map { $0[0] & 0x10 == 0 } == true)
            var whole = UCIReassembler()
            #expect(whole.take(packets.joined()) == [.success(message)])
            var bytewise = UCIReassembler()
            var results: [Result<UCIMessage, UCIFramingError>] = []
            for byte in packets.joined() { results += bytewise.take([byte]) }
            #expect(results == [.success(message)] && bytewise.buffered == 0)
        }
    }

    /// Malformed packets are reported and skipped whole; the stream goes on with the next message.
    @Test func malformedPacketsAreSkippedAndTheStreamGoesOn() {
        let next = UCIMessage(type: .command, group: 1, opcode: 0, payload: [0, 0, 0, 0, 0])
        var r = UCIReassembler()
        #expect(r.take([0xE0, 0, 0, 2, 9, 9] + next.packets.joined()) == [.failure(.reservedMessageType(7)), .success(next)])
        let oversized: [UInt8] = [0x01, 0, 0x01, 0x10] + Array(repeating: 0, count: 4097)
        #expect(r.take(oversized + next.packets.joined()) == [.failure(.oversizedDataPacket(4097)), .success(next)])
        // A first segment of one message, then a segment of another: the pair is dropped.
        let first: [UInt8] = [0x30, 0x03, 0, 1, 1]
        let other: [UInt8] = [0x21, 0x03, 0, 1, 1]
        #expect(r.take(first + other + next.packets.joined()) == [.failure(.segmentMismatch), .success(next)])
        // Segments past 64 KiB in all: refused whole, then the stream goes on.
        var long: [UInt8] = []
        for _ in 0..<260 { long += [0x30, 0x03, 0, 255] + Array(repeating: 1, count: 255) }
        long += [0x20, 0x03, 0, 1, 1]
        let results = r.take(long + next.packets.joined())
        #expect(results.count == 2 && results.last == .success(next))
        if case .failure(.oversizedMessage(let n)) = results.first { #expect(n > UCIReassembler.maximumMessage) } else {
            Issue.record("\(String(describing: results.first))")
        }
    }

    /// 100,000 random packets of every header value: no trap, each whole packet read once, nothing left over.
    @Test func randomPacketsNeverTrap() {
        var generator = SplitMix(seed: 7)
        var r = UCIReassembler()
        var stream: [UInt8] = []
        for _ in 0..<100_000 {
            let b0 = UInt8(truncatingIfNeeded: generator.next())
            let length = b0 >> 5 == 0 ? Int(generator.next() % 1100) : Int(generator.next() % 256)
            stream += [b0, UInt8(truncatingIfNeeded: generator.next()), UInt8(length & 0xFF),
                       b0 >> 5 == 0 ? UInt8(length >> 8) : UInt8(length)]
            stream += (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        }
        var taken = 0
        var offset = 0
        while offset < stream.count {
            let n = min(Int(generator.next() % 5000) + 1, stream.count - offset)
            taken += r.take(stream[offset..<(offset + n)]).count
            offset += n
        }
        #expect(taken > 0 && taken <= 100_000)
        #expect(r.buffered == 0)
    }
}

/// A small seeded generator, so that the random packets are the same every run.
private struct SplitMix {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
