import Geometry
import Testing
import UCI
@testable import UCIRoom

/// Every layout that differs between UCI 1.1, 2.0 and pica's answers, byte for byte (AOSP's `uci_packets.pdl`).
@Suite struct UCIVersionTests {
    private typealias Bench = UCIRoomTests.Bench

    private func le32(_ v: UInt32) -> [UInt8] { UCIRoomTests.le32(v) }

    private func response(_ messages: [UCIMessage]) -> [UInt8]? {
        messages.first { $0.type == .response }?.payload
    }

    /// The capability TLVs of a CORE_GET_CAPS_INFO response, by tag; `nil` if the list does not parse whole.
    private func caps(_ payload: [UInt8]) -> [UInt8: [UInt8]]? {
        var r = UCIByteReader(payload)
        guard r.u8() == 0, let n = r.u8() else { return nil }
        var tlvs: [UInt8: [UInt8]] = [:]
        for _ in 0..<n {
            guard let t = r.u8(), let len = r.u8(), let v = r.take(Int(len)), tlvs[t] == nil else { return nil }
            tlvs[t] = v
        }
        return r.remaining == 0 ? tlvs : nil
    }

    @Test(arguments: [
        (UCIVersion.v1_1, [0, 0x01, 0x10, 0x01, 0x30, 0x01, 0x30, 0x01, 0x00, 0] as [UInt8]),
        (.v2_0, [0, 0x02, 0x00, 0x02, 0x00, 0x02, 0x00, 0x01, 0x00, 0]),
        (.pica, [0, 0x02, 0x00, 0x01, 0x30, 0x01, 0x30, 0x01, 0x00, 0]),
    ])
    func deviceInfoNamesTheVersion(version: UCIVersion, expected: [UInt8]) throws {
        let b = try Bench(chips: 1, version: version)
        #expect(response(b.command(0, 0, 2, [])) == expected)
    }

    /// 2.0 numbers the caps from the two size limits, then the version ranges; 1.1 (and pica) from the ranges.
    /// Every tag Android's FiRa decoder requires is there in each.
    @Test func capsAreNumberedAsTheVersionNumbersThem() throws {
        let twoPayload = try #require(response(try Bench(chips: 1, version: .v2_0).command(0, 0, 3, [])))
        let two = try #require(caps(twoPayload))
        #expect(Set(two.keys) == Set(0x00...0x14).union([0xE3]))
        #expect(two[0x00] == [0xFF, 0x00] && two[0x01] == [0x00, 0x04])
        #expect(two[0x02] == [1, 1, 2, 0] && two[0x03] == [1, 1, 2, 0])
        #expect(two[0x05] == [0x03] && two[0x08] == [0x03] && two[0x0E] == [0xFF] && two[0x12]?.count == 5)
        #expect(two[0x13] == [0x0F] && two[0x14] == [0x01])
        for version in [UCIVersion.v1_1, .pica] {
            let onePayload = try #require(response(try Bench(chips: 1, version: version).command(0, 0, 3, [])))
            let one = try #require(caps(onePayload))
            #expect(Set(one.keys) == Set(0x00...0x13).union([0xE3]))
            #expect(one[0x00] == [1, 1, 1, 3] && one[0x01] == [1, 1, 1, 3])
            #expect(one[0x02] == [0x03] && one[0x05] == [0x03] && one[0x0B] == [0xFF] && one[0x0F]?.count == 5)
            #expect(one[0x10] == [0x0F] && one[0x12] == [0xFF, 0x00] && one[0x13] == [0x00, 0x04])
        }
    }

