import CGSL

/// A failure reported by GSL through its return code, with the function that reported it.
package struct GSLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// GSL's status code (`GSL_EDOM`, `GSL_EBADLEN`, ...), as the C function returned it.
    package let code: Int32
    /// The C function that returned the code.
    package let function: String

    /// Wraps a GSL status code.
    package init(code: Int32, function: String) {
        self.code = code
        self.function = function
    }

    /// GSL's own sentence for the code.
    package var reason: String {
        String(cString: gsl_strerror(code))
    }

    package var description: String {
        "GSL \(function) failed with code \(code): \(reason)"
    }

    /// Throws unless `code` is `GSL_SUCCESS`.
    static func check(_ code: Int32, _ function: String) throws(GSLError) {
        guard code == Int32(GSL_SUCCESS) else { throw GSLError(code: code, function: function) }
    }
}
