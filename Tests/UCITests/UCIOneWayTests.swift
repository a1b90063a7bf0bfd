import Foundation
import Geometry
import Testing
import UCI
@testable import UCIRoom

/// OWR-AoA (RANGING_ROUND_USAGE 6): an advertiser's blinks, each observer's angle of arrival.
@Suite struct UCIOneWayTests {
    private typealias Bench = UCIRoomTests.Bench

    /// The OWR-AoA measurements of every SESSION_INFO_NTF `device` was sent: (address, status, nlos, frame, block,
    /// azimuth in degrees, its FoM); `nil` for a notification of another type or layout.
    private func advertisements(_ b: Bench, _ device: Int) -> [(UInt16, UInt8, UInt8, UInt8, UInt16, Double, UInt8)?] {
        b.drain(device).filter { $0.type == .notification && $0.group == 2 && $0.opcode == 0 }.map { m in
            var r = UCIByteReader(m.payload)
            _ = r.take(13)
            guard r.u8() == 3, r.u8() == 0, r.u8() == 0, r.take(8) != nil, r.u8() == 1, let a = r.u16(), let status = r.u8(),
                  let nlos = r.u8(), let frame = r.u8(), let block = r.u16(), let az = r.u16(), let fom = r.u8(),
                  r.u16() != nil, r.u8() != nil, r.remaining == 0 else { return nil }
            return (a, status, nlos, frame, block, Double(Int16(bitPattern: az)) / 128, fom)
        }
    }

    /// An advertiser at the origin facing +x; an observer 2 m off facing it (azimuth 0), one 2 m off at 30 degrees
    /// to the advertiser's left, turned so that the advertiser stands 30 degrees to its own left (−30), and one that
    /// names another advertiser. Each named observer reports every advertisement it heard, numbered; the other and
    /// the advertiser hear nothing.
    @Test func observersReportTheAngleOfEachAdvertisement() throws {
        let b = try Bench(chips: 4)
        _ = b.room.setPose(Pose(position: Vector3(0, 0, 1), orientation: Orientation(heading: 0)), of: 0)
        _ = b.room.setPose(Pose(position: Vector3(2, 0, 1), orientation: Orientation(heading: Double.pi)), of: 1)
        // Facing the advertiser, then turned 30 degrees clockwise: the advertiser is 30 degrees to its left.
        let side = Vector3(2 * cos(Double.pi / 6), 2 * sin(Double.pi / 6), 1)
        let facing = atan2(-side.y, -side.x)
        _ = b.room.setPose(Pose(position: side, orientation: Orientation(heading: facing - Double.pi / 6)), of: 2)
        _ = b.room.setPose(Pose(position: Vector3(0, 2, 1), orientation: Orientation(heading: -Double.pi / 2)), of: 3)
        let owr: [(UInt8, [UInt8])] = [(UCIAppConfigID.rangingRoundUsage, [UCIRangingUsage.owrAoA])]
        b.start(0, id: 9, controller: true, own: [0, 1], peers: [], interval: 100, extra: owr + [(UCIAppConfigID.deviceRole, [5])])
        for (k, named) in [(1, [UInt8(0), 1]), (2, [0, 1]), (3, [0, 7])] {
            b.start(k, id: 9, controller: false, own: [0, UInt8(k + 1)], peers: [named], interval: 100,
                    extra: owr + [(UCIAppConfigID.deviceRole, [6])])
        }
        for k in 0...3 { b.drain(k) }
        b.advance(to: 2.08)
        #expect(advertisements(b, 0).isEmpty && advertisements(b, 3).isEmpty)
        for (k, expected) in [(1, 0.0), (2, -30.0)] {
            let seen = advertisements(b, k)
            #expect(seen.count >= 18 && seen.count <= 20 && seen.allSatisfy { $0 != nil })
            let heard = seen.compactMap { $0 }
            #expect(heard.allSatisfy { $0.0 == 0x0100 && $0.1 == 0 && $0.2 == 0 && $0.6 > 0 })
            // Numbered by the advertiser: increasing, a gap where one was missed.
            #expect(zip(heard, heard.dropFirst()).allSatisfy { $1.3 > $0.3 && $1.4 > $0.4 })
            let mean = heard.map(\.5).reduce(0, +) / Double(heard.count)
            #expect(abs(mean - expected) < 3, "observer \(k): mean azimuth \(mean)")
        }
        #expect(b.room.counters.rounds == 20 && b.room.counters.exchanges == 40, "\(b.room.counters)")
    }

    /// As pica answers (its own tests range with usage 6 and wait for two-way reports): two-way rounds.
    @Test func picaRangesEveryUsageTwoWay() throws {
        let b = try Bench(chips: 2, version: .pica)
        let owr: [(UInt8, [UInt8])] = [(UCIAppConfigID.rangingRoundUsage, [UCIRangingUsage.owrAoA])]
        b.start(0, controller: true, own: [0, 1], peers: [[0, 2]], interval: 100, extra: owr)
        b.start(1, controller: false, own: [0, 2], peers: [[0, 1]], interval: 100, extra: owr)
        b.drain(0)
        b.drain(1)
        b.advance(to: 1.08)
        let mine = b.reports(0), theirs = b.reports(1)
        #expect(mine.count == 10 && theirs.count == 10)
        #expect(mine.flatMap { $0 }.filter { $0.status == 0 && (80...120).contains($0.distance) }.count >= 9)
    }

