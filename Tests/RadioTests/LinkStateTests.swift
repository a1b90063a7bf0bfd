import Foundation
import GSL
import Radio
import Testing

@Suite struct LinkStateTests {
    /// Sampled every 0.1 s, a state of mean duration T is left with probability p = 1 - exp(-0.1 / T) per step,
    /// so its runs are geometric with mean 1 / p steps: 200.5 steps for 20 s of line of sight, 20.5 for 2 s of
    /// obstruction. About 9,000 runs of each are seen; the standard error of their means is about 1%.
    @Test func runLengthsMatchTheMarkovParameters() throws {
        var c = RadioConfiguration()
        c.linkModel = .markov
        let random = try RandomSource(seed: 99)
        var link = LinkState()
        var runs: [Bool: [Int]] = [true: [], false: []]
        var current = link.step(to: 0, configuration: c, random: random)
        var length = 1
        var obstructed = current ? 0 : 1
        let steps = 2_000_000
        for i in 1..<steps {
            let state = link.step(to: Double(i) * 0.1, configuration: c, random: random)
            if !state { obstructed += 1 }
            if state == current {
                length += 1
            } else {
                runs[current, default: []].append(length)
                current = state
                length = 1
            }
        }
        let losMean = Double(runs[true]!.reduce(0, +)) / Double(runs[true]!.count)
        let nlosMean = Double(runs[false]!.reduce(0, +)) / Double(runs[false]!.count)
        let expectedLOS = 1 / (1 - exp(-0.1 / 20))
        let expectedNLOS = 1 / (1 - exp(-0.1 / 2))
        #expect(runs[true]!.count > 8000)
        #expect(abs(losMean / expectedLOS - 1) < 0.05)
        #expect(abs(nlosMean / expectedNLOS - 1) < 0.05)
        #expect(abs(Double(obstructed) / Double(steps) - 2.0 / 22.0) < 0.006)
    }

    @Test func forcedStatesDoNotChange() throws {
        let random = try RandomSource(seed: 1)
        var c = RadioConfiguration()
        c.linkModel = .nonLineOfSight
        var link = LinkState()
        #expect((0..<1000).allSatisfy { !link.step(to: Double($0), configuration: c, random: random) })
    }
}
