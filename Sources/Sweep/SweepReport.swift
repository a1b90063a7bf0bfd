import Foundation
import GSL

/// A sweep's figures: for each grid point and metric, the runs that gave a value, their mean, standard deviation
/// and the 95% confidence interval of the mean (Student's t); as a terminal table, CSV, Markdown, or an SVG plot.
package struct SweepReport: Sendable {
    package let spec: SweepSpec
    package let rows: [Row]
    /// Planned runs with neither a result nor a failure: the sweep has not run them yet.
    package var missing: Int { rows.reduce(0) { $0 + $1.missing } }

    package struct Row: Sendable {
        package let point: [String: String]
        package let done: Int
        package let failed: Int
        package let missing: Int
        /// One a metric, in the spec's order; `nil` where no run gave the metric a value.
        package let cells: [Cell?]
    }

    package struct Cell: Sendable, Equatable {
        package let count: Int
        package let mean: Double
        package let standardDeviation: Double
        /// Half the 95% interval's width; `nil` from one value.
        package let halfWidth: Double?
    }

    /// Reads the folder's plan and results.
    package init(folder: SweepFolder) throws(SweepError) {
        spec = try folder.spec()
        let plan = try folder.plan()
        var order: [String] = []
        var byPoint: [String: [PlannedRun]] = [:]
        for run in plan {
            let key = run.pointLabel
            if byPoint[key] == nil { order.append(key) }
            byPoint[key, default: []].append(run)
        }
        var rows: [Row] = []
        var held = Set<String>()
        for key in order {
            let runs = byPoint[key]!
            var summaries: [Any] = []
            var failed = 0
            for run in runs {
                if let data = folder.result(run.id) {
                    guard let summary = try? JSONSerialization.jsonObject(with: data) else {
                        throw SweepError.io("\(folder.resultPath(run.id)) is not JSON: remove it and run the sweep again")
                    }
                    summaries.append(summary)
                    held.formUnion(Metric.paths(in: summary))
                } else if folder.failure(run.id) != nil {
                    failed += 1
                }
            }
            let cells = spec.metrics.map { metric -> Cell? in
                let values = summaries.compactMap { metric.value(in: $0) }
                guard let s = Statistics(values) else { return nil }
                return Cell(count: s.count, mean: s.mean, standardDeviation: s.standardDeviation,
                            halfWidth: s.confidenceHalfWidth(level: 0.95))
            }
            rows.append(Row(point: runs[0].point, done: summaries.count, failed: failed,
                            missing: runs.count - summaries.count - failed, cells: cells))
        }
        // A path no run's summary holds would give a silent column of "-". Within a few characters of one they hold it
        // is a typo, and refused; farther, it may be a figure no run gave (a precision where nothing fired), and the
        // report says so beside its table.
        var notes: [String] = []
        if !held.isEmpty {
            for metric in spec.metrics {
                for path in metric.paths where !held.contains(path) {
                    let nearest = Metric.nearest(to: path, in: held)
                    let said = "metric `\(metric.name)`: no run's summary holds `\(path)`"
                    if let nearest, Metric.editDistance(path, nearest) <= Self.typoDistance {
                        throw SweepError.spec(folder.specPath, said + "; did you mean `\(nearest)`?")
                    }
                    notes.append(said + ": a figure no run gave, or a path that is not in a summary (docs/simulation.md)")
                }
            }
        }
        self.rows = rows
        self.notes = notes
    }

    /// Edits within which a path missing from every summary is taken for a typo of one they hold.
    static let typoDistance = 3

    /// What the report says beside its table: metrics whose path no run's summary holds.
    package let notes: [String]

    var options: [String] { spec.grid.map(\.option) }

    /// A figure with as many decimals as its size needs: three significant digits, at least none.
    static func number(_ x: Double, like reference: Double? = nil) -> String {
        let size = abs(reference ?? x)
        let decimals = size >= 100 ? 0 : size >= 10 ? 1 : size >= 1 ? 2 : size >= 0.01 || size == 0 ? 3 : 5
        return String(format: "%.\(decimals)f", x)
    }

    static func cellText(_ cell: Cell?) -> String {
        guard let cell else { return "-" }
        let mean = number(cell.mean)
        guard let half = cell.halfWidth else { return "\(mean) (n \(cell.count))" }
        return "\(mean) ± \(number(half, like: cell.mean)) (n \(cell.count))"
    }

    private var header: [String] { options + ["runs"] + spec.metrics.map(\.name) }

    private func cells(_ row: Row) -> [String] {
        var runs = "\(row.done)"
        if row.failed > 0 { runs += ", \(row.failed) failed" }
        if row.missing > 0 { runs += ", \(row.missing) to run" }
        return options.map { row.point[$0] ?? "" } + [runs] + row.cells.map(Self.cellText)
    }

    /// Columns aligned for a terminal, a line a grid point.
    package func text() -> String {
        let lines = [header] + rows.map(cells)
        let widths = header.indices.map { c in lines.map { $0[c].count }.max() ?? 0 }
        var out = "\(spec.name): mean ± half the 95% confidence interval (n runs with a value), seeds \(Self.seedText(spec.seeds))\n"
        for line in lines {
            out += zip(line, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
        }
        return out
    }

    package func markdown() -> String {
        var out = "| " + header.joined(separator: " | ") + " |\n"
        out += "|" + String(repeating: "---|", count: header.count) + "\n"
        for row in rows {
            out += "| " + cells(row).map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |\n"
        }
        return out
    }

    /// A line a grid point and metric: the options, the metric, n, mean, standard deviation, the interval's ends.
    package func csv() -> String {
        func field(_ s: String) -> String {
            s.contains(where: { ",\"\n".contains($0) }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
        }
        var out = (options + ["metric", "n", "mean", "sd", "ci95_low", "ci95_high", "failed"]).map(field)
            .joined(separator: ",") + "\n"
        for row in rows {
            for (metric, cell) in zip(spec.metrics, row.cells) {
                var line = options.map { field(row.point[$0] ?? "") } + [field(metric.name)]
                if let cell {
                    let half = cell.halfWidth
                    line += ["\(cell.count)", "\(cell.mean)", "\(cell.standardDeviation)",
                             half.map { "\(cell.mean - $0)" } ?? "", half.map { "\(cell.mean + $0)" } ?? ""]
                } else {
                    line += ["0", "", "", "", ""]
                }
                out += (line + ["\(row.failed)"]).joined(separator: ",") + "\n"
            }
        }
        return out
    }

    static func seedText(_ seeds: [UInt64]) -> String {
        if seeds.count > 2, seeds == Array(seeds[0]...seeds[0] + UInt64(seeds.count - 1)) {
            return "\(seeds[0])-\(seeds.last!)"
        }
        return seeds.map(String.init).joined(separator: ", ")
    }

    /// The spec's plot (`metric` against `x`, a line per value of the other grid options), or `nil` without one.
    package func svg() -> String? {
        guard let plot = spec.plot, let m = spec.metrics.firstIndex(where: { $0.name == plot.metric }),
              let axis = spec.grid.first(where: { $0.option == plot.x }) else { return nil }
        let others = options.filter { $0 != plot.x }.sorted { a, _ in a == plot.lines }
        let numeric = axis.values.allSatisfy { Double($0) != nil }
        let xs = numeric ? axis.values.map { Double($0)! } : axis.values.indices.map(Double.init)
        var series: [(label: String, points: [(x: Double, cell: Cell)])] = []
        for row in rows {
            guard let value = row.point[plot.x], let i = axis.values.firstIndex(of: value), let cell = row.cells[m] else { continue }
            let label = others.map { "\($0)=\(row.point[$0] ?? "")" }.joined(separator: " ")
            if let s = series.firstIndex(where: { $0.label == label }) {
                series[s].points.append((xs[i], cell))
            } else {
                series.append((label, [(xs[i], cell)]))
            }
        }
        let lows = series.flatMap { $0.points.map { $0.cell.mean - ($0.cell.halfWidth ?? 0) } }
        let highs = series.flatMap { $0.points.map { $0.cell.mean + ($0.cell.halfWidth ?? 0) } }
        guard let low = lows.min(), let high = highs.max(), let minX = xs.min(), let maxX = xs.max() else { return nil }
        let width = 640.0, height = 400.0, left = 70.0, right = 20.0, top = 30.0, bottom = 50.0
        let legend = 16.0 * Double(series.count)
        let span = high > low ? high - low : max(abs(high), 1)
        let y0 = low - 0.05 * span, y1 = high + 0.05 * span
        // Points kept off the axes by an inset.
        let inset = 20.0
        func X(_ x: Double) -> Double {
            maxX > minX ? left + inset + (x - minX) / (maxX - minX) * (width - left - right - 2 * inset) : (left + width - right) / 2
        }
        func Y(_ y: Double) -> Double { top + legend + (y1 - y) / (y1 - y0) * (height - top - legend - bottom) }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        func escape(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        }
        let colors = ["#1f6fb4", "#d62728", "#2a9d3a", "#ff9f1c", "#9467bd", "#8c564b", "#555555", "#17becf"]
        var body = ""
        body += "<line x1=\"\(f(left))\" x2=\"\(f(width - right))\" y1=\"\(f(height - bottom))\" y2=\"\(f(height - bottom))\" stroke=\"#999\"/>\n"
        body += "<line x1=\"\(f(left))\" x2=\"\(f(left))\" y1=\"\(f(top + legend))\" y2=\"\(f(height - bottom))\" stroke=\"#999\"/>\n"
        for (i, value) in axis.values.enumerated() {
            body += "<text x=\"\(f(X(xs[i])))\" y=\"\(f(height - bottom + 16))\" text-anchor=\"middle\">\(escape(value))</text>\n"
        }
        for k in 0...4 {
            let v = y0 + Double(k) / 4 * (y1 - y0)
            body += "<text x=\"\(f(left - 6))\" y=\"\(f(Y(v) + 4))\" text-anchor=\"end\">\(Self.number(v, like: span))</text>\n"
            body += "<line x1=\"\(f(left - 3))\" x2=\"\(f(left))\" y1=\"\(f(Y(v)))\" y2=\"\(f(Y(v)))\" stroke=\"#999\"/>\n"
        }
        body += "<text x=\"\(f((left + width - right) / 2))\" y=\"\(f(height - 12))\" text-anchor=\"middle\">\(escape(plot.x))</text>\n"
        body += "<text x=\"14\" y=\"\(f((top + legend + height - bottom) / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 14 \(f((top + legend + height - bottom) / 2)))\">\(escape(plot.metric))</text>\n"
        for (s, line) in series.enumerated() {
            let color = colors[s % colors.count]
            let points = line.points.sorted { $0.x < $1.x }
            body += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\" points=\"" + points.map { "\(f(X($0.x))),\(f(Y($0.cell.mean)))" }.joined(separator: " ") + "\"/>\n"
            for p in points {
                let x = X(p.x)
                if let h = p.cell.halfWidth {
                    body += "<path d=\"M\(f(x)),\(f(Y(p.cell.mean - h)))V\(f(Y(p.cell.mean + h)))M\(f(x - 4)),\(f(Y(p.cell.mean - h)))h8M\(f(x - 4)),\(f(Y(p.cell.mean + h)))h8\" stroke=\"\(color)\" fill=\"none\"/>\n"
                }
                body += "<circle cx=\"\(f(x))\" cy=\"\(f(Y(p.cell.mean)))\" r=\"3\" fill=\"\(color)\"/>\n"
            }
            let ly = top + 16.0 * Double(s)
            body += "<rect x=\"\(f(left))\" y=\"\(f(ly - 8))\" width=\"12\" height=\"3\" fill=\"\(color)\"/>\n"
            body += "<text x=\"\(f(left + 18))\" y=\"\(f(ly - 4))\">\(escape(line.label.isEmpty ? plot.metric : line.label))</text>\n"
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(Int(width)) \(Int(height))" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="11" fill="#555">
            <rect width="\(Int(width))" height="\(Int(height))" fill="#fcfcfc"/>
            <text x="\(f(left))" y="14" font-size="13" fill="#222">\(escape(spec.name)): \(escape(plot.metric)), mean and 95% interval over seeds \(Self.seedText(spec.seeds))</text>
            \(body)</svg>

            """
    }
}
