import Crypto
import Foundation

/// One run of a sweep: a grid point and a seed, the simulator's arguments for it, and an id made of the arguments
/// and the simulator's version, so that a run planned again is the same run and a changed one is another.
package struct PlannedRun: Sendable, Equatable, Codable {
    package let id: String
    /// The grid point's option values, by option.
    package let point: [String: String]
    package let seed: UInt64
    /// What the simulator is started with, whole: `run`, the seed, `--format json`, the options in name order, the
    /// flags, and `--workers 1` unless the spec chose a number (runs side by side share the cores; the outcome does
    /// not depend on it).
    package let arguments: [String]
    package let version: String

    /// The grid point as one label: `peers=100 ranging-policy=ideal`, options in name order.
    package var pointLabel: String {
        point.keys.sorted().map { "\($0)=\(point[$0]!)" }.joined(separator: " ")
    }
}

/// Every run of a spec, grid point after grid point (the last grid option varying fastest), seeds within a point.
package enum SweepPlan {
    /// Whether some run's options name its seed (``SweepSpec/seedMark``): then every seed's run is its own to check.
    package static func namesTheSeed(_ spec: SweepSpec) -> Bool {
        spec.options.values.contains { $0.contains(SweepSpec.seedMark) }
            || spec.grid.contains { $0.values.contains { $0.contains(SweepSpec.seedMark) } }
    }

    package static func runs(of spec: SweepSpec, version: String) -> [PlannedRun] {
        var points: [[(String, String)]] = [[]]
        for axis in spec.grid {
            points = points.flatMap { point in axis.values.map { point + [(axis.option, $0)] } }
        }
        return points.flatMap { point in
            spec.seeds.map { seed in
                var options = spec.options
                for (option, value) in point { options[option] = value }
                var arguments = ["run", "--seed", String(seed), "--format", "json"]
                // `{seed}` in a value is the run's seed: a generated scenario file a seed, say.
                for key in options.keys.sorted() {
                    let value = options[key]!.replacingOccurrences(of: SweepSpec.seedMark, with: String(seed))
                    arguments += ["--\(key)", value]
                }
                arguments += spec.flags.sorted().map { "--\($0)" }
                if options["workers"] == nil { arguments += ["--workers", "1"] }
                return PlannedRun(id: id(version: version, arguments: arguments),
                                  point: Dictionary(uniqueKeysWithValues: point), seed: seed,
                                  arguments: arguments, version: version)
            }
        }
    }

    /// Sixteen hex digits of the SHA-256 of the version and the arguments.
    static func id(version: String, arguments: [String]) -> String {
        let text = (["nearcatch-sim " + version] + arguments).joined(separator: "\u{0}")
        return SHA256.hash(data: Data(text.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
