import GSL
import Geometry
import Testing
@testable import World

@Suite struct NeighbourGridTests {
    /// Points on both sides of both axes, several to a cell, some exactly on cell edges.
    private func points(seed: UInt64) throws -> [Vector3] {
        let random = try RandomSource(seed: seed)
        var points = (0..<400).map { _ in
            Vector3(random.uniform(in: -6..<6), random.uniform(in: -6..<6), random.uniform(in: 0..<2))
        }
        points += [Vector3(0, 0, 1), Vector3(0.5, 0, 1), Vector3(-0.5, 0, 1), Vector3(0, -0.5, 1), Vector3(0.5, 0.5, 0)]
        return points
    }

    private func horizontal(_ a: Vector3, _ b: Vector3) -> Double {
        var d = a - b
        d.z = 0
        return d.length
    }

    /// Offset 0 puts points on both sides of both axes; +100 m puts every cell at positive coordinates, where the
    /// grid orders its points as packed integers, and -100 m every one at negative ones, where it compares pairs.
    @Test(arguments: [0.5, 1.5], [0.0, 100, -100])
    func everyPairCloserThanACellIsFoundOnceInAscendingOrder(cell: Double, offset: Double) throws {
        let points = try points(seed: 11).map { $0 + Vector3(offset, offset, 0) }
        let grid = NeighbourGrid(points, cell: cell)
        let pairs = grid.candidatePairs().map { Int64($0.0) << 32 | Int64($0.1) }
        // The same pairs, in the same order, as each point's candidates give.
        let each = points.indices.flatMap { i in
            grid.candidates(near: points[i]).filter { $0 > i }.sorted().map { Int64(i) << 32 | Int64($0) }
        }
        #expect(pairs == each)
        #expect(pairs.allSatisfy { $0 >> 32 < $0 & 0xFFFF_FFFF })
        #expect(zip(pairs, pairs.dropFirst()).allSatisfy { $0 < $1 })
        let found = Set(pairs)
        var close = 0
        for i in points.indices {
            for j in (i + 1)..<points.count where horizontal(points[i], points[j]) < cell {
                close += 1
                #expect(found.contains(Int64(i) << 32 | Int64(j)), "pair \(i), \(j) missed")
            }
        }
        #expect(close > 100)
        // Candidates come from the 3 x 3 cells around a point, nothing further.
        for (i, j) in pairs.map({ (Int($0 >> 32), Int($0 & 0xFFFF_FFFF)) }) {
            #expect(horizontal(points[i], points[j]) < 2 * cell * 2.0.squareRoot() + 1e-9)
        }
    }

    @Test func candidatesNearAPointAreEveryPointWithinACellAndEachOnce() throws {
        let points = try points(seed: 12)
        let cell = 0.75
        let grid = NeighbourGrid(points, cell: cell)
        for query in [Vector3(0, 0, 0), Vector3(-3.2, 4.9, 1), Vector3(5.99, -5.99, 0), Vector3(40, 40, 0)] {
            let candidates = grid.candidates(near: query)
            #expect(Set(candidates).count == candidates.count)
            let within = points.indices.filter { horizontal(points[$0], query) < cell }
            #expect(Set(within).isSubset(of: Set(candidates)))
        }
        #expect(grid.candidates(near: Vector3(40, 40, 0)).isEmpty)
        #expect(NeighbourGrid([], cell: 1).candidatePairs().isEmpty)
    }
}
