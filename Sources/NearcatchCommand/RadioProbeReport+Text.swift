import Calibration
import Foundation

extension RadioProbeReport {
    /// The report as an aligned table for a terminal.
    func text(heading: String) -> String {
        var lines = [heading, ""]
        func row(_ name: String, _ e: ErrorSummary?, unit: String, scale: Double, digits: Int) {
            guard let e else {
                lines.append(name.padding(toLength: 22, withPad: " ", startingAt: 0) + "no measurements")
                return
            }
            func f(_ x: Double) -> String { String(format: "%\(digits + 6).\(digits)f", x * scale) }
            lines.append(
                name.padding(toLength: 22, withPad: " ", startingAt: 0)
                    + "\(f(e.bias)) \(f(e.standardDeviation)) \(f(e.rootMeanSquare)) \(f(e.medianAbsolute)) "
                    + "\(f(e.p95Absolute))  \(unit)  n=\(e.count)")
        }
        lines.append("".padding(toLength: 22, withPad: " ", startingAt: 0)
            + ["bias", "sd", "rmse", "p50|e|", "p95|e|"].map { $0.leftPadded(to: 8) }.joined(separator: " "))
        row("distance raw", rawDistance, unit: "cm", scale: 100, digits: 2)
        row("distance filtered", filteredDistance, unit: "cm", scale: 100, digits: 2)
        row("azimuth raw", azimuthDegrees, unit: "deg", scale: 1, digits: 2)
        row("elevation raw", elevationDegrees, unit: "deg", scale: 1, digits: 2)
        row("direction raw", rawDirectionDegrees, unit: "deg", scale: 1, digits: 2)
        row("direction smoothed", smoothedDirectionDegrees, unit: "deg", scale: 1, digits: 2)
        lines.append("")
        lines.append(String(format: "dropouts %.2f%%   out of range %.2f%%   non line of sight %.2f%%   "
            + "no direction %.2f%%", dropoutShare * 100, outOfRangeShare * 100, nonLineOfSightShare * 100,
            noDirectionShare * 100))
        lines.append("range gate: \(gateRefusals) refused, \(filterRestarts) restarts")
        if clampedShare > 0 {
            lines.append(String(format: "read as 0 m: %.2f%% (the timestamps gave a negative distance; the raw row "
                + "scores them before that clamp)", clampedShare * 100))
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
