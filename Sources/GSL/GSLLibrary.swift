import CGSL

/// Process-wide preparation of GSL, done once before the first call into it.
///
/// GSL's default error handler calls `abort()`: one malformed input would kill a whole simulation. Turning it off
/// makes every GSL function report through its return code, which this module turns into ``GSLError``.
enum GSLLibrary {
    /// Evaluated once, thread-safely, by the Swift runtime's lazy global initialisation.
    private static let prepared: Bool = {
        _ = gsl_set_error_handler_off()
        return true
    }()

    /// Makes sure the aborting handler is off; cheap after the first call.
    @inline(__always)
    static func prepare() {
        _ = prepared
    }
}
