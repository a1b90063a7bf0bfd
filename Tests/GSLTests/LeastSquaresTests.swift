import GSL
import Testing

@Suite struct LeastSquaresTests {
    @Test func fitsALine() throws {
        let xs = (0..<10).map(Double.init)
        let fit = try LeastSquares(design: xs.map { [1, $0] }, observations: xs.map { 2 + 0.5 * $0 })
        #expect(abs(fit.coefficients[0] - 2) < 1e-12)
        #expect(abs(fit.coefficients[1] - 0.5) < 1e-12)
        #expect(fit.residualSumOfSquares < 1e-20)
    }

    @Test func overDeterminedFitMinimisesResiduals() throws {
        let fit = try LeastSquares(design: [[1], [1], [1]], observations: [1, 2, 6])
        #expect(abs(fit.coefficients[0] - 3) < 1e-12)
        #expect(abs(fit.residualSumOfSquares - 14) < 1e-12)
    }

    /// With GSL's default handler this mismatch would abort the process inside gsl_multifit_linear; here the code
    /// comes back as a Swift error naming the function.
    @Test func gslFailureIsASwiftError() {
        do {
            _ = try LeastSquares(design: [[1, 0], [0, 1], [1, 1]], observations: [1, 2])
            Issue.record("a mismatched system was accepted")
        } catch {
            #expect(error.code == 19)  // GSL_EBADLEN
            #expect(error.function == "gsl_multifit_linear")
            #expect(error.description.contains("gsl_multifit_linear failed with code 19"))
        }
    }

    @Test func raggedDesignIsRefused() {
        #expect(throws: GSLError.self) {
            try LeastSquares(design: [[1, 0], [1]], observations: [1, 2])
        }
    }
}
