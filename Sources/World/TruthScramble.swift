import GSL

/// Relabels what only the scorer reads: the contacts and near misses the truth records, and who walks to whom, are
/// told of a seeded permutation of the devices instead of the devices themselves. The people move as before and
/// every device observes what it did; a run whose devices read none of the scorer's truth gives the same record of
/// observations and actions either way (`devicesAreBlindToTheTruth`).
package struct TruthScramble: Sendable, Equatable {
    package let seed: UInt64

    package init(seed: UInt64) {
        self.seed = seed
    }

    /// A permutation of `count` devices that moves every one of them (for two or more): the label of device `d`.
    func labels(_ count: Int) throws -> [Int] {
        guard count >= 2 else { return Array(0..<count) }
        let random = try RandomSource(runSeed: seed, stream: StreamIdentity(kind: .scenario, first: 2, second: 0))
        // Sattolo's shuffle: a single cycle through every device, so that no device keeps its own label.
        var labels = Array(0..<count)
        for i in stride(from: count - 1, to: 0, by: -1) {
            let j = min(Int(random.uniform() * Double(i)), i - 1)
            labels.swapAt(i, j)
        }
        return labels
    }
}
