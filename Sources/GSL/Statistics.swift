import CGSL

/// Summary statistics of a sample, computed by GSL, for reports.
package struct Statistics: Sendable, Equatable {
    /// Number of values.
    package let count: Int
    package let mean: Double
    /// Sample standard deviation (n - 1 in the denominator).
    package let standardDeviation: Double
    /// Root mean square of the values themselves (the RMSE when the values are errors).
    package let rootMeanSquare: Double
    package let minimum: Double
    package let maximum: Double
    private let sorted: [Double]

    /// Computes the statistics of `values`.
    ///
    /// - Returns: `nil` for an empty sample, which has no mean.
    /// - Complexity: O(n log n), for the sort that quantiles need.
    package init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        GSLLibrary.prepare()
        let sorted = values.sorted()
        let n = sorted.count
        self.count = n
        self.sorted = sorted
        self.mean = sorted.withUnsafeBufferPointer { gsl_stats_mean($0.baseAddress, 1, n) }
        self.standardDeviation = n > 1 ? sorted.withUnsafeBufferPointer { gsl_stats_sd($0.baseAddress, 1, n) } : 0
        let sumOfSquares = sorted.withUnsafeBufferPointer { gsl_stats_tss_m($0.baseAddress, 1, n, 0) }
        self.rootMeanSquare = (sumOfSquares / Double(n)).squareRoot()
        self.minimum = sorted[0]
        self.maximum = sorted[n - 1]
    }

    /// The quantile at `fraction` (0 ... 1), interpolated between order statistics as GSL does.
    package func quantile(_ fraction: Double) -> Double {
        let f = min(max(fraction, 0), 1)
        return sorted.withUnsafeBufferPointer {
            gsl_stats_quantile_from_sorted_data($0.baseAddress, 1, $0.count, f)
        }
    }

    /// The median.
    package var median: Double { quantile(0.5) }

    /// Half the width of the two-sided confidence interval of the mean at `level` (0.95: 95%), from Student's t
    /// with count - 1 degrees of freedom; `nil` for fewer than two values, which give no spread to judge by.
    package func confidenceHalfWidth(level: Double = 0.95) -> Double? {
        guard count > 1, level > 0, level < 1 else { return nil }
        return Self.studentQuantile((1 + level) / 2, degreesOfFreedom: Double(count - 1))
            * standardDeviation / Double(count).squareRoot()
    }

    /// The quantile of Student's t distribution at `probability` with `degreesOfFreedom`, as GSL computes it.
    package static func studentQuantile(_ probability: Double, degreesOfFreedom: Double) -> Double {
        GSLLibrary.prepare()
        return gsl_cdf_tdist_Pinv(probability, degreesOfFreedom)
    }
}
