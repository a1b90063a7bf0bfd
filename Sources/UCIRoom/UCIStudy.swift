import Foundation
import GSL
import Geometry
import UCI

/// The question app makers ask of UCI (docs/uci.md, "Many peers"): should each phone range its k peers as k
/// sessions of one controlee each, or as one one-to-many session? Both are run here on the room's own clock, as
/// hosts would drive them, through the same radio and air; the figures are what each phone receives.
package enum UCIStudy {
    package enum Mode: String, Sendable, CaseIterable {
        /// One session per pair of neighbours (the lower phone its controller), one controlee each.
        case perPeer = "k sessions"
        /// One one-to-many session per phone, its k nearest as controlees; each phone is also a controlee of the
        /// sessions of the phones that chose it.
        case oneToMany = "one-to-many"
    }

    package struct Row: Sendable, Equatable {
        package let phones: Int
        package let peers: Int
        package let mode: Mode
        /// Sessions the phones opened, counting each end.
        package let sessions: Int
        package let roundsPerSecond: Double
        /// Measurements each phone receives of each of its k nearest peers, per second (mean over phones and peers).
        package let updatesPerPeerPerSecond: Double
        /// Share of exchanges lost to another round on the air, and to the link (fade, range).
        package let collided: Double
        package let lostToLink: Double
        /// From a round's first frame to its report, milliseconds.
        package let reportLatency: Double

        /// The row as docs/uci.md shows it.
        package var line: String {
            String(format: "| %d | %d | %@ | %d | %.0f | %.2f | %.1f%% | %.1f%% | %.0f |", phones, peers, mode.rawValue, sessions,
                   roundsPerSecond, updatesPerPeerPerSecond, collided * 100, lostToLink * 100, reportLatency)
        }
    }

    package static let header = """
        | phones | peers each | sessions as | sessions | rounds/s | updates per peer per s | collided | lost to link | report latency (ms) |
        |---:|---:|---|---:|---:|---:|---:|---:|---:|
        """

    /// Phones at random places and headings in a square of 4 m² each (held upright, as in a hall), each wanting
    /// its `peers` nearest; sessions every 100 ms on channel 9 in 2-ms slots, each round as many slots as it
    /// sends frames, started at random offsets (contention-based, as pica's hosts configure them); `seconds` of
    /// ranging after one second to settle.
    package static func run(phones n: Int, peers k: Int, mode: Mode, seconds: Double = 10,
                            seed: UInt64 = 1) throws -> Row {
        var settings = UCIRoomSettings()
        settings.seed = seed
        settings.sessionsPerDevice = 64
        // The study names each session by its id in every command, as a 1.1 host does.
        settings.version = .v1_1
        let room = try UCIRoom(settings: settings)
        let random = try RandomSource(runSeed: seed, stream: StreamIdentity(kind: .scenario, first: 25, second: UInt64(n)))
        let side = (Double(n) * 4).squareRoot()
        var positions: [Vector3] = []
        for i in 0..<n {
            _ = try room.connect(at: 0)
            let p = Vector3(random.uniform() * side, random.uniform() * side, 1.2)
            positions.append(p)
            _ = room.setPose(Pose(position: p, orientation: Orientation(heading: random.uniform() * 2 * Double.pi)), of: i)
        }
        let nearest: [[Int]] = (0..<n).map { i in
            (0..<n).filter { $0 != i }.sorted { (positions[$0] - positions[i]).length < (positions[$1] - positions[i]).length }
                .prefix(k).map { $0 }
        }
        func address(_ i: Int) -> [UInt8] { [UInt8(i >> 8), UInt8(i & 0xFF)] }
        func command(_ d: Int, _ g: UInt8, _ o: UInt8, _ p: [UInt8], at t: Double) {
            _ = room.receive(UCIMessage(type: .command, group: g, opcode: o, payload: p).packets.joined().map { $0 }, from: d, at: t)
        }
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func open(_ d: Int, id: Int, controller: Bool, destinations: [Int]) {
            command(d, 1, 0, le32(id) + [0], at: 0)
            let frames = destinations.count + 2
            let tlvs: [(UInt8, [UInt8])] = [
                (UCIAppConfigID.deviceType, [controller ? 1 : 0]), (UCIAppConfigID.deviceMACAddress, address(d)),
                (UCIAppConfigID.multiNodeMode, [destinations.count > 1 ? 1 : 0]), (UCIAppConfigID.rangingDuration, le32(100)),
                (UCIAppConfigID.slotsPerRound, [UInt8(frames)]),
                (UCIAppConfigID.destinationMACAddress, destinations.flatMap(address)),
            ]
            command(d, 1, 3, le32(id) + [UInt8(tlvs.count)] + tlvs.flatMap { [$0.0, UInt8($0.1.count)] + $0.1 }, at: 0)
        }
        var controllers: [(device: Int, id: Int)] = []
        switch mode {
        case .perPeer:
            var pairs = Set<[Int]>()
            for i in 0..<n { for j in nearest[i] { pairs.insert([min(i, j), max(i, j)]) } }
            for (id, pair) in pairs.sorted(by: { $0.lexicographicallyPrecedes($1) }).enumerated() {
                open(pair[0], id: id, controller: true, destinations: [pair[1]])
                open(pair[1], id: id, controller: false, destinations: [pair[0]])
                controllers.append((pair[0], id))
            }
        case .oneToMany:
            for i in 0..<n {
                open(i, id: i, controller: true, destinations: nearest[i])
                controllers.append((i, i))
                for j in nearest[i] { open(j, id: i, controller: false, destinations: [i]) }
            }
        }
        let sessions = room.chips.values.reduce(0) { $0 + $1.sessions.count }
        // Controlees first, then each controller at its own random offset within the first interval.
        for chip in room.chips.values.sorted(by: { $0.id < $1.id }) {
            for s in chip.sessions.values.sorted(by: { $0.id < $1.id }) where !s.isController {
                command(chip.id, 2, 0, le32(Int(s.id)), at: 0)
            }
        }
        for c in controllers { command(c.device, 2, 0, le32(c.id), at: 0.1 * random.uniform()) }
        _ = room.advance(to: 1)
        let before = room.counters
        var updates = 0
        let wanted = (0..<n).map { i in Set(nearest[i].map { UInt64($0 >> 8 & 0xFF) | UInt64($0 & 0xFF) << 8 }) }
        for o in room.advance(to: 1 + seconds) where o.message.type == .notification && o.message.group == 2 && o.message.opcode == 0 {
            var r = UCIByteReader(o.message.payload)
            _ = r.take(24)
            let count = Int(r.u8() ?? 0)
            for _ in 0..<count {
                guard let a = r.u16(), let status = r.u8() else { break }
                _ = r.take(28)
                if status == 0, wanted[o.device].contains(UInt64(a)) { updates += 1 }
            }
        }
        let c = room.counters
        let exchanges = Double(max(1, c.exchanges - before.exchanges))
        let slots = mode == .perPeer ? 3 : k + 2
        return Row(phones: n, peers: k, mode: mode, sessions: sessions,
                   roundsPerSecond: Double(c.rounds - before.rounds) / seconds,
                   updatesPerPeerPerSecond: Double(updates) / seconds / Double(n * k),
                   collided: Double(c.collidedExchanges - before.collidedExchanges) / exchanges,
                   lostToLink: Double(c.lostExchanges - before.lostExchanges) / exchanges,
                   reportLatency: Double(slots) * 2400 * UCISession.rstu * 1000)
    }
}
