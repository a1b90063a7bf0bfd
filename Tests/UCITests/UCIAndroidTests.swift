import Testing
import UCI
@testable import UCIRoom

/// What Android's UWB service sends beside FiRa's commands (its vendor group) and the 2.0 queries, answered in
/// AOSP's layouts, byte for byte.
@Suite struct UCIAndroidTests {
    private typealias Bench = UCIRoomTests.Bench
    private func le32(_ v: UInt32) -> [UInt8] { UCIRoomTests.le32(v) }
    private func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    /// The response to a command: its group and opcode echo the command's, its payload as given.
    private func response(_ answer: [UCIMessage], _ group: UInt8, _ opcode: UInt8) -> [UInt8]? {
        answer.first { $0.type == .response && $0.group == group && $0.opcode == opcode }?.payload
    }

    /// ANDROID_SET_COUNTRY_CODE takes two letters (or "00"), refuses anything else by name; an unknown opcode of the
    /// group is UNKNOWN_OID, not UNKNOWN_GID.
    @Test func theCountryCodeIsTakenAndBadOnesRefused() throws {
        let bench = try Bench(chips: 1)
        #expect(response(bench.command(0, 0x0C, 1, Array("US".utf8)), 0x0C, 1) == [0x00])
        #expect(bench.room.chips[0]?.countryCode == Array("US".utf8))
        #expect(response(bench.command(0, 0x0C, 1, Array("00".utf8)), 0x0C, 1) == [0x00])
        #expect(response(bench.command(0, 0x0C, 1, [0x31, 0x58]), 0x0C, 1) == [0x04])
        #expect(response(bench.command(0, 0x0C, 1, Array("USA".utf8)), 0x0C, 1) == [0x06])
        #expect(response(bench.command(0, 0x0C, 0x3F, []), 0x0C, 0x3F) == [0x08])
        #expect(bench.room.counters.badCommands == 3)
    }

    /// ANDROID_GET_POWER_STATS: status, then idle, transmitting and receiving milliseconds and the rounds woken for,
    /// each four bytes little-endian. A controller and a controlee ranging 1:1 every 100 ms for 1 s: ten rounds,
    /// each a frame of the medium's 0.16 ms from the controller twice and from the controlee once (3.2 and 1.6 ms,
    /// rounded down); the times add up to the second.
    @Test func powerStatsAddUpToTheChipsTime() throws {
        let bench = try Bench(chips: 2)
        bench.start(0, controller: true, own: [0, 1], peers: [[0, 2]])
        bench.start(1, controller: false, own: [0, 2], peers: [[0, 1]])
        bench.advance(to: 1.05)
        func stats(_ device: Int) throws -> [UInt32] {
            let payload = try #require(response(bench.command(device, 0x0C, 0, []), 0x0C, 0))
            #expect(payload.count == 17 && payload[0] == 0)
            return (0..<4).map { k in (0..<4).reduce(0) { $0 | UInt32(payload[1 + 4 * k + $1]) << (8 * UInt32($1)) } }
        }
        let controller = try stats(0), controlee = try stats(1)
        let rounds = UInt32(bench.room.counters.rounds)
        #expect(rounds == 10)
        // Whole milliseconds, each rounded down: the sum is within 3 ms of the 1,050 the chip has been up.
        for s in [controller, controlee] { #expect((1_047...1_050).contains(s[0] + s[1] + s[2]), "\(s)") }
        #expect(controller[1] == 3 && controller[2] == 1, "\(controller)")
        #expect(controlee[1] == 1 && controlee[2] == 3, "\(controlee)")
        #expect(controller[3] == rounds && controlee[3] == rounds)
        #expect(response(bench.command(0, 0x0C, 0, [1]), 0x0C, 0) == [0x06] + [UInt8](repeating: 0, count: 16))
    }

    /// CORE_QUERY_UWBS_TIMESTAMP: the chip's own clock, microseconds since its host connected, eight bytes.
    @Test func theTimestampIsTheChipsOwnClock() throws {
        let bench = try Bench(chips: 1)
        bench.advance(to: 2.5)
        #expect(response(bench.command(0, 0, 8, []), 0, 8) == [0x00] + le64(2_500_000))
        #expect(response(bench.command(0, 0, 8, [0]), 0, 8) == [0x06] + le64(0))
    }

    /// SESSION_QUERY_DATA_SIZE_IN_RANGING: the session's token, the status, the largest data a round carries (the
    /// capabilities' 1,024 bytes); a session that does not exist says so.
    @Test func theDataSizeIsTheRoundsPayload() throws {
        let bench = try Bench(chips: 1)
        bench.command(0, 1, 0, le32(7) + [1])
        #expect(response(bench.command(0, 1, 0x0B, le32(7)), 1, 0x0B) == le32(7) + [0x00, 0x00, 0x04])
        #expect(response(bench.command(0, 1, 0x0B, le32(9)), 1, 0x0B) == le32(9) + [0x11, 0x00, 0x00])
        #expect(response(bench.command(0, 1, 0x0B, [1, 2]), 1, 0x0B) == [0x06])
    }
}
