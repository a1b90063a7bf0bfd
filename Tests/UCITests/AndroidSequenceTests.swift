import Testing
import UCI
@testable import UCIRoom

/// The sequence Android's UWB service runs through AOSP's host library (`uwb_core`), read from its sources: at start
/// reset, device info, caps and country code; per FiRa session init, the whole app configuration its FiRa builder
/// sets, start, range data, a reconfiguration while ranging, the multicast list, stop and deinit. Every answer is
/// checked byte for byte, in UCI 2.0 (what current Android expects) and, for the multicast list, 1.1.
@Suite struct AndroidSequenceTests {
    private typealias Bench = UCIRoomTests.Bench

    private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private func le32(_ v: UInt32) -> [UInt8] { UCIRoomTests.le32(v) }

    /// What each answer was: type, group, opcode, payload.
    private func shape(_ messages: [UCIMessage]) -> [[UInt8]] {
        messages.map { [$0.type.rawValue, $0.group, $0.opcode] + $0.payload }
    }

    /// Every TLV `uwb_core`'s FiRa builder sets, with its defaults (`fira_app_config_params.rs`): DS-TWR deferred,
    /// static STS, channel 9, 2,400-RSTU slots, 25 slots a round, time-scheduled, SP3, preamble 10, SFD 2, BPRF.
    private func firaConfig(controller: Bool, own: [UInt8], peers: [[UInt8]], intervalMs: UInt32 = 200) -> [(UInt8, [UInt8])] {
        [
            (0x00, [controller ? 1 : 0]), (0x01, [2]), (0x02, [0]), (0x03, [peers.count > 1 ? 1 : 0]), (0x04, [9]),
            (0x05, [UInt8(peers.count)]), (0x06, own), (0x07, peers.flatMap { $0 }), (0x08, le16(2400)),
            (0x09, le32(intervalMs)), (0x0B, [0]), (0x0C, [0x03]), (0x0D, [1]), (0x0E, [1]), (0x0F, le16(0)),
            (0x10, le16(20_000)), (0x11, [controller ? 1 : 0]), (0x12, [3]), (0x14, [10]), (0x15, [2]), (0x16, [0]),
            (0x17, [1]), (0x1A, [1]), (0x1B, [25]), (0x1C, [0]), (0x1E, [1]), (0x1F, [0]), (0x22, [1]), (0x23, [0]),
            (0x24, [0]), (0x25, [50]), (0x26, [0]), (0x27, [0x08, 0x07]), (0x28, [1, 2, 3, 4, 5, 6]), (0x29, [1]),
            (0x2A, le16(0)), (0x2B, le32(0)), (0x2C, [0]), (0x2D, [0]), (0x2E, [0x01]), (0x2F, [1]), (0x30, le32(0)),
            (0x31, [0]), (0x32, le16(0)), (0x35, [1]), (0xE3, [0]), (0xE4, [0]), (0xE5, [0]),
        ]
    }

    private func setAppConfig(_ b: Bench, _ device: Int, _ token: UInt32, _ tlvs: [(UInt8, [UInt8])]) -> [[UInt8]] {
        shape(b.command(device, 1, 3, le32(token) + [UInt8(tlvs.count)] + tlvs.flatMap { [$0.0, UInt8($0.1.count)] + $0.1 }))
    }

    /// At start: the chip says READY; reset, device info (UCI 2.0), caps (22 TLVs, the version ranges at 0x02 and
    /// 0x03), the country code and power statistics are each answered as `uwb_core` parses them.
    @Test func theServiceStarts() throws {
        let b = try Bench(chips: 1, version: .v2_0)
        #expect(shape(b.drain(0)) == [[3, 0, 1, 1]])
        #expect(shape(b.command(0, 0, 0, [0])) == [[2, 0, 0, 0], [3, 0, 1, 1]])
        #expect(shape(b.command(0, 0, 2, [])) == [[2, 0, 2, 0, 0x02, 0x00, 0x02, 0x00, 0x02, 0x00, 0x01, 0x00, 0]])
        let caps = try #require(b.command(0, 0, 3, []).first)
        #expect(caps.type == .response && Array(caps.payload.prefix(10)) == [0, 22, 0x00, 2, 0xFF, 0x00, 0x01, 2, 0x00, 0x04])
        #expect(Array(caps.payload[10..<22]) == [0x02, 4, 1, 1, 2, 0, 0x03, 4, 1, 1, 2, 0])
        #expect(shape(b.command(0, 0x0C, 1, Array("US".utf8))) == [[2, 0x0C, 1, 0]])
        let power = try #require(b.command(0, 0x0C, 0, []).first)
        #expect(power.type == .response && power.payload.count == 17 && power.payload[0] == 0)
    }

