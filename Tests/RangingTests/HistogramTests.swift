import Planning
import Ranging
import Testing

@Suite struct HistogramTests {
    @Test func valuesFallInTheirBinsAndQuantilesReadBinMiddles() {
        var h = Histogram(binWidth: 0.01, bins: 100)
        for k in 0..<100 { h.add(Double(k) * 0.01 + 0.005) }
        #expect(h.total == 100)
        #expect(abs(h.quantile(0.5)! - 0.495) < 1e-12)
        #expect(abs(h.quantile(0.95)! - 0.945) < 1e-12)
        #expect(abs(h.quantile(1)! - 0.995) < 1e-12)
    }

    @Test func valuesOutOfRangeAreCountedAtTheEndsWithoutTrapping() {
        var h = Histogram(binWidth: 0.001, bins: 10)
        for value in [1e300, .infinity, 5.0, 0.0095] { h.add(value) }
        for value in [-1.0, .nan, 0, -.infinity] { h.add(value) }
        #expect(h.total == 8)
        // Infinities and NaN land in the first bin with the non-positive values; finite values too large, in the last.
        #expect(abs(h.quantile(5.0 / 8)! - 0.0005) < 1e-12)
        #expect(abs(h.quantile(6.0 / 8)! - 0.0095) < 1e-12)
        #expect(abs(h.quantile(1)! - 0.0095) < 1e-12)
    }
}

@Suite struct HistogramMergeTests {
    /// Merged halves give the same counts and quantiles as one histogram of everything, whatever the split.
    @Test func mergingIsTheSameAsAddingEverything() {
        let values = (0..<1_000).map { Double(($0 * 7_919) % 1_000) * 0.0013 }
        var whole = Histogram(binWidth: 0.01, bins: 50)
        for v in values { whole.add(v) }
        for split in [0, 1, 333, 999] {
            var a = Histogram(binWidth: 0.01, bins: 50)
            var b = Histogram(binWidth: 0.01, bins: 50)
            for v in values[..<split] { a.add(v) }
            for v in values[split...] { b.add(v) }
            a.merge(b)
            #expect(a == whole)
            #expect(a.quantile(0.9) == whole.quantile(0.9))
        }
        #expect(whole.total == 1_000)
    }
}
