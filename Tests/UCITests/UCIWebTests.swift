import Foundation
import Geometry
import NIOHTTP1
import Testing
import UCI
@testable import UCIRoom
@testable import UCIServer

/// pica's web API on the room: anchors that range, pica's axes, pica's names, `init-uci-device`.
@Suite struct UCIWebTests {
    private typealias Bench = UCIRoomTests.Bench

    private func json(_ p: [String: Int]) -> [UInt8] {
        Array("{" + p.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}").map { $0.asciiValue ?? 0 }
    }

    private func position(x: Int, y: Int, z: Int, yaw: Int = 0, pitch: Int = 0, roll: Int = 0) -> [UInt8] {
        json(["x": x, "y": y, "z": z, "yaw": yaw, "pitch": pitch, "roll": roll])
    }

    private func devices(_ endpoint: UCIEndpoint) throws -> [[String: Any]] {
        let state = try #require(endpoint.answer(.GET, "/get-state", []))
        let object = try JSONSerialization.jsonObject(with: Data(state.1.utf8)) as? [String: Any]
        return try #require(object?["devices"] as? [[String: Any]])
    }

    /// An anchor placed 1.5 m in front of a chip answers its rounds (measured 1.5 m off), is listed as an anchor, and
    /// once taken away leaves the chip's rounds timing out. Names taken, bad names and unknown anchors are refused.
    @Test func anAnchorAnswersTheRoundsThatNameIt() throws {
        let b = try Bench(chips: 1)
        let endpoint = UCIEndpoint(room: b.room)
        defer { #expect(throws: Never.self) { try endpoint.shutdown() } }
        // Chip 0 stands at (0, 0, 1 m) facing +x.
        #expect(endpoint.answer(.POST, "/create-anchor/00:05", position(x: 150, y: 0, z: 100, yaw: 180))?.0 == .ok)
        #expect(endpoint.answer(.POST, "/create-anchor/00:05", [])?.0 == .conflict)
        #expect(endpoint.answer(.POST, "/create-anchor/00:01", [])?.0 == .conflict)
        #expect(endpoint.answer(.POST, "/create-anchor/0:5", [])?.0 == .notAcceptable)
        #expect(endpoint.answer(.POST, "/create-anchor/00:06", json(["x": 1]))?.0 == .notAcceptable)
        let listed = try devices(endpoint)
        #expect(listed.map { $0["category"] as? String } == ["uci", "anchor"])
        #expect(listed.map { $0["mac_address"] as? String } == ["00:01", "00:05"])
        b.start(0, controller: true, own: [0, 1], peers: [[0, 5]], interval: 100)
        b.advance(to: 1.08)
        let measured = b.reports(0).flatMap { $0 }
        #expect(measured.count == 10 && measured.filter { $0.status == 0 }.count >= 9)
        let distances = measured.filter { $0.status == 0 }.map { Double($0.distance) }
        #expect(abs(distances.reduce(0, +) / Double(distances.count) - 150) < 10)
        #expect(b.room.counters.exchanges == 10)
        #expect(endpoint.answer(.POST, "/destroy-anchor/00:05", [])?.0 == .ok)
        #expect(endpoint.answer(.POST, "/destroy-anchor/00:05", [])?.0 == .notFound)
        #expect(endpoint.answer(.POST, "/destroy-anchor/00:01", [])?.0 == .notFound)
        b.advance(to: 2.08)
        let alone = b.reports(0).flatMap { $0 }
        #expect(alone.count == 10 && alone.allSatisfy { $0.status == UCIStatus.rangingRxTimeout.rawValue })
        #expect(try devices(endpoint).count == 1)
    }

    /// In pica's axes a position goes in and comes back as pica writes it, and stands where pica means: pica's
    /// (100, 0, 100) is 1 m ahead and 1 m to the left of a chip at rest at the origin (pica's azimuth +45°).
    @Test func picasAxesPlaceChipsWherePicaMeans() throws {
        let b = try Bench(chips: 2)
        let endpoint = UCIEndpoint(room: b.room)
        defer { #expect(throws: Never.self) { try endpoint.shutdown() } }
        endpoint.axes = .pica
        #expect(endpoint.answer(.POST, "/set-position/00:01", position(x: 0, y: 0, z: 0))?.0 == .ok)
        #expect(endpoint.answer(.POST, "/set-position/00:02", position(x: 100, y: 50, z: 100, yaw: 90, pitch: 10,
                                                                      roll: 20))?.0 == .ok)
        let a = try #require(b.room.pose(of: 0)), c = try #require(b.room.pose(of: 1))
        #expect((a.orientation.boresight - Vector3(1, 0, 0)).length < 1e-9)
        #expect((c.position - Vector3(1, 1, 0.5)).length < 1e-9)
        // Left of chip 0's boresight: the room's azimuth is negative (positive to the right).
        let g = PairGeometry(a, c)
        #expect(abs(g.bearingFromA.azimuth * 180 / Double.pi + 45) < 1e-6)
        // pica's yaw 90 turns a chip toward its −x: the room's −y.
        #expect(abs(c.orientation.boresight.y + cos(10 * Double.pi / 180)) < 1e-9)
        let second = try #require(try devices(endpoint).last)
        #expect(["x", "y", "z", "yaw", "pitch", "roll"].map { second[$0] as? Int } == [100, 50, 100, 90, 10, 20])
        // In the room's axes the same chip reads as the room has it.
        endpoint.axes = .room
        let room = try #require(try devices(endpoint).last)
        #expect(["x", "y", "z", "yaw", "pitch", "roll"].map { room[$0] as? Int } == [100, 100, 50, -90, 10, -20])
    }

    /// As pica names them: chips by their number from 00:00, never renamed by a session's address.
    @Test func picaNamesChipsByNumberFromZero() throws {
        let b = try Bench(chips: 2, version: .pica)
        let endpoint = UCIEndpoint(room: b.room)
        defer { #expect(throws: Never.self) { try endpoint.shutdown() } }
        b.start(0, controller: true, own: [0x12, 0x34], peers: [[0x56, 0x78]])
        #expect(try devices(endpoint).map { $0["mac_address"] as? String } == ["00:00", "00:01"])
        // The room's own names: the chip's number from 1, then its session's address.
        let named = try Bench(chips: 2)
        named.start(0, controller: true, own: [0x12, 0x34], peers: [[0x56, 0x78]])
        let other = UCIEndpoint(room: named.room)
        defer { #expect(throws: Never.self) { try other.shutdown() } }
        #expect(try devices(other).map { $0["mac_address"] as? String } == ["12:34", "00:02"])
    }

    /// pica's init-uci-device places a chip as set-position does, at the origin without a body.
    @Test func initUCIDevicePlacesAChip() throws {
        let b = try Bench(chips: 1)
        let endpoint = UCIEndpoint(room: b.room)
        defer { #expect(throws: Never.self) { try endpoint.shutdown() } }
        #expect(endpoint.answer(.POST, "/init-uci-device/00:01", [])?.0 == .ok)
        #expect(b.room.pose(of: 0)?.position == Vector3(0, 0, 0))
        #expect(endpoint.answer(.POST, "/init-uci-device/00:01", position(x: 10, y: 20, z: 30))?.0 == .ok)
        #expect(b.room.pose(of: 0)?.position == Vector3(0.1, 0.2, 0.3))
        #expect(endpoint.answer(.POST, "/init-uci-device/00:07", [])?.0 == .notFound)
        #expect(endpoint.answer(.POST, "/set-position/00:01", [])?.0 == .notAcceptable)
    }

    /// The live page is served at `/` for the web API's axes; each round is seen by onlookers as it ends, with each
    /// exchange's chip, status and distance (the page's `ranging` events).
    @Test func theLivePageAndTheRoundsItDraws() throws {
        let b = try Bench(chips: 2)
        let endpoint = UCIEndpoint(room: b.room)
        defer { #expect(throws: Never.self) { try endpoint.shutdown() } }
        let page = try #require(endpoint.answer(.GET, "/", []))
        #expect(page.0 == .ok && page.1.hasPrefix("<!DOCTYPE html>") && page.1.contains("const AXES = \"room\";"))
        endpoint.axes = .pica
        #expect(endpoint.answer(.GET, "/index.html", [])?.1.contains("const AXES = \"pica\";") == true)
        var rounds: [UCIRoom.RoundSeen] = []
        b.room.onRound = { rounds.append($0) }
        b.start(0, controller: true, own: [0, 1], peers: [[0, 2]], interval: 100)
        b.start(1, controller: false, own: [0, 2], peers: [[0, 1]], interval: 100)
        b.advance(to: 1.08)
        #expect(rounds.count == 10 && rounds.allSatisfy { $0.controller == 0 && $0.exchanges.count == 1 })
        let ok = rounds.flatMap(\.exchanges).filter { $0.device == 1 && $0.status == 0 }
        #expect(ok.count >= 9 && ok.allSatisfy { (80...120).contains($0.distance) })
        #expect(zip(rounds, rounds.dropFirst()).allSatisfy { abs($1.time - $0.time - 0.1) < 1e-9 })
    }
}
