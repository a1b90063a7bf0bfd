import GSL

/// The antenna baselines a device measures phase differences on, in the plane of the phone (x right, y top), in
/// wavelengths. A baseline of at most half a wavelength keeps the phase unambiguous over the front hemisphere.
package struct AntennaLayout: Sendable, Equatable {
    /// The baselines as (x, y) pairs, wavelengths.
    package let baselines: [SIMD2<Double>]
    /// Whether the baselines span the vertical axis too, so elevation (and a full direction) can be solved.
    package let measuresElevation: Bool
    /// Maps the baselines' measured path differences (wavelengths) to the direction cosines (u, v): the
    /// pseudo-inverse of the baseline matrix, row-major, 2 rows (1 when only azimuth is measured).
    let solver: [Double]

    // The presets below are constants whose solvability the test suite checks; `try!` cannot fail on them.

    /// Three antennas in an L, half a wavelength apart, as most phones carry: a horizontal and a vertical pair.
    package static let lShaped = try! AntennaLayout(baselines: [SIMD2(0.5, 0), SIMD2(0, 0.5)])
    /// A single horizontal pair: horizontal angle only, no direction vector.
    package static let horizontalPair = try! AntennaLayout(baselines: [SIMD2(0.5, 0)])
    /// Three antennas in an equilateral triangle of half-wavelength sides: three baselines over-determine the two
    /// direction cosines, which lowers the angle error by about a factor of 1.2 at the same phase noise.
    package static let triangle = try! AntennaLayout(baselines: [
        SIMD2(0.5, 0), SIMD2(0.25, 0.5 * 0.866_025_403_784_438_6), SIMD2(-0.25, 0.5 * 0.866_025_403_784_438_6),
    ])

    /// A layout from its baselines.
    ///
    /// The pseudo-inverse is solved once here by GSL's least squares, one unit observation vector at a time, so
    /// that a measurement costs only a small matrix-vector product in plain Swift.
    ///
    /// - Throws: ``GSLError`` when the baselines do not determine the direction (for example all of them zero).
    package init(baselines: [SIMD2<Double>]) throws(GSLError) {
        self.baselines = baselines
        let spansY = baselines.contains { $0.y != 0 }
        self.measuresElevation = spansY
        let design = baselines.map { spansY ? [$0.x, $0.y] : [$0.x] }
        let unknowns = spansY ? 2 : 1
        var pseudoInverse = [Double](repeating: 0, count: unknowns * baselines.count)
        for k in baselines.indices {
            var unit = [Double](repeating: 0, count: baselines.count)
            unit[k] = 1
            let column = try LeastSquares(design: design, observations: unit).coefficients
            for row in 0..<unknowns { pseudoInverse[row * baselines.count + k] = column[row] }
        }
        // A degenerate layout (a zero baseline column) gives a pseudo-inverse that cannot reproduce a direction.
        let check = Self.apply(pseudoInverse, unknowns: unknowns, to: design.map { $0[0] })
        guard abs(check.u - 1) < 1e-9 else {
            throw GSLError(code: 1, function: "gsl_multifit_linear (antenna layout does not determine the direction)")
        }
        self.solver = pseudoInverse
    }

    /// The number of unknowns solved for: 2 (u, v) or 1 (u).
    var unknowns: Int { measuresElevation ? 2 : 1 }

    /// Solves the direction cosines from the path differences measured on each baseline (wavelengths).
    ///
    /// `pathDifference` gives baseline `k`'s measured path difference, asked for in the baselines' order: the
    /// solution is summed as they come, so that no link keeps a buffer for them.
    @inline(__always)
    func solve(_ pathDifference: (Int, SIMD2<Double>) -> Double) -> (u: Double, v: Double?) {
        var u = 0.0
        var v = 0.0
        let n = baselines.count
        for (k, b) in baselines.enumerated() {
            let x = pathDifference(k, b)
            u += solver[k] * x
            if unknowns == 2 { v += solver[n + k] * x }
        }
        return (u, measuresElevation ? v : nil)
    }

    private static func apply(_ m: [Double], unknowns: Int, to x: [Double]) -> (u: Double, v: Double) {
        var u = 0.0
        var v = 0.0
        let n = x.count
        for k in 0..<n {
            u += m[k] * x[k]
            if unknowns == 2 { v += m[n + k] * x[k] }
        }
        return (u, v)
    }
}
