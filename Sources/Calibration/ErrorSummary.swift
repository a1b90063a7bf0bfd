import GSL

/// Statistics of a set of signed errors, for reports: bias, spread and quantiles of the magnitude.
package struct ErrorSummary: Sendable, Equatable, Codable {
    /// How many errors were summarised.
    package let count: Int
    /// Mean signed error.
    package let bias: Double
    /// Sample standard deviation of the signed error.
    package let standardDeviation: Double
    /// Root mean square error.
    package let rootMeanSquare: Double
    /// Median of the absolute error.
    package let medianAbsolute: Double
    /// 95th percentile of the absolute error.
    package let p95Absolute: Double
    /// 99th percentile of the absolute error: where the tail shows.
    package let p99Absolute: Double

    /// Summarises `errors`; `nil` when there are none.
    package init?(_ errors: [Double]) {
        guard let signed = Statistics(errors), let magnitude = Statistics(errors.map(abs)) else { return nil }
        count = signed.count
        bias = signed.mean
        standardDeviation = signed.standardDeviation
        rootMeanSquare = signed.rootMeanSquare
        medianAbsolute = magnitude.median
        p95Absolute = magnitude.quantile(0.95)
        p99Absolute = magnitude.quantile(0.99)
    }

    /// The same summary with every value multiplied by `factor` (for unit conversion).
    package func scaled(by factor: Double) -> ErrorSummary {
        ErrorSummary(
            count: count, bias: bias * factor, standardDeviation: standardDeviation * factor,
            rootMeanSquare: rootMeanSquare * factor, medianAbsolute: medianAbsolute * factor,
            p95Absolute: p95Absolute * factor, p99Absolute: p99Absolute * factor)
    }

    private init(
        count: Int, bias: Double, standardDeviation: Double, rootMeanSquare: Double, medianAbsolute: Double,
        p95Absolute: Double, p99Absolute: Double
    ) {
        self.count = count
        self.bias = bias
        self.standardDeviation = standardDeviation
        self.rootMeanSquare = rootMeanSquare
        self.medianAbsolute = medianAbsolute
        self.p95Absolute = p95Absolute
        self.p99Absolute = p99Absolute
    }
}
