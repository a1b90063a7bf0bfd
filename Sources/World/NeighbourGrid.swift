import Geometry

/// Points binned into square cells of the horizontal plane, so that the pairs closer than the cell size are found
/// in about O(N) rather than by checking all N^2 pairs.
struct NeighbourGrid {
    let cell: Double
    private var cells: [SIMD2<Int>: [Int]] = [:]
    private let points: [Vector3]

    init(_ points: [Vector3], cell: Double) {
        self.cell = cell
        self.points = points
        for (i, p) in points.enumerated() { cells[key(p), default: []].append(i) }
    }

    private func key(_ p: Vector3) -> SIMD2<Int> {
        SIMD2(Int((p.x / cell).rounded(.down)), Int((p.y / cell).rounded(.down)))
    }

    /// The points in the cell of `p` and the eight around it (every point within `cell` of `p` is among them).
    func candidates(near p: Vector3) -> [Int] {
        let centre = key(p)
        var found: [Int] = []
        for dx in -1...1 {
            for dy in -1...1 { found += cells[centre &+ SIMD2(dx, dy)] ?? [] }
        }
        return found
    }

    /// Every pair (i < j) in neighbouring cells, each once, in ascending order: a stable order, unlike the
    /// dictionary's, so that what is done with the pairs is the same in every run.
    func candidatePairs() -> [(Int, Int)] {
        var pairs: [(Int, Int)] = []
        for (i, p) in points.enumerated() {
            for j in candidates(near: p) where i < j { pairs.append((i, j)) }
        }
        pairs.sort { $0 < $1 }
        return pairs
    }
}