    /// A FiRa one-to-one session from init to deinit: the handle named in every answer, the builder's whole
    /// configuration taken, the reports in 2.0's SESSION_INFO_NTF layout, a reconfiguration of the interval while
    /// ranging, then stop and deinit.
    @Test func aFiRaSessionRunsWholeIn2_0() throws {
        let b = try Bench(chips: 2, version: .v2_0)
        b.drain(0)
        b.drain(1)
        let id: UInt32 = 0x1234_5678
        #expect(shape(b.command(0, 1, 0, le32(id) + [0])) == [[2, 1, 0, 0] + le32(1), [3, 1, 2] + le32(1) + [0, 0]])
        #expect(shape(b.command(1, 1, 0, le32(id) + [0])) == [[2, 1, 0, 0] + le32(1), [3, 1, 2] + le32(1) + [0, 0]])
        let controller = firaConfig(controller: true, own: [0x01, 0xAA], peers: [[0x02, 0xBB]])
        #expect(controller.count == 48)
        #expect(setAppConfig(b, 0, 1, controller) == [[2, 1, 3, 0, 0], [3, 1, 2] + le32(1) + [3, 0]])
        #expect(setAppConfig(b, 1, 1, firaConfig(controller: false, own: [0x02, 0xBB], peers: [[0x01, 0xAA]]))
            == [[2, 1, 3, 0, 0], [3, 1, 2] + le32(1) + [3, 0]])
        for device in [1, 0] {
            #expect(shape(b.command(device, 2, 0, le32(1))) == [[2, 2, 0, 0], [3, 1, 2] + le32(1) + [2, 0], [3, 0, 1, 2]])
        }
        b.advance(to: 0.7)
        // Rounds at 0.2, 0.4 and 0.6, each reported at its end, 50 ms on.
        let info = (b.drain(0)).filter { $0.type == .notification && $0.group == 2 && $0.opcode == 0 }
        #expect(info.count == 3)
        for (k, n) in info.enumerated() {
            let p = n.payload
            #expect(p.count == 25 + 31)
            #expect(Array(p[0..<25]) == le32(UInt32(k)) + le32(1) + [0] + le32(200) + [1, 0, 0] + [UInt8](repeating: 0, count: 8) + [1])
            // The measurement: the peer's address, OK, line of sight, then the distance (about 1 m), angles, slot 1.
            #expect(Array(p[25..<29]) == [0x02, 0xBB, 0, 0] && (80...120).contains(Int(p[29]) | Int(p[30]) << 8))
            #expect(p[25 + 18] == 1 && Array(p[(25 + 20)..<56]) == [UInt8](repeating: 0, count: 11))
        }
        // The reconfiguration `uwb_core` may send while ranging: the interval.
        #expect(setAppConfig(b, 0, 1, [(0x09, le32(100))]) == [[2, 1, 3, 0, 0]])
        #expect(shape(b.command(0, 2, 1, le32(1))) == [[2, 2, 1, 0], [3, 1, 2] + le32(1) + [3, 0], [3, 0, 1, 1]])
        #expect(shape(b.command(0, 1, 1, le32(1))) == [[2, 1, 1, 0], [3, 1, 2] + le32(1) + [1, 0]])
        #expect(shape(b.command(0, 1, 6, le32(1))) == [[2, 1, 6, UCIStatus.sessionNotExist.rawValue, 0]])
    }

    /// A one-to-many FiRa session whose controller adds a controlee, then removes one, in both versions' layouts.
    @Test(arguments: [UCIVersion.v2_0, .v1_1])
    func theMulticastListInBothVersions(version: UCIVersion) throws {
        let b = try Bench(chips: 4, version: version)
        let id: UInt32 = 0x55
        let token: UInt32 = version == .v2_0 ? 1 : id
        let t = le32(token)
        let addresses: [[UInt8]] = [[0x00, 0x10], [0x00, 0x11], [0x00, 0x12], [0x00, 0x13]]
        for device in 0..<4 {
            b.command(device, 1, 0, le32(id) + [0])
            let tlvs = device == 0
                ? firaConfig(controller: true, own: addresses[0], peers: [addresses[1], addresses[2]])
                : firaConfig(controller: false, own: addresses[device], peers: [addresses[0]])
            #expect(setAppConfig(b, device, token, tlvs).first == [2, 1, 3, 0, 0])
            b.command(device, 2, 0, t)
            b.drain(device)
        }
        let add = shape(b.command(0, 1, 7, t + [0, 1] + addresses[3] + le32(0)))
        let remove = shape(b.command(0, 1, 7, t + [1, 1] + addresses[1] + le32(0)))
        if version == .v2_0 {
            #expect(add == [[2, 1, 7, 0, 0], [3, 1, 7] + t + [1] + addresses[3] + [0]])
            #expect(remove == [[2, 1, 7, 0, 0], [3, 1, 7] + t + [1] + addresses[1] + [0]])
        } else {
            #expect(add == [[2, 1, 7, 0], [3, 1, 7] + t + [5, 1] + addresses[3] + le32(0) + [0]])
            #expect(remove == [[2, 1, 7, 0], [3, 1, 7] + t + [6, 1] + addresses[1] + le32(0) + [0]])
        }
        // The controller now ranges 00:12 and 00:13, in slots 1 and 2.
        b.advance(to: 0.3)
        let round = try #require(b.reports(0).first)
        #expect(round.map(\.address) == [0x1200, 0x1300] && round.map(\.slot) == [1, 2])
        #expect(round.filter { $0.status == 0 }.count == 2)
    }
}
