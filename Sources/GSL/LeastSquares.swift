import CGSL

/// Ordinary linear least squares, `minimise |X b - y|`, solved by GSL's SVD-based `gsl_multifit_linear`.
///
/// Used where an unknown is over-determined by several measurements (an antenna array with more baselines than
/// unknowns). For exactly determined 2x2 systems the callers use plain Swift instead, which is measured faster.
package struct LeastSquares: Sendable, Equatable {
    /// The fitted coefficients, one per column of the design matrix.
    package let coefficients: [Double]
    /// The residual sum of squares.
    package let residualSumOfSquares: Double

    /// Fits `observations ≈ design × coefficients`.
    ///
    /// - Parameters:
    ///   - design: the rows of the design matrix, all of the same length p.
    ///   - observations: one value per row.
    /// - Throws: ``GSLError`` when GSL refuses the system (for example `GSL_EBADLEN` for mismatched sizes, or too few
    ///   observations for the unknowns).
    package init(design: [[Double]], observations: [Double]) throws(GSLError) {
        GSLLibrary.prepare()
        let n = design.count
        let p = design.first?.count ?? 0
        guard n > 0, p > 0, design.allSatisfy({ $0.count == p }) else {
            throw GSLError(code: Int32(GSL_EBADLEN), function: "gsl_multifit_linear")
        }
        guard let x = gsl_matrix_alloc(n, p) else { throw GSLError(code: Int32(GSL_ENOMEM), function: "gsl_matrix_alloc") }
        defer { gsl_matrix_free(x) }
        guard let y = gsl_vector_alloc(observations.count) else {
            throw GSLError(code: Int32(GSL_ENOMEM), function: "gsl_vector_alloc")
        }
        defer { gsl_vector_free(y) }
        guard let c = gsl_vector_alloc(p) else { throw GSLError(code: Int32(GSL_ENOMEM), function: "gsl_vector_alloc") }
        defer { gsl_vector_free(c) }
        guard let cov = gsl_matrix_alloc(p, p) else { throw GSLError(code: Int32(GSL_ENOMEM), function: "gsl_matrix_alloc") }
        defer { gsl_matrix_free(cov) }
        guard let work = gsl_multifit_linear_alloc(n, p) else {
            throw GSLError(code: Int32(GSL_ENOMEM), function: "gsl_multifit_linear_alloc")
        }
        defer { gsl_multifit_linear_free(work) }

        for (i, row) in design.enumerated() {
            for (j, value) in row.enumerated() { gsl_matrix_set(x, i, j, value) }
        }
        for (i, value) in observations.enumerated() { gsl_vector_set(y, i, value) }

        var chiSquare = 0.0
        try GSLError.check(gsl_multifit_linear(x, y, c, cov, &chiSquare, work), "gsl_multifit_linear")
        self.coefficients = (0..<p).map { gsl_vector_get(c, $0) }
        self.residualSumOfSquares = chiSquare
    }
}
