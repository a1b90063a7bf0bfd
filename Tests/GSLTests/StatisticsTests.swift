import GSL
import Testing

@Suite struct StatisticsTests {
    @Test func knownSample() throws {
        let s = try #require(Statistics([5, 1, 4, 2, 3]))
        #expect(s.count == 5)
        #expect(s.mean == 3)
        #expect(abs(s.standardDeviation - 2.5.squareRoot()) < 1e-12)
        #expect(abs(s.rootMeanSquare - 11.0.squareRoot()) < 1e-12)
        #expect(s.median == 3)
        #expect(s.quantile(0.25) == 2)
        #expect(s.quantile(0.95) == 4.8)
        #expect(s.minimum == 1 && s.maximum == 5)
    }

    @Test func emptySampleHasNoStatistics() {
        #expect(Statistics([]) == nil)
    }

    @Test func singleValueHasZeroSpread() throws {
        let s = try #require(Statistics([7]))
        #expect(s.standardDeviation == 0)
        #expect(s.quantile(0.95) == 7)
    }
}
