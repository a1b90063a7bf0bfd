import Foundation

/// What a report shows, read from a run's trace (docs/simulation.md, the JSON Lines format): the run's settings and
/// summary, the devices' positions over time, the bumps, near misses and contacts, who ranged whom, the estimates
/// around each bump and near miss, and the error distributions. Built once; rendered as HTML (``ReportPage``) or SVG
/// (``ReportPictures``).
package struct ReportData {
    package struct Frame: Sendable {
        package let time: Double
        /// Every followed device's position, centimetres (x, y), and heading, degrees, in the order of ``devices``.
        package let x: [Int32]
        package let y: [Int32]
        package let heading: [Int16]
    }

    package struct Mark: Sendable {
        package let time: Double
        package let a: Int
        package let b: Int
        /// The bump's estimate or the near miss's closest approach, metres.
        package let value: Double
        package let trueDistance: Double
    }

    package struct Contact: Sendable {
        package let a: Int
        package let b: Int
        package let start: Double
        package let end: Double?
    }

    /// One update of a pair as its initiator's app saw it, metres.
    package struct Sample: Sendable {
        package let time: Double
        package let estimate: Double?
        package let raw: Double?
        package let truth: Double
    }

    /// A histogram: counts of `width`-wide bins from `from`, the last counting everything beyond.
    package struct Histogram: Sendable {
        package let from: Double
        package let width: Double
        package var counts: [Int]

        init(from: Double, width: Double, bins: Int) {
            self.from = from
            self.width = width
            counts = [Int](repeating: 0, count: bins)
        }

        mutating func add(_ value: Double) {
            let k = Int(((value - from) / width).rounded(.down))
            counts[min(max(k, 0), counts.count - 1)] += 1
        }

        package var total: Int { counts.reduce(0, +) }
    }

    /// The header's `run` object and the summary line's `summary` (absent from a trace of an interrupted run).
    package let run: [String: Any]
    package let summary: [String: Any]?
    package let peers: Int
    /// The trace follows devices 0, `every`, 2 `every`, ... (every one, or every k-th of a crowd: the run's
    /// `traceEvery`).
    package let every: Int
    package let frames: [Frame]
    package let bumps: [Mark]
    package let nearMisses: [Mark]
    package let contacts: [Contact]
    /// Per frame, the pairs (lower index first) that exchanged since the frame before, at most
    /// ``linksPerFrame``.
    package let links: [[Int32]]
    /// For each bump, then each near miss (at most ``seriesLimit`` in all): the pair's updates around it.
    package let series: [[Sample]]
    package let rawError: Histogram
    package let filteredError: Histogram
    package let directionError: Histogram
    package let latency: Histogram
    /// Once a second: exchanges attempted, collided, received by distance band.
    package let air: [(time: Double, exchanges: Int, collided: Int, received: [Int])]
    /// Lines of the trace read.
    package let lines: Int

    /// Frames kept at most: a minute at the default 0.5-s pose interval is 121; longer runs are thinned evenly.
    package static let frameLimit = 600
    package static let linksPerFrame = 300
    package static let seriesLimit = 1000
    /// Seconds of a pair's updates shown before and after its bump or near miss.
    package static let seriesBefore = 2.0
    package static let seriesAfter = 1.0

    /// The devices the trace follows, ascending.
    package var devices: [Int] { Array(stride(from: 0, to: peers, by: every)) }

    /// Where `device` is in ``devices`` and the frames, or `nil` when the trace does not follow it.
    package func slot(of device: Int) -> Int? {
        device >= 0 && device < peers && device % every == 0 ? device / every : nil
    }
}

/// A trace that cannot be made into a report.
package struct ReportError: Error, Sendable, Equatable, CustomStringConvertible {
    package let file: String
    package let line: Int?
    package let problem: String

    package var description: String {
        "trace \(file)" + (line.map { " line \($0)" } ?? "") + ": \(problem)"
    }
}
