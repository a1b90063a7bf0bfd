import Testing
import UCI
@testable import UCIRoom

/// What a host may change while a session ranges (Android's reconfiguration), and what it changes.
@Suite struct UCIReconfigureTests {
    private typealias Bench = UCIRoomTests.Bench

    private func le32(_ v: UInt32) -> [UInt8] { UCIRoomTests.le32(v) }

    private func set(_ b: Bench, _ device: Int, _ tlvs: [(UInt8, [UInt8])]) -> [UInt8]? {
        b.command(device, 1, 3, le32(0) + [UInt8(tlvs.count)] + tlvs.flatMap { [$0.0, UInt8($0.1.count)] + $0.1 })
            .first { $0.type == .response }?.payload
    }

    /// Two chips 1 m apart ranging each 100 ms from t = 0.
    private func pair() throws -> Bench {
        let b = try Bench(chips: 2)
        b.start(0, controller: true, own: [0, 1], peers: [[0, 2]], interval: 100)
        b.start(1, controller: false, own: [0, 2], peers: [[0, 1]], interval: 100)
        b.drain(0)
        b.drain(1)
        return b
    }

    /// Anything but the reports, their bounds, the stride and suspension is refused while ranging, each named,
    /// and nothing of the command is taken.
    @Test func onlyWhatMayChangeWhileRangingIsTaken() throws {
        let b = try pair()
        let before = b.room.chips[0]?.sessions[0]?.config
        let refused = set(b, 0, [(UCIAppConfigID.blockStrideLength, [1]), (UCIAppConfigID.slotDuration, [0x60, 0x09]),
                                 (UCIAppConfigID.channelNumber, [5])])
        #expect(refused == [UCIStatus.sessionActive.rawValue, 2, UCIAppConfigID.slotDuration, 0x13,
                            UCIAppConfigID.channelNumber, 0x13])
        #expect(b.room.chips[0]?.sessions[0]?.config == before)
        #expect(b.room.counters.commandsInWrongState == 1)
        #expect(set(b, 0, [(UCIAppConfigID.sessionInfoNotificationConfig, [5])]) == [UCIStatus.invalidParameter.rawValue, 1,
                                                                                    0x0E, UCIStatus.invalidRange.rawValue])
        // An interval shorter than the round (25 slots of 2 ms) is refused, and the old one kept.
        #expect(set(b, 0, [(UCIAppConfigID.rangingDuration, le32(20))]) == [UCIStatus.invalidParameter.rawValue, 1,
                                                                           0x09, UCIStatus.invalidRange.rawValue])
        #expect(b.room.chips[0]?.sessions[0]?.interval == 0.1)
    }

    /// A new interval while ranging takes from the round after the next; the controlee, told in each round, follows.
    @Test func theIntervalChangesWhileRanging() throws {
        let b = try pair()
        b.advance(to: 1.08)
        #expect(b.reports(0).count == 10)
        b.drain(1)
        #expect(set(b, 0, [(UCIAppConfigID.rangingDuration, le32(250))]) == [0, 0])
        // Rounds at 1.1, then every 250 ms: 1.35 ... 3.1, eight more to 3.08 + 0.05.
        b.advance(to: 3.16)
        #expect(b.reports(0).count == 9)
        let controlee = b.reports(1)
        #expect(controlee.count == 9 && controlee.allSatisfy { $0.count == 1 && $0[0].status == 0 })
    }

    /// A block stride of 1 skips every other interval; the controlee, told in the round, waits as long.
    @Test func aBlockStrideSkipsIntervals() throws {
        let b = try pair()
        b.advance(to: 1.08)
        #expect(b.reports(0).count == 10)
        b.drain(1)
        #expect(set(b, 0, [(UCIAppConfigID.blockStrideLength, [1])]) == [0, 0])
        b.advance(to: 3.08)
        #expect(b.reports(0).count == 10)
        let controlee = b.reports(1)
        #expect(controlee.count == 10 && controlee.allSatisfy { $0.count == 1 && $0[0].status == 0 })
    }

    /// Suspended, a pair is silent, the controlee too; resumed, its first round is one interval on.
    @Test func suspensionSilencesAndResumptionRestarts() throws {
        let b = try pair()
        b.advance(to: 0.58)
        #expect(b.reports(0).count == 5)
        b.drain(1)
        #expect(set(b, 0, [(UCIAppConfigID.suspendRangingRounds, [1])]) == [0, 0])
        #expect(set(b, 1, [(UCIAppConfigID.suspendRangingRounds, [1])]) == [0, 0])
        b.advance(to: 1.5)
        #expect(b.reports(0).isEmpty && b.reports(1).isEmpty)
        #expect(set(b, 1, [(UCIAppConfigID.suspendRangingRounds, [0])]) == [0, 0])
        #expect(set(b, 0, [(UCIAppConfigID.suspendRangingRounds, [0])]) == [0, 0])
        b.advance(to: 1.59)
        #expect(b.reports(0).isEmpty)
        b.advance(to: 2.08)
        let resumed = b.reports(0)
        #expect(resumed.count == 5 && resumed.allSatisfy { $0[0].status == 0 })
        #expect(b.reports(1).count == 5)
    }

    /// RNG_DATA_NTF 2 reports only what lies between the proximity bounds: nothing for a peer 1 m off when the far
    /// bound is 50 cm, every exchange when it is 150 cm.
    @Test func proximityBoundsFilterTheReports() throws {
        let b = try pair()
        #expect(set(b, 0, [(UCIAppConfigID.sessionInfoNotificationConfig, [2]),
                           (UCIAppConfigID.proximityFar, [50, 0])]) == [0, 0])
        b.advance(to: 1.08)
        #expect(b.reports(0).isEmpty && b.reports(1).count == 10)
        #expect(set(b, 0, [(UCIAppConfigID.proximityFar, [150, 0])]) == [0, 0])
        b.advance(to: 2.08)
        let near = b.reports(0)
        #expect(near.count >= 9 && near.allSatisfy { $0.allSatisfy { $0.status == 0 && (0...150).contains($0.distance) } })
    }
}
