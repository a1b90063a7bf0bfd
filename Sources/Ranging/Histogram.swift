/// Counts of values in fixed bins, for quantiles of millions of values in constant memory. Integer counts add up
/// exactly, so merging per-worker histograms gives the same result however the work was split.
package struct Histogram: Sendable, Equatable {
    package let binWidth: Double
    /// 1 / binWidth: a multiplication per value instead of a division (five values per exchange in a run).
    private let binsPerUnit: Double
    private(set) var counts: [UInt64]
    /// Values added; those beyond the last bin are counted in it.
    package private(set) var total: UInt64 = 0

    /// A histogram of `bins` bins of `binWidth` from 0; larger values fall in the last bin.
    package init(binWidth: Double, bins: Int) {
        self.binWidth = binWidth
        binsPerUnit = 1 / binWidth
        counts = [UInt64](repeating: 0, count: bins)
    }

    @inline(__always)
    package mutating func add(_ value: Double) {
        // Clamped before the conversion, which would trap on a finite value beyond Int's range.
        let bin = value.isFinite && value > 0 ? Int(min(value * binsPerUnit, Double(counts.count - 1))) : 0
        counts[bin] += 1
        total += 1
    }

    package mutating func merge(_ other: Histogram) {
        for i in counts.indices { counts[i] += other.counts[i] }
        total += other.total
    }

    /// The value under which `fraction` of the values lie, to the bin's middle; `nil` when empty.
    package func quantile(_ fraction: Double) -> Double? {
        guard total > 0 else { return nil }
        let rank = UInt64((fraction * Double(total)).rounded(.up))
        var seen: UInt64 = 0
        for (i, c) in counts.enumerated() {
            seen += c
            if seen >= max(rank, 1) { return (Double(i) + 0.5) * binWidth }
        }
        return (Double(counts.count) - 0.5) * binWidth
    }
}
