import Foundation
import Geometry
import Testing
import World

/// The world's Bluetooth readings: log-distance path loss from −59 dBm at 1 m with exponent 2, shadowing of 6 dB, and
/// nothing heard under −90 dBm.
@Suite struct BluetoothSignalsTests {
    private static func readings(at distance: Double, count: Int = 4_000) throws -> [Float] {
        var signals = BluetoothSignals(seed: 5)
        let poses = [Pose(position: Vector3(0, 0, 1.2), orientation: Orientation(heading: 0)),
                     Pose(position: Vector3(distance, 0, 1.2), orientation: Orientation(heading: 0))]
        return try (0..<count).map { _ throws in
            try signals.read(poses, pairs: 1) { _ in (0, 1) }
            return signals.readings[0]
        }
    }

    /// A pair's readings come from its own stream: the same whether it is read alone or after other pairs, and
    /// whichever index it has.
    @Test func aPairsReadingsDoNotDependOnTheOtherPairs() throws {
        let poses = (0..<4).map { Pose(position: Vector3(Double($0) * 3, 0, 1.2), orientation: Orientation(heading: 0)) }
        var alone = BluetoothSignals(seed: 9)
        var among = BluetoothSignals(seed: 9)
        let others = [(0, 1), (2, 3), (1, 3), (0, 2)]
        var first: [Float] = [], later: [Float] = []
        for _ in 0..<50 {
            try alone.read(poses, pairs: 1) { _ in (0, 2) }
            first.append(alone.readings[0])
            try among.read(poses, pairs: 4) { others[$0] }
            later.append(among.readings[3])
        }
        #expect(first == later)
        #expect(first.filter(\.isFinite).count == 50)
    }

    @Test(arguments: [1.0, 2.0, 4.0])
    func pathLossAndShadowing(_ distance: Double) throws {
        let r = try Self.readings(at: distance).filter(\.isFinite).map(Double.init)
        let mean = r.reduce(0, +) / Double(r.count)
        let sd = (r.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(r.count - 1)).squareRoot()
        // Over 4,000 readings the mean's standard error is 0.1 dB; the readings not heard (under −90 dBm, 3.2
        // spreads below the mean at 4 m: 0.07% of them) are too few to move it.
        #expect(abs(mean - (-59 - 20 * log10(distance))) < 0.35, "mean \(mean)")
        #expect(abs(sd - 6) < 0.3, "sd \(sd)")
    }

    /// At 50 m the mean reading is −93 dBm, 3 dB under what a phone hears: about 31% of readings are heard
    /// (P(N(0, 6) > 3) = 0.31); beyond 141 m (the mean 12 dB under) none is drawn.
    @Test func farPairsAreHeardByChanceOrNotAtAll() throws {
        let at50 = try Self.readings(at: 50)
        let heard = Double(at50.count { $0.isFinite }) / Double(at50.count)
        #expect(abs(heard - 0.309) < 0.03, "heard \(heard)")
        #expect(at50.allSatisfy { !$0.isFinite || $0 >= -90 })
        #expect(try Self.readings(at: 150, count: 500).allSatisfy { $0.isNaN })
    }
}
