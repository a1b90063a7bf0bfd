import GSL

/// Relabels what only the scorer reads: the contacts and near misses the truth records, and who walks to whom, are
/// told of a seeded permutation of the devices instead of the devices themselves; each scripted encounter's class
/// is told as another class once its gesture is planned (a label makes a script, never a signal); and the scorer's
/// own distances (how close a near miss comes, how close a pair is watched from) are others. The people move as
/// before and every device observes what it did; a run whose devices and sensors read none of the scorer's truth
/// gives the same record of observations and actions either way (`devicesAreBlindToTheTruth`).
package struct TruthScramble: Sendable, Equatable {
    package let seed: UInt64

    package init(seed: UInt64) {
        self.seed = seed
    }

    /// The scorer's distances under the scramble: a near miss within 31 cm of the bodies, pairs watched from 62 cm
    /// between the centres (not 25 and 50).
    package static let tracker = ContactTracker(nearMissDistance: 0.31, approachDistance: 0.62)

    /// A permutation of `count` devices that moves every one of them (for two or more): the label of device `d`.
    func labels(_ count: Int) throws -> [Int] {
        try derangement(count, stream: 2)
    }

    /// The label each class of encounter is told as: a permutation that moves every class.
    func classes() throws -> [EncounterClass: EncounterClass] {
        let all = EncounterClass.allCases
        let order = try derangement(all.count, stream: 3)
        return Dictionary(uniqueKeysWithValues: all.indices.map { (all[$0], all[order[$0]]) })
    }

    private func derangement(_ count: Int, stream: UInt64) throws -> [Int] {
        guard count >= 2 else { return Array(0..<count) }
        let random = try RandomSource(runSeed: seed, stream: StreamIdentity(kind: .scenario, first: stream, second: 0))
        // Sattolo's shuffle: a single cycle through every element, so that none keeps its own place.
        var labels = Array(0..<count)
        for i in stride(from: count - 1, to: 0, by: -1) {
            let j = min(Int(random.uniform() * Double(i)), i - 1)
            labels.swapAt(i, j)
        }
        return labels
    }
}