    /// In 2.0 the chip gives each session a handle; the host names the session by it from then on, the chip's
    /// notifications carry it, and two chips pair their sessions by id whatever handles they gave.
    @Test func sessionsAreNamedByTheirHandleIn2_0() throws {
        let b = try Bench(chips: 2, version: .v2_0)
        b.drain(0)
        b.drain(1)
        #expect(b.command(0, 1, 0, le32(5) + [0]).map(\.payload) == [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0]])
        // Session id 7 is handle 2 on chip 0 and handle 1 on chip 1.
        #expect(b.command(0, 1, 0, le32(7) + [0]).map(\.payload) == [[0, 2, 0, 0, 0], [2, 0, 0, 0, 0, 0]])
        #expect(b.command(1, 1, 0, le32(7) + [0]).map(\.payload) == [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0]])
        #expect(response(b.command(1, 1, 0, le32(7) + [0])) == [0x12, 0, 0, 0, 0])
        func configure(_ device: Int, handle: UInt32, controller: Bool, own: UInt8, peer: UInt8) -> [[UInt8]] {
            let tlvs: [(UInt8, [UInt8])] = [
                (UCIAppConfigID.deviceType, [controller ? 1 : 0]), (UCIAppConfigID.deviceRole, [controller ? 1 : 0]),
                (UCIAppConfigID.deviceMACAddress, [0, own]), (UCIAppConfigID.destinationMACAddress, [0, peer]),
                (UCIAppConfigID.rangingDuration, le32(100)),
            ]
            let set = b.command(device, 1, 3, le32(handle) + [UInt8(tlvs.count)] + tlvs.flatMap { [$0.0, UInt8($0.1.count)] + $0.1 })
            return (set + b.command(device, 2, 0, le32(handle))).map(\.payload)
        }
        #expect(configure(0, handle: 2, controller: true, own: 1, peer: 2)
            == [[0, 0], [2, 0, 0, 0, 3, 0], [0], [2, 0, 0, 0, 2, 0], [2]])
        #expect(configure(1, handle: 1, controller: false, own: 2, peer: 1)
            == [[0, 0], [1, 0, 0, 0, 3, 0], [0], [1, 0, 0, 0, 2, 0], [2]])
        // The id is not a name any more.
        #expect(response(b.command(1, 2, 1, le32(7))) == [UCIStatus.sessionNotExist.rawValue])
        b.drain(0)
        b.drain(1)
        b.advance(to: 1.05)
        for (device, handle) in [(0, UInt32(2)), (1, 1)] {
            let info = (b.inbox[device] ?? []).filter { $0.type == .notification && $0.group == 2 && $0.opcode == 0 }
            #expect(info.count == 10)
            #expect(info.allSatisfy { Array($0.payload[4..<8]) == le32(handle) })
            let measured = info.flatMap(UCIRoomTests.Measurement.parse)
            #expect(measured.filter { $0.status == 0 }.count >= 9)
        }
        #expect(b.command(0, 1, 1, le32(2)).map(\.payload) == [[0], [2, 0, 0, 0, 1, 0], [1]])
    }

    /// A one-to-many controller's list changed in both layouts: 1.1's response is its status alone and its
    /// notification names the room left and each sub-session; 2.0's response lists the controlees that failed and
    /// its notification each controlee's status. A list emptied while ranging stops the session.
    @Test(arguments: [UCIVersion.v1_1, .v2_0])
    func theMulticastListAnswersInTheVersionsLayouts(version: UCIVersion) throws {
        let b = try Bench(chips: 4, version: version)
        let token: UInt32 = version == .v2_0 ? 1 : 9
        b.command(0, 1, 0, le32(9) + [0])
        let tlvs: [(UInt8, [UInt8])] = [
            (UCIAppConfigID.deviceMACAddress, [0, 1]), (UCIAppConfigID.multiNodeMode, [1]),
            (UCIAppConfigID.numberOfControlees, [2]), (UCIAppConfigID.destinationMACAddress, [0, 2, 0, 3]),
        ]
        b.command(0, 1, 3, le32(token) + [UInt8(tlvs.count)] + tlvs.flatMap { [$0.0, UInt8($0.1.count)] + $0.1 })
        b.command(0, 2, 0, le32(token))
        b.drain(0)
        // Add 00:04 (sub-session 0x11) and 00:02 again (sub-session 0x22).
        let add = b.command(0, 1, 7, le32(token) + [0, 2, 0, 4] + le32(0x11) + [0, 2] + le32(0x22))
        let t = le32(token)
        if version == .v2_0 {
            #expect(add.map(\.payload) == [[0, 1, 0, 2, 0x08], t + [2, 0, 4, 0x00, 0, 2, 0x08]])
        } else {
            #expect(add.map(\.payload) == [[0], t + [5, 2, 0, 4] + le32(0x11) + [0x00, 0, 2] + le32(0x22) + [0x08]])
        }
        // Remove all three, and one that is not there.
        let remove = b.command(0, 1, 7, le32(token) + [1, 4] + [[0, 2], [0, 3], [0, 4], [0, 9]].flatMap { $0 + le32(0) })
        if version == .v2_0 {
            #expect(remove.map(\.payload) == [[0, 1, 0, 9, 0x07], t + [4, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0, 9, 0x07],
                                              t + [3, 0x33], [1]])
        } else {
            let entries = [[0, 2], [0, 3], [0, 4]].flatMap { $0 + le32(0) + [0] } + [0, 9] + le32(0) + [0x07]
            #expect(remove.map(\.payload) == [[0], t + [8, 4] + entries, t + [3, 0x33], [1]])
        }
        // 1.1 has no keyed actions.
        let keyed = b.command(0, 1, 7, le32(token) + [2, 1, 0, 5] + le32(0) + [UInt8](repeating: 0, count: 16))
        if version == .v2_0 {
            #expect(keyed.map(\.payload) == [[0, 1, 0, 5, 0x05], t + [1, 0, 5, 0x05]])
        } else {
            #expect(keyed.map(\.payload) == [[UCIStatus.invalidParameter.rawValue]])
        }
    }

    /// A session of one peer carries a message to that peer whatever address it names (counted); one of several
    /// peers refuses an address that names none at once. The sender's sequence number arrives, except as pica
    /// answers (1).
    @Test(arguments: [UCIVersion.v1_1, .pica])
    func dataFindsItsPeerOrIsRefusedAtOnce(version: UCIVersion) throws {
        let b = try Bench(chips: 4, version: version)
        let type = UCISessionType.rangingAndInBandData
        b.start(0, id: 3, controller: true, own: [0x34, 0x12], peers: [[0x78, 0x56]], type: type)
        b.start(1, id: 3, controller: false, own: [0x78, 0x56], peers: [[0x34, 0x12]], type: type)
        // Far enough that its rounds never share the air with the pair's.
        _ = b.room.setPose(Pose(position: Vector3(60, 0, 1), orientation: Orientation(heading: 0)), of: 2)
        b.start(2, id: 4, controller: true, own: [0, 1], peers: [[0, 2], [0, 3]], interval: 100,
                extra: [(UCIAppConfigID.numberOfControlees, [2])], type: type)
        for k in 0...2 { b.drain(k) }
        func send(_ device: Int, session: UInt32, to destination: UInt64, sequence: UInt16) -> [UCIMessage] {
            var w = UCIByteWriter()
            w.u32(session)
            w.u64(destination)
            w.u16(sequence)
            w.u16(3)
            w.append([1, 2, 3])
            let out = b.room.receive(UCIMessage(type: .data, group: UCIDataFormat.send, opcode: 0, payload: w.bytes)
                .packets.flatMap { $0 }, from: device, at: b.time)
            b.take(out)
            return b.drain(device)
        }
        // The address big-endian, as pica's hosts write it: 0x3412 names no one; the one peer gets it.
        #expect(send(0, session: 3, to: 0x7856, sequence: 9).map(\.opcode) == [UCIOpcode.dataCredit])
        // An address of no controlee of a one-to-many session: refused in the same breath.
        let refused = send(2, session: 4, to: 0x0900, sequence: 5)
        #expect(refused.map(\.payload) == [[4, 0, 0, 0, 1], [4, 0, 0, 0, 5, 0x04, 0]])
        b.advance(to: 0.25)
        let received = (b.inbox[1] ?? []).filter { $0.type == .data }
        #expect(received.count == 1)
        var r = UCIByteReader(received.first?.payload ?? [])
        #expect(r.u32() == 3 && r.u8() == 0 && r.u64() == 0x1234)
        #expect(r.u16() == (version == .pica ? 1 : 9) && r.u16() == 3 && r.rest() == [1, 2, 3])
        #expect(b.room.counters.dataMisaddressed == 1 && b.room.counters.dataDelivered == 1)
        #expect(b.room.counters.badDataPackets == 1)
    }
}
