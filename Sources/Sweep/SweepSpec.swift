import Foundation
import TOMLKit

/// What a sweep runs: a grid of run options, the seeds each grid point runs with, the metrics its report reads from
/// the runs' JSON summaries, and how long a run may take and how often it is tried (docs/sweeps.md).
package struct SweepSpec: Sendable, Equatable {
    /// A name for the report's headings.
    package var name: String
    /// Options every run shares, by their long flag name without the dashes: `peers` for `--peers`.
    package var options: [String: String]
    /// The grid: each option's values, every combination a point. Options in name order, values as written.
    package var grid: [(option: String, values: [String])]
    /// Flags (options without a value) every run shares: `true` in the file.
    package var flags: [String]
    package var seeds: [UInt64]
    package var metrics: [Metric]
    /// Seconds a run may take before it is stopped and counted failed.
    package var timeLimit: Double
    /// Times a failed run is tried again before it is recorded as failed.
    package var retries: Int
    package var plot: Plot?

    /// The report's picture: `metric` against the grid option `x`, a line for each value of `lines`.
    package struct Plot: Sendable, Equatable {
        package var metric: String
        package var x: String
        package var lines: String?

        package init(metric: String, x: String, lines: String?) {
            self.metric = metric
            self.x = x
            self.lines = lines
        }
    }

    package static func == (a: SweepSpec, b: SweepSpec) -> Bool {
        a.name == b.name && a.options == b.options && a.flags == b.flags && a.seeds == b.seeds && a.metrics == b.metrics
            && a.timeLimit == b.timeLimit && a.retries == b.retries && a.plot == b.plot
            && a.grid.map(\.option) == b.grid.map(\.option) && a.grid.map(\.values) == b.grid.map(\.values)
    }

    /// Options the sweep itself sets, or that would write files of their own from every run.
    /// In an option's value, the run's seed.
    package static let seedMark = "{seed}"
    package static let reservedOptions: Set<String> = ["seed", "format", "trace", "force", "report", "svg", "help", "version"]
    static let defaultTimeLimit = 600.0
    static let defaultRetries = 1
    /// Beyond this many runs a plan is refused: a typo in a grid should not queue a week of work.
    package static let mostRuns = 100_000
    /// The largest spec file read: a 200 MB spec took 438 MB before it was refused.
    package static let largestFile = 1 << 20
    /// The deepest nesting of TOML arrays and inline tables read, and the most seeds, values of a grid option and
    /// metrics: a spec of a million seeds took 140 s to be refused.
    package static let deepestNesting = 16
    package static let mostSeeds = 10_000
    package static let mostValues = 1_000
    package static let mostMetrics = 100
    /// Options that name a file the run reads: in a grid, a relative path inside the folder the sweep runs in.
    package static let fileOptions: Set<String> = ["scenario", "group-key-file"]

    /// Whether `key` is an option's long name as `nearcatch-sim run` spells it without its dashes: lowercase letters
    /// and digits in hyphen-joined words. `"trace=/path" = true` wrote a trace anywhere; `"seed=5"` overrode seeds.
    package static func isOptionName(_ key: String) -> Bool {
        let words = key.split(separator: "-", omittingEmptySubsequences: false)
        return !key.isEmpty && key.first!.isLowercaseASCIILetter && words.allSatisfy { word in
            !word.isEmpty && word.allSatisfy { $0.isLowercaseASCIILetter || ("0"..."9").contains($0) }
        }
    }

    /// Whether `path` stays inside the folder it is read from: relative, with no `..`.
    package static func isConfined(_ path: String) -> Bool {
        !path.hasPrefix("/") && !path.hasPrefix("~") && !path.split(separator: "/").contains("..")
    }

    /// The deepest nesting of `[` and `{` in TOML `text` outside strings and comments (a table header's brackets
    /// count too, harmlessly): read before the parser, which recurses. Strings are read as TOML writes them, the
    /// multi-line ones too: a scanner that took `"""a"b"""` for three strings would count nothing after it.
    static func nesting(of text: String) -> Int {
        let bytes = Array(text.utf8)
        var i = 0, depth = 0, deepest = 0
        func opens(_ quote: UInt8, at index: Int) -> Bool {
            index + 3 <= bytes.count && bytes[index] == quote && bytes[index + 1] == quote && bytes[index + 2] == quote
        }
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "#"):
                while i < bytes.count, bytes[i] != UInt8(ascii: "\n") { i += 1 }
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let multiLine = opens(b, at: i)
                i += multiLine ? 3 : 1
                while i < bytes.count {
                    if b == UInt8(ascii: "\""), bytes[i] == UInt8(ascii: "\\") {
                        i += 2
                    } else if multiLine, opens(b, at: i) {
                        // Up to two more quotes are the string's own last characters.
                        i += 3
                        for _ in 0..<2 where i < bytes.count && bytes[i] == b { i += 1 }
                        break
                    } else if !multiLine, bytes[i] == b {
                        i += 1
                        break
                    } else if !multiLine, bytes[i] == UInt8(ascii: "\n") {
                        break
                    } else {
                        i += 1
                    }
                }
                continue
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth = max(0, depth - 1)
            default:
                break
            }
            i += 1
        }
        return deepest
    }

    /// Reads a spec from TOML text; `file` names it in errors.
    package init(toml text: String, file: String = "the spec") throws(SweepError) {
        guard text.utf8.count <= Self.largestFile else {
            throw SweepError.spec(file, "\(text.utf8.count) bytes: a spec is at most \(Self.largestFile)")
        }
        let depth = Self.nesting(of: text)
        guard depth <= Self.deepestNesting else {
            throw SweepError.spec(file, "arrays and tables nested \(depth) deep: at most \(Self.deepestNesting)")
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw SweepError.spec(file, "not TOML: \(error.description) at line \(error.source.begin.line)")
        } catch {
            throw SweepError.spec(file, "not TOML: \(error)")
        }
        func fail(_ message: String) -> SweepError { .spec(file, message) }
        let known: Set<String> = ["name", "options", "grid", "seeds", "replicates", "metrics", "time-limit", "retries", "plot"]
        if let unknown = table.keys.first(where: { !known.contains($0) }) {
            throw fail("unknown key `\(Self.shown(unknown))` (known: \(known.sorted().joined(separator: ", ")))")
        }
        name = table["name"]?.string ?? "sweep"

        options = [:]
        flags = []
        if let value = table["options"] {
            guard let fixed = value.table else { throw fail("`options` must be a table of run options") }
            for key in fixed.keys {
                guard Self.isOptionName(key) else { throw fail(Self.notAnOption(key)) }
                let item = fixed[key]!
                if let flag = item.bool {
                    if flag { flags.append(key) }
                    continue
                }
                guard let text = Self.optionValue(item) else {
                    throw fail("option `\(key)`: a string, a number or true, not \(item.type)")
                }
                options[key] = text
            }
        }
        grid = []
        if let value = table["grid"] {
            guard let axes = value.table else { throw fail("`grid` must be a table of options, each with a list of values") }
            for key in axes.keys {
                guard Self.isOptionName(key) else { throw fail(Self.notAnOption(key)) }
                guard let list = axes[key]!.array, !list.isEmpty else {
                    throw fail("grid option `\(key)`: a non-empty list of values")
                }
                guard list.count <= Self.mostValues else {
                    throw fail("grid option `\(key)`: \(list.count) values, at most \(Self.mostValues)")
                }
                var values: [String] = []
                for item in list {
                    guard let text = Self.optionValue(item) else {
                        throw fail("grid option `\(key)`: a string or a number each, not \(item.type)")
                    }
                    guard !values.contains(text) else { throw fail("grid option `\(key)`: \(text) twice") }
                    if Self.fileOptions.contains(key), !Self.isConfined(text) {
                        throw fail("grid option `\(key)`: \(text) is outside the folder the sweep runs in (a grid's "
                                   + "files are relative paths without `..`)")
                    }
                    values.append(text)
                }
                if options[key] != nil || flags.contains(key) {
                    throw fail("option `\(key)` is both in `options` and in `grid`")
                }
                grid.append((key, values))
            }
        }
        for key in options.keys.sorted() + flags + grid.map(\.option) where Self.reservedOptions.contains(key) {
            throw fail("option `\(key)` is the sweep's own (seeds come from `seeds`, summaries from the runs' JSON)")
        }

        switch (table["seeds"], table["replicates"]) {
        case (nil, nil):
            throw fail("no seeds: give `seeds = [1, 2, 3]` or `replicates = N` (seeds 1 to N)")
        case (.some, .some):
            throw fail("`seeds` and `replicates` both given: give one")
        case (let list?, nil):
            guard let array = list.array, !array.isEmpty else { throw fail("`seeds` must be a non-empty list of integers") }
            guard array.count <= Self.mostSeeds else { throw fail("`seeds`: \(array.count), at most \(Self.mostSeeds)") }
            seeds = []
            for item in array {
                guard let n = item.int, n >= 0 else { throw fail("`seeds`: non-negative integers each") }
                guard !seeds.contains(UInt64(n)) else { throw fail("`seeds`: \(n) twice") }
                seeds.append(UInt64(n))
            }
        case (nil, let count?):
            guard let n = count.int, n >= 1, n <= 10_000 else { throw fail("`replicates` must be an integer from 1 to 10000") }
            seeds = (1...n).map { UInt64($0) }
        }

        guard let list = table["metrics"]?.array, !list.isEmpty else {
            throw fail("no metrics: give `metrics = [\"bumps.recall\", ...]`, paths of the run's JSON summary")
        }
        guard list.count <= Self.mostMetrics else { throw fail("`metrics`: \(list.count), at most \(Self.mostMetrics)") }
        metrics = []
        for item in list {
            guard let text = item.string else { throw fail("`metrics`: strings each, a path or `name = expression`") }
            let metric: Metric
            do {
                metric = try Metric(text)
            } catch {
                throw fail("metric `\(Self.shown(text))`: \(error.message)")
            }
            guard !metrics.contains(where: { $0.name == metric.name }) else { throw fail("metric `\(metric.name)` twice") }
            metrics.append(metric)
        }

        if let value = table["time-limit"] {
            guard let seconds = value.double ?? value.int.map(Double.init), seconds > 0, seconds <= 86_400 else {
                throw fail("`time-limit` must be seconds, over 0 and at most 86400")
            }
            timeLimit = seconds
        } else {
            timeLimit = Self.defaultTimeLimit
        }
        if let value = table["retries"] {
            guard let n = value.int, n >= 0, n <= 10 else { throw fail("`retries` must be an integer from 0 to 10") }
            retries = n
        } else {
            retries = Self.defaultRetries
        }

        plot = nil
        if let value = table["plot"] {
            guard let p = value.table else { throw fail("`plot` must be a table: metric, x, lines") }
            guard let metric = p["metric"]?.string, metrics.contains(where: { $0.name == metric }) else {
                throw fail("`plot.metric` must name one of the metrics (\(metrics.map(\.name).joined(separator: ", ")))")
            }
            guard let x = p["x"]?.string, grid.contains(where: { $0.option == x }) else {
                throw fail("`plot.x` must name a grid option (\(grid.map(\.option).joined(separator: ", ")))")
            }
            let lines = p["lines"]?.string
            if let lines, lines == x || !grid.contains(where: { $0.option == lines }) {
                throw fail("`plot.lines` must name another grid option than `plot.x`")
            }
            plot = Plot(metric: metric, x: x, lines: lines)
        }
        let count = grid.reduce(seeds.count) { $0 * $1.values.count }
        guard count <= Self.mostRuns else { throw fail("\(count) runs: more than \(Self.mostRuns)") }
    }

    /// `text` as an error names it: by its start when long, so that the error stays one readable line (a metric of
    /// 100,012 characters was printed whole).
    static func shown(_ text: String) -> String {
        text.count > 80 ? text.prefix(60) + "…" : text
    }

    /// Why `key` is refused as an option's name.
    static func notAnOption(_ key: String) -> String {
        "`\(shown(key))` is not an option's name (lowercase words joined by hyphens, without dashes: `ranging-policy` for "
            + "`--ranging-policy`; a value goes after `=`)"
    }

    /// Reads the spec in the file at `path`: a regular file of at most ``largestFile`` bytes, refused unread if not.
    package init(contentsOf path: String) throws(SweepError) {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let kind = attributes?[.type] as? FileAttributeType, kind != .typeRegular {
            throw SweepError.spec(path, "not a regular file")
        }
        if let size = (attributes?[.size] as? NSNumber)?.intValue, size > Self.largestFile {
            throw SweepError.spec(path, "\(size) bytes: a spec is at most \(Self.largestFile)")
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw SweepError.io("cannot read the spec \(path): \(error.localizedDescription)")
        }
        try self.init(toml: text, file: path)
    }

    /// An option's value as the command line takes it.
    private static func optionValue(_ item: TOMLValueConvertible) -> String? {
        if let s = item.string { return s }
        if let n = item.int { return String(n) }
        if let d = item.double { return d.isFinite ? String(d) : nil }
        return nil
    }
}

/// What went wrong in a sweep, in words that name the file or the run.
package enum SweepError: Error, Equatable, CustomStringConvertible {
    /// The spec at the first path says something the sweep cannot take.
    case spec(String, String)
    /// A file of the sweep's folder could not be read or written, or is not what the sweep wrote.
    case io(String)
    /// The runs could not be started (the simulator or the backend is missing).
    case backend(String)

    package var description: String {
        switch self {
        case .spec(let file, let message): "\(file): \(message)"
        case .io(let message), .backend(let message): message
        }
    }
}

private extension Character {
    var isLowercaseASCIILetter: Bool { ("a"..."z").contains(self) }
}
