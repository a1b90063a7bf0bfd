import Foundation

/// The report's static pictures, as SVG files a bug report or a document can embed: the room from above and the
/// error distributions.
package enum ReportPictures {
    /// File name and SVG text of each picture.
    package static func all(_ d: ReportData) -> [(name: String, svg: String)] {
        [("room.svg", room(d)),
         ("distance-error.svg", histograms(d.rawError, d.filteredError, scale: 100,
                                           caption: "distance error, cm: raw (grey) and filtered (blue)")),
         ("direction-error.svg", histograms(nil, d.directionError, scale: 1, caption: "direction error, degrees")),
         ("bump-latency.svg", histograms(nil, d.latency, scale: 1, caption: "bump latency, s from the touch"))]
    }

    private static func number(_ x: Double) -> String { String(format: "%.1f", x) }

    /// Every followed device's track, the bumps (red) and near misses (orange) where they happened, and the
    /// devices where the run ended; north up, centimetres.
    package static func room(_ d: ReportData) -> String {
        let xs = d.frames.flatMap(\.x), ys = d.frames.flatMap(\.y)
        let minX = Double(xs.min() ?? 0) - 60, maxX = Double(xs.max() ?? 100) + 60
        let minY = Double(ys.min() ?? 0) - 60, maxY = Double(ys.max() ?? 100) + 60
        let side = max(maxX - minX, maxY - minY)
        let r = max(side / 180, 6)
        var body = ""
        let stride = max(1, d.frames.count / 200)
        for i in d.devices.indices {
            let points = Swift.stride(from: 0, to: d.frames.count, by: stride).map {
                "\(d.frames[$0].x[i]),\(-d.frames[$0].y[i])"
            }.joined(separator: " ")
            body += "<polyline points=\"\(points)\" fill=\"none\" stroke=\"#ddd\" stroke-width=\"\(number(r / 4))\"/>\n"
        }
        func mark(_ m: ReportData.Mark, _ color: String) {
            // Between the two devices, or at the one the trace follows.
            let slots = [d.slot(of: m.a), d.slot(of: m.b)].compactMap { $0 }
            guard let f = nearestFrame(d, m.time), !slots.isEmpty else { return }
            let x = slots.reduce(0.0) { $0 + Double(d.frames[f].x[$1]) } / Double(slots.count)
            let y = -slots.reduce(0.0) { $0 + Double(d.frames[f].y[$1]) } / Double(slots.count)
            body += "<circle cx=\"\(number(x))\" cy=\"\(number(y))\" r=\"\(number(r * 1.6))\" fill=\"\(color)\" fill-opacity=\"0.75\"/>\n"
        }
        d.bumps.forEach { mark($0, "#d62728") }
        d.nearMisses.forEach { mark($0, "#ff9f1c") }
        if let last = d.frames.last {
            for i in d.devices.indices {
                body += "<circle cx=\"\(last.x[i])\" cy=\"\(-last.y[i])\" r=\"\(number(r))\" fill=\"#1f6fb4\"/>\n"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="\(number(minX)) \(number(-minY - side)) \(number(side)) \(number(side))" width="760" height="760">
            <rect x="\(number(minX))" y="\(number(-minY - side))" width="\(number(side))" height="\(number(side))" fill="#fcfcfc"/>
            \(body)</svg>

            """
    }

    static func nearestFrame(_ d: ReportData, _ t: Double) -> Int? {
        guard !d.frames.isEmpty else { return nil }
        return d.frames.indices.min { abs(d.frames[$0].time - t) < abs(d.frames[$1].time - t) }
    }

    /// One or two histograms of the same bins side by side, the last bin counting everything beyond.
    static func histograms(_ back: ReportData.Histogram?, _ front: ReportData.Histogram, scale: Double,
                           caption: String) -> String {
        let width = 480.0, height = 240.0, left = 40.0, bottom = 30.0
        let n = front.counts.count
        let most = max((back?.counts.max() ?? 0), front.counts.max() ?? 0, 1)
        let bar = (width - left - 10) / Double(n)
        var body = ""
        for (k, c) in front.counts.enumerated() {
            let x = left + Double(k) * bar
            if let back {
                let h = Double(back.counts[k]) / Double(most) * (height - bottom - 20)
                body += "<rect x=\"\(number(x))\" y=\"\(number(height - bottom - h))\" width=\"\(number(bar / 2))\" height=\"\(number(h))\" fill=\"#c9c9c9\"/>\n"
            }
            let h = Double(c) / Double(most) * (height - bottom - 20)
            let offset = back == nil ? 0 : bar / 2
            body += "<rect x=\"\(number(x + offset))\" y=\"\(number(height - bottom - h))\" width=\"\(number(max(bar / (back == nil ? 1 : 2) - 1, 1)))\" height=\"\(number(h))\" fill=\"#6a9fd0\"/>\n"
        }
        for k in [0, n / 2, n - 1] {
            let value = (front.from + Double(k) * front.width) * scale
            body += "<text x=\"\(number(left + Double(k) * bar))\" y=\"\(number(height - 10))\" font-size=\"11\" fill=\"#555\">\(String(format: scale == 1 ? "%.2g" : "%.0f", value))\(k == n - 1 ? "+" : "")</text>\n"
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(Int(width)) \(Int(height))" width="\(Int(width))" height="\(Int(height))">
            <rect width="\(Int(width))" height="\(Int(height))" fill="#fff"/>
            <line x1="\(left)" y1="\(height - bottom)" x2="\(width - 10)" y2="\(height - bottom)" stroke="#999"/>
            <text x="\(left)" y="14" font-size="12" fill="#333">\(ReportPage.escape(caption)), n=\(front.total)</text>
            \(body)</svg>

            """
    }
}