    /// An advertiser needs no destination; an observer keeps no watchdog, so with no advertiser it says nothing.
    @Test func anObserverAloneIsSilent() throws {
        let b = try Bench(chips: 1)
        b.start(0, id: 9, controller: false, own: [0, 2], peers: [[0, 1]], interval: 100,
                extra: [(UCIAppConfigID.rangingRoundUsage, [UCIRangingUsage.owrAoA]), (UCIAppConfigID.deviceRole, [6])])
        #expect(b.drain(0).contains { $0.payload == [9, 0, 0, 0, 2, 0] })
        b.advance(to: 2)
        #expect(b.drain(0).isEmpty)
    }
}

/// DL-TDoA (RANGING_ROUND_USAGE 5): two DT-anchors ranging each other, a DT-tag hearing their messages.
@Suite struct UCIDLTDoATests {
    private typealias Bench = UCIRoomTests.Bench

    struct Heard {
        var address: UInt16, status: UInt8, type: UInt8, block: UInt16, nlos: UInt8, azimuth: Double
        var sent: UInt64, arrived: UInt64, initiatorReply: UInt32, responderReply: UInt32, timeOfFlight: UInt16
    }

    /// The DL-TDoA measurements of each SESSION_INFO_NTF `device` was sent; `nil` for one of another layout.
    private func rounds(_ b: Bench, _ device: Int) -> [[Heard]?] {
        b.drain(device).filter { $0.type == .notification && $0.group == 2 && $0.opcode == 0 }.map { m in
            var r = UCIByteReader(m.payload)
            _ = r.take(13)
            guard r.u8() == 2, r.u8() == 0, r.u8() == 0, r.take(8) != nil, let n = r.u8() else { return nil }
            var out: [Heard] = []
            func u40() -> UInt64? { r.take(5).map { $0.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) } } }
            for _ in 0..<n {
                guard let a = r.u16(), let status = r.u8(), let type = r.u8(), r.u16() == 0, let block = r.u16(), r.u8() == 0,
                      let nlos = r.u8(), let az = r.u16(), r.u8() != nil, r.u16() != nil, r.u8() != nil, r.u8() != nil,
                      let sent = u40(), let arrived = u40(), r.u16() == 0, r.u16() == 0, let ir = r.u32(), let rr = r.u32(),
                      let tof = r.u16() else { return nil }
                out.append(Heard(address: a, status: status, type: type, block: block, nlos: nlos,
                                 azimuth: Double(Int16(bitPattern: az)) / 128, sent: sent, arrived: arrived,
                                 initiatorReply: ir, responderReply: rr, timeOfFlight: tof))
            }
            return r.remaining == 0 ? out : nil
        }
    }

    /// Anchors at (0, 0) and (4, 0), a tag at (1, 2): each round the tag hears the poll, the response and the final;
    /// the difference of its arrival times, less that of the transmit times, is the difference of its distances to
    /// the two anchors (√13 − √5 = 1.370 m) within the radio's error; the response carries the responder's reply
    /// (one slot less the flight between the anchors), the final the anchors' time of flight (4 m). The anchors'
    /// hosts get no report.
    @Test func aTagHearsTheAnchorsAndCanTellWhereItIs() throws {
        let b = try Bench(chips: 3)
        _ = b.room.setPose(Pose(position: Vector3(0, 0, 1), orientation: Orientation(heading: 0)), of: 0)
        _ = b.room.setPose(Pose(position: Vector3(4, 0, 1), orientation: Orientation(heading: Double.pi)), of: 1)
        _ = b.room.setPose(Pose(position: Vector3(1, 2, 1), orientation: Orientation(heading: -Double.pi / 2)), of: 2)
        let dl: [(UInt8, [UInt8])] = [(UCIAppConfigID.rangingRoundUsage, [UCIRangingUsage.dlTDoA])]
        b.start(0, id: 5, controller: true, own: [0, 1], peers: [[0, 2]], interval: 100, extra: dl + [(UCIAppConfigID.deviceRole, [7])])
        b.start(1, id: 5, controller: false, own: [0, 2], peers: [[0, 1]], interval: 100, extra: dl + [(UCIAppConfigID.deviceRole, [7])])
        b.start(2, id: 5, controller: false, own: [0, 3], peers: [[0, 1]], interval: 100, extra: dl + [(UCIAppConfigID.deviceRole, [8])])
        for k in 0...2 { b.drain(k) }
        b.advance(to: 1.08)
        #expect(rounds(b, 0).isEmpty && rounds(b, 1).isEmpty)
        let heard = rounds(b, 2)
        #expect(heard.count == 10 && heard.allSatisfy { $0 != nil })
        let complete = heard.compactMap { $0 }.filter { $0.map(\.type) == [0, 1, 2] }
        #expect(complete.count >= 8)
        let c = 299_792_458.0, tick = 1 / (128 * 499.2e6)
        var differences: [Double] = []
        for round in complete {
            let (poll, response, final) = (round[0], round[1], round[2])
            #expect(poll.address == 0x0100 && response.address == 0x0200 && final.address == 0x0100)
            #expect(poll.block == response.block && response.block == final.block && round.allSatisfy { $0.status == 0 })
            let tdoa = (Double(response.arrived) - Double(poll.arrived) - (Double(response.sent) - Double(poll.sent))) * tick
            differences.append(tdoa * c)
            #expect(abs(Double(response.responderReply) * tick - (0.002 - 4 / c)) < 1e-9)
            #expect(abs(Double(final.initiatorReply) * tick - (0.002 - 4 / c)) < 1e-9)
            #expect(abs(Double(final.timeOfFlight) * tick * c - 4) < 0.5)
        }
        let mean = differences.reduce(0, +) / Double(differences.count)
        #expect(abs(mean - (13.0.squareRoot() - 5.0.squareRoot())) < 0.2, "mean \(mean)")
    }
}
