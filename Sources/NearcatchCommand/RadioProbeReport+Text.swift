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
                    + "\(f(e.p95Absolute)) \(f(e.p99Absolute))  \(unit)  n=\(e.count)")
        }
        lines.append("".padding(toLength: 22, withPad: " ", startingAt: 0)
            + ["bias", "sd", "rmse", "p50|e|", "p95|e|", "p99|e|"].map { $0.leftPadded(to: 8) }.joined(separator: " "))
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

extension [NearFieldRow] {
    /// The near-field table for a terminal: a row a distance, errors in centimetres.
    func nearFieldText(heading: String) -> String {
        var lines = [heading, ""]
        lines.append(["distance", "received", "read 0 m", "raw bias", "raw sd", "filtered bias"]
            .map { $0.leftPadded(to: 14) }.joined())
        for row in self {
            let r = row.report
            func cm(_ e: ErrorSummary?, _ value: (ErrorSummary) -> Double) -> String {
                e.map { String(format: "%.1f cm", value($0) * 100) } ?? "-"
            }
            lines.append([
                String(format: "%.0f cm", row.distance * 100), String(format: "%.1f%%", (1 - r.dropoutShare) * 100),
                String(format: "%.1f%%", r.clampedShare * 100), cm(r.rawDistance) { $0.bias },
                cm(r.rawDistance) { $0.standardDeviation }, cm(r.filteredDistance) { $0.bias },
            ].map { $0.leftPadded(to: 14) }.joined())
        }
        lines.append("")
        lines.append("read 0 m: the timestamps gave a negative distance, reported as 0 m (with --negative-distance "
            + "fail those exchanges are lost, and received falls by as much); raw: before that, filtered: what the "
            + "app reads")
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

extension ProfileRow {
    /// The profiles' table for a terminal, errors in centimetres, published figures beside the model's.
    static func text(_ rows: [ProfileRow], heading: String) -> String {
        func cm(_ v: Double) -> String { String(format: "%.1f", v * 100) }
        func pct(_ v: Double) -> String { String(format: "%.1f%%", v * 100) }
        var lines = [heading, "",
                     "profile   RMSE (published)   1 / 2 / 3 / 4 / 5 m, cm            <20 cm   p99      "
                     + "failing at 5 m (published)   at 5 cm: 0 m / fail   angle"]
        for r in rows {
            let published = r.published.map { "(\(cm($0.rootMeanSquare)))" } ?? "(none)"
            let failing = r.published?.failingOrientationsAtFiveMetres.map { "(\(pct($0)))" } ?? "(not published)"
            let byDistance = r.rootMeanSquareByDistance.map(cm).joined(separator: " / ")
            lines.append(r.profile.padding(toLength: 10, withPad: " ", startingAt: 0)
                + "\(cm(r.rootMeanSquare)) cm \(published)".padding(toLength: 19, withPad: " ", startingAt: 0)
                + byDistance.padding(toLength: 34, withPad: " ", startingAt: 0)
                + pct(r.underTwentyCentimetres).padding(toLength: 9, withPad: " ", startingAt: 0)
                + "\(cm(r.p99)) cm".padding(toLength: 9, withPad: " ", startingAt: 0)
                + "\(pct(r.failingOrientationsAtFiveMetres)) \(failing)".padding(toLength: 29, withPad: " ", startingAt: 0)
                + "\(pct(r.touchingReadsZero)) / \(pct(r.touchingFails))".padding(toLength: 22, withPad: " ", startingAt: 0)
                + (r.measuresAngle ? "yes" : "no"))
        }
        return lines.joined(separator: "\n")
    }
}
