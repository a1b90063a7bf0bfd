import GSL
import Testing

@Suite struct RandomSourceTests {
    private func draws(_ r: RandomSource, _ n: Int) -> [Double] {
        (0..<n).flatMap { _ in
            [r.uniform(), r.gaussian(sigma: 1), r.exponential(mean: 2), r.bernoulli(0.3) ? 1 : 0]
        }
    }

    @Test(arguments: RandomSource.Algorithm.allCases)
    func sameSeedGivesSameSequence(_ algorithm: RandomSource.Algorithm) throws {
        let a = draws(try RandomSource(seed: 42, algorithm: algorithm), 1000)
        let b = draws(try RandomSource(seed: 42, algorithm: algorithm), 1000)
        #expect(a == b)
        #expect(a.count == 4000)
    }

    @Test func differentSeedsGiveDifferentSequences() throws {
        let a = draws(try RandomSource(seed: 1), 100)
        let b = draws(try RandomSource(seed: 2), 100)
        let c = draws(try RandomSource(seed: 0), 100)
        let equal = zip(a, b).filter { $0 == $1 }.count
        // Only the Bernoulli draws (a quarter of the values, 0 or 1) can coincide by chance.
        #expect(equal < 60)
        #expect(a != c && b != c)
    }

    @Test func streamsAreNamedNotOrdered() {
        #expect(StreamIdentity.pair(3, 9).derivedSeed(from: 7) == StreamIdentity.pair(9, 3).derivedSeed(from: 7))
        #expect(StreamIdentity.pair(3, 9).derivedSeed(from: 7) != StreamIdentity.pair(3, 9).derivedSeed(from: 8))
        #expect(StreamIdentity.device(3).derivedSeed(from: 7) != StreamIdentity.pair(3, 0).derivedSeed(from: 7))
        // 10,000 neighbouring pairs give 10,000 distinct seeds.
        let seeds = Set((0..<100).flatMap { a in (100..<200).map { StreamIdentity.pair(UInt64(a), UInt64($0)) } }
            .map { $0.derivedSeed(from: 1) })
        #expect(seeds.count == 10_000)
    }

    @Test(arguments: RandomSource.Algorithm.allCases)
    func threeGaussiansInOneCallAreThreeInARow(_ algorithm: RandomSource.Algorithm) throws {
        let one = try RandomSource(seed: 7, algorithm: algorithm)
        let three = try RandomSource(seed: 7, algorithm: algorithm)
        let singly = (0..<3000).map { _ in one.gaussian(sigma: 0.3) }
        let triples = (0..<1000).flatMap { _ in
            let g = three.gaussians(sigma: 0.3)
            return [g.x, g.y, g.z]
        }
        #expect(triples == singly)
        // And the streams stay in step after them.
        #expect(one.uniform() == three.uniform())
    }

    @Test func distributionsHaveTheirMoments() throws {
        let r = try RandomSource(seed: 2024)
        let n = 200_000
        let gauss = (0..<n).map { _ in r.gaussian(sigma: 0.5) }
        let g = try #require(Statistics(gauss))
        // Standard error of the mean is 0.5/sqrt(n) = 0.0011; of the sd about 0.5/sqrt(2n) = 0.0008.
        #expect(abs(g.mean) < 0.005)
        #expect(abs(g.standardDeviation - 0.5) < 0.004)

        let e = try #require(Statistics((0..<n).map { _ in r.exponential(mean: 0.3) }))
        #expect(abs(e.mean - 0.3) < 0.003)
        #expect(e.minimum >= 0)

        let u = try #require(Statistics((0..<n).map { _ in r.uniform(in: -2..<3) }))
        #expect(u.minimum >= -2 && u.maximum < 3)
        #expect(abs(u.mean - 0.5) < 0.02)

        let hits = (0..<n).filter { _ in r.bernoulli(0.2) }.count
        #expect(abs(Double(hits) / Double(n) - 0.2) < 0.005)
    }

    @Test(arguments: RandomSource.Algorithm.allCases)
    func streamsSideBySideDrawWhatTheirOwnGeneratorsDraw(_ algorithm: RandomSource.Algorithm) throws {
        // 300 streams (growing past their first block of 64 and again), seed 0 among them, drawn in turn as pairs
        // are read: every draw equal to the same stream's own generator, bit for bit.
        let streams = RandomStreams(algorithm: algorithm)
        var own: [RandomSource] = []
        var mismatches = 0, draws = 0
        for i in 0..<300 {
            let seed = i == 7 ? 0 : StreamIdentity.pair(UInt64(i), 1_000).derivedSeed(from: 3)
            try streams.append(seed: seed)
            own.append(try RandomSource(seed: seed, algorithm: algorithm))
            for j in stride(from: i, through: 0, by: -37) {
                let (a, u) = streams.withDraws { ($0.gaussian(j, sigma: 6), $0.uniform(j)) }
                let b = own[j].gaussian(sigma: 6), v = own[j].uniform()
                mismatches += (a.bitPattern == b.bitPattern ? 0 : 1) + (u.bitPattern == v.bitPattern ? 0 : 1)
                draws += 2
            }
        }
        #expect(streams.count == 300)
        #expect(draws == 2_736)
        #expect(mismatches == 0)
    }
}
