import Foundation

/// What a report shows, read from a run's trace (docs/simulation.md, the JSON Lines format): the run's settings and
/// summary, the devices' positions over time, the bumps, near misses and contacts, who ranged whom, the estimates
/// around each bump and near miss, and the error distributions. Built once; rendered as HTML (``ReportPage``) or SVG
/// (``ReportPictures``).
public struct ReportData {
    public struct Frame: Sendable {
        public let time: Double
        /// Every followed device's position, centimetres (x, y), and heading, degrees, in the order of ``devices``.
        public let x: [Int32]
        public let y: [Int32]
        public let heading: [Int16]
    }

    public struct Mark: Sendable {
        public let time: Double
        public let a: Int
        public let b: Int
        /// The bump's estimate or the near miss's closest approach, metres.
        public let value: Double
        public let trueDistance: Double
    }

    public struct Contact: Sendable {
        public let a: Int
        public let b: Int
        public let start: Double
        public let end: Double?
    }

    /// One update of a pair as its initiator's app saw it, metres.
    public struct Sample: Sendable {
        public let time: Double
        public let estimate: Double?
        public let raw: Double?
        public let truth: Double
    }

    /// A histogram: counts of `width`-wide bins from `from`, the last counting everything beyond.
    public struct Histogram: Sendable {
        public let from: Double
        public let width: Double
        public var counts: [Int]

        init(from: Double, width: Double, bins: Int) {
            self.from = from
            self.width = width
            counts = [Int](repeating: 0, count: bins)
        }

        mutating func add(_ value: Double) {
            let k = Int(((value - from) / width).rounded(.down))
            counts[min(max(k, 0), counts.count - 1)] += 1
        }

        public var total: Int { counts.reduce(0, +) }
    }

    /// The header's `run` object and the summary line's `summary` (absent from a trace of an interrupted run).
    public let run: [String: Any]
    public let summary: [String: Any]?
    public let peers: Int
    /// The trace follows devices 0, `every`, 2 `every`, ... (every one, or every k-th of a crowd: the run's
    /// `traceEvery`).
    public let every: Int
    public let frames: [Frame]
    public let bumps: [Mark]
    public let nearMisses: [Mark]
    public let contacts: [Contact]
    /// Per frame, the pairs (lower index first) that exchanged since the frame before, at most
    /// ``linksPerFrame``.
    public let links: [[Int32]]
    /// For each bump, then each near miss (at most ``seriesLimit`` in all): the pair's updates around it.
    public let series: [[Sample]]
    public let rawError: Histogram
    public let filteredError: Histogram
    public let directionError: Histogram
    public let latency: Histogram
    /// Once a second: exchanges attempted, collided, received by distance band.
    public let air: [(time: Double, exchanges: Int, collided: Int, received: [Int])]
    /// Lines of the trace read.
    public let lines: Int

    /// Frames kept at most: a minute at the default 0.5-s pose interval is 121; longer runs are thinned evenly.
    public static let frameLimit = 600
    public static let linksPerFrame = 300
    public static let seriesLimit = 1000
    /// Seconds of a pair's updates shown before and after its bump or near miss.
    public static let seriesBefore = 2.0
    public static let seriesAfter = 1.0

    /// The devices the trace follows, ascending.
    public var devices: [Int] { Array(stride(from: 0, to: peers, by: every)) }

    /// Where `device` is in ``devices`` and the frames, or `nil` when the trace does not follow it.
    public func slot(of device: Int) -> Int? {
        device >= 0 && device < peers && device % every == 0 ? device / every : nil
    }
}

/// A trace that cannot be made into a report.
public struct ReportError: Error, Sendable, Equatable, CustomStringConvertible {
    public let file: String
    public let line: Int?
    public let problem: String

    public var description: String {
        "trace \(file)" + (line.map { " line \($0)" } ?? "") + ": \(problem)"
    }
}
