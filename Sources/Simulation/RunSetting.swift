import World

/// A run setting declared once: the flag that sets it, what it means, the values it takes, its default, and where
/// the summary reports it. The command line's options take their name, help and default from it (NearcatchCommand's
/// option groups), ``SimulationSettings/validate()`` checks a value through it, in words that name the flag, and the
/// summary's `run` block (``SimulationSummary/Run``) and its schema (docs/schemas/trace.schema.json, checked by
/// DocsTests) follow from it.
package struct RunSetting<Value: ReportableValue>: Sendable {
    /// The values a setting takes.
    package enum Values: Sendable {
        /// From the lower to the upper bound, both included.
        case between(Value, Value)
        /// Above the lower bound and at most the upper one.
        case aboveAndAtMost(Value, Value)
        /// At least the bound; `otherwise` names the word that stands for no bound (`none`, `all`).
        case atLeast(Value, otherwise: String)
    }

    /// The flag, with its dashes.
    package let flag: String
    /// What the setting is, as the help's first words say it.
    package let meaning: String
    package let values: Values
    /// The unit, singular and plural (`second`, `seconds`); empty for a count or a share.
    package let unit: (one: String, many: String)
    /// The default, as the help shows it (the option's default value comes from `SimulationSettings`).
    package let defaultValue: String
    /// The setting's value in a run's settings, `nil` where it does not apply (the accelerometers' rate of a run
    /// whose phones do not sample theirs).
    package let value: @Sendable (SimulationSettings) -> Value?
    /// Where the summary's `run` block reports it; `nil`: it does not.
    package let reporting: Reporting?
    /// The value the `run` block reports, `nil` where it leaves the setting out.
    private let reported: @Sendable (SimulationSettings) -> Value?

    /// - Parameters:
    ///   - reported: the value the summary reports, where it differs from `value` (`nil` to leave it out).
    package init(_ flag: String, _ meaning: String, _ values: Values, unit: (String, String) = ("", ""),
                 default defaultValue: String, reporting: Reporting?,
                 value: @escaping @Sendable (SimulationSettings) -> Value?,
                 reported: (@Sendable (SimulationSettings) -> Value?)? = nil) {
        self.flag = flag
        self.meaning = meaning
        self.values = values
        self.unit = unit
        self.defaultValue = defaultValue
        self.reporting = reporting
        self.value = value
        self.reported = reported ?? value
    }

    /// The flag's name without its dashes, as the option's long name.
    package var name: String { String(flag.dropFirst(2)) }

    private static func shown(_ value: Value) -> String {
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    private func unit(after value: Value) -> String {
        unit.many.isEmpty ? "" : " " + (Self.shown(value) == "1" ? unit.one : unit.many)
    }

    /// Whether `value` is one of the setting's values.
    package func accepts(_ value: Value) -> Bool {
        // NaN is none: every comparison with it is false.
        switch values {
        case .between(let low, let high): value >= low && value <= high
        case .aboveAndAtMost(let low, let high): value > low && value <= high
        case .atLeast(let low, _): value >= low
        }
    }

    /// The values in words: "between 1 and 800 Hz", "at least 1 metre (or none)".
    package var rule: String {
        switch values {
        case .between(let low, let high): "between \(Self.shown(low)) and \(Self.shown(high))\(unit(after: high))"
        case .aboveAndAtMost(let low, let high):
            "above \(Self.shown(low)) and at most \(Self.shown(high))\(unit(after: high))"
        case .atLeast(let low, let otherwise): "at least \(Self.shown(low))\(unit(after: low)) (or \(otherwise))"
        }
    }

    /// The values for the help: "1 to 800 Hz", "at least 1 metre, or none".
    private var span: String {
        switch values {
        case .between(let low, let high): "\(Self.shown(low)) to \(Self.shown(high))\(unit(after: high))"
        case .aboveAndAtMost(let low, let high):
            "above \(Self.shown(low)), at most \(Self.shown(high))\(unit(after: high))"
        case .atLeast(let low, let otherwise): "at least \(Self.shown(low))\(unit(after: low)), or \(otherwise)"
        }
    }

    /// The option's help: what it is and its values, and its default where the option shows none of its own (an
    /// optional one).
    package func help(showingDefault: Bool = false) -> String {
        "\(meaning) (\(span)\(showingDefault ? "; default \(defaultValue)" : ""))."
    }

    /// Refuses a value the setting does not take, naming the flag.
    package func check(_ value: Value) throws(SimulationSettingsError) {
        guard accepts(value) else { throw SimulationSettingsError(message: "\(flag) must be \(rule), got \(value)") }
    }

    /// Refuses the settings when this setting's value in them is one it does not take.
    package func check(in settings: SimulationSettings) throws(SimulationSettingsError) {
        if let v = value(settings) { try check(v) }
    }
}

/// What every declaration says, whatever its value's type: for the checks, the summary and the schema.
package protocol RunSettingDeclaration: Sendable {
    var flag: String { get }
    var rule: String { get }
    var reporting: Reporting? { get }
    func help(showingDefault: Bool) -> String
    func check(in settings: SimulationSettings) throws(SimulationSettingsError)
    /// The value the summary's `run` block reports for `settings`; `nil` where it leaves the setting out.
    func reportedValue(in settings: SimulationSettings) -> ReportedValue?
    /// Reads the reported value back as its declaration's type, `nil` where it is not one.
    func parse(_ decoded: ReportedValue) -> ReportedValue?
    /// The schema of the reported value (JSON Schema: its type, bounds and description).
    var schemaProperty: [String: Any] { get }
}

extension RunSetting: RunSettingDeclaration {
    package func reportedValue(in settings: SimulationSettings) -> ReportedValue? {
        reporting == nil ? nil : reported(settings)?.reported
    }

    package func parse(_ decoded: ReportedValue) -> ReportedValue? { Value(reported: decoded)?.reported }

    package var schemaProperty: [String: Any] {
        var property: [String: Any] = ["type": Value.schemaType]
        switch values {
        case .between(let low, let high):
            property["minimum"] = low.reported.json
            property["maximum"] = high.reported.json
        case .aboveAndAtMost(let low, let high):
            property["exclusiveMinimum"] = low.reported.json
            property["maximum"] = high.reported.json
        case .atLeast(let low, _): property["minimum"] = low.reported.json
        }
        let unitWords = unit.many.isEmpty ? "" : " (\(unit.many))"
        let absence = reporting?.absentUnless.map { " Present only \($0)." } ?? ""
        property["description"] = "\(flag): \(meaning)\(unitWords).\(absence)"
        return property
    }
}

/// Where the summary's `run` block reports a setting.
package struct Reporting: Sendable {
    /// The setting's key in the `run` block.
    package let key: String
    /// When the block has it, in words ("with --sensors samples"); `nil`: always.
    package let absentUnless: String?
    /// Whether the trace's first and last lines report it too; `false` for a setting that cannot change what was
    /// simulated (the worker count), so that one seed still gives one trace.
    package let inTrace: Bool

    /// Reported in every run under `key`.
    package static func always(_ key: String, inTrace: Bool = true) -> Reporting {
        Reporting(key: key, absentUnless: nil, inTrace: inTrace)
    }

    /// Reported under `key` only where `condition` (in words) holds.
    package static func only(_ key: String, _ condition: String) -> Reporting {
        Reporting(key: key, absentUnless: condition, inTrace: true)
    }
}

/// A setting's value as the summary's `run` block writes it: an integer or a number.
package enum ReportedValue: Sendable, Equatable {
    case integer(Int)
    case number(Double)

    /// The value for JSONSerialization.
    package var json: Any {
        switch self {
        case .integer(let n): n
        case .number(let x): x
        }
    }
}

/// A value a setting takes: compared against its bounds, shown in its help, reported in the summary.
package protocol ReportableValue: Comparable, Sendable, CustomStringConvertible {
    var reported: ReportedValue { get }
    init?(reported: ReportedValue)
    /// The JSON Schema type of the reported value.
    static var schemaType: String { get }
}

extension Int: ReportableValue {
    package var reported: ReportedValue { .integer(self) }
    package init?(reported: ReportedValue) {
        guard case .integer(let n) = reported else { return nil }
        self = n
    }
    package static var schemaType: String { "integer" }
}

extension Double: ReportableValue {
    package var reported: ReportedValue { .number(self) }
    package init?(reported: ReportedValue) {
        switch reported {
        case .number(let x): self = x
        case .integer(let n): self = Double(n)
        }
    }
    package static var schemaType: String { "number" }
}

/// The run's settings with a range, each declared once (``RunSetting``).
package enum RunSettings {
    /// Every declaration, in the order ``SimulationSettings/validate()`` checks them.
    package static let all: [any RunSettingDeclaration] = [
        peers, duration, rate, workers, loss, traceUpdateInterval, tracePoseInterval, traceDevices, maximumSessions,
        discoveryRange, imuRate, imuRange, sensorLag, stampJitter, sensorGaps, clockOffset, lineOfSightSigma,
        antennaDelaySigma, levelBias, nearFieldSlope,
    ]

    /// The declarations the summary's `run` block reports.
    package static let reported = all.filter { $0.reporting != nil }

    package static let peers = RunSetting<Int>(
        "--peers", "Peers in the room; at most 400 over UDP, and a scenario file brings its own", .between(2, 10_000),
        default: "100",
        reporting: .always("peers"),
        value: { $0.peerCount })
    package static let duration = RunSetting<Double>(
        "--duration", "Simulated time", .aboveAndAtMost(0, 86_400), unit: ("second", "seconds"), default: "60",
        reporting: .always("duration"),
        value: { $0.duration })
    package static let rate = RunSetting<Double>(
        "--rate",
        "Ranging rounds per second: under --ranging-policy ideal every pair of running sessions ranges once a round; "
            + "under the others the round is how often the plan is made", .between(0.5, 100), unit: ("Hz", "Hz"),
        default: "10",
        reporting: .always("rate"),
        value: { $0.rate })
    package static let workers = RunSetting<Int>(
        "--workers",
        "Threads that share each round's pairs and, from 200 peers in memory, each announcement's receivers and the "
            + "world's round; with more than one, the world's next round runs beside the datagrams in memory; the "
            + "outcome does not depend on it", .between(1, 256), default: "the number of cores",
        reporting: .always("workers", inTrace: false),
        value: { $0.workers })
    package static let loss = RunSetting<Double>(
        "--loss", "Share of datagrams lost, memory transport only", .between(0, 0.9), default: "0",
        reporting: .always("loss"),
        value: { $0.loss })
    package static let traceUpdateInterval = RunSetting<Double>(
        "--trace-update-interval",
        "Each session's updates go into the trace at most once per this many seconds; a pair's updates in the second "
            + "before each of its bumps, and from 2 s before to 1 s after each of its near misses, always do",
        .between(0, 3_600), unit: ("second", "seconds"), default: "1",
        reporting: .always("traceUpdateInterval"),
        value: { $0.traceUpdateInterval })
    package static let tracePoseInterval = RunSetting<Double>(
        "--trace-pose-interval",
        "Every device's position and heading go into the trace every this many seconds, 0 for every round",
        .between(0, 3_600), unit: ("second", "seconds"), default: "0.5",
        reporting: .always("tracePoseInterval"),
        value: { $0.tracePoseInterval })
    package static let traceDevices = RunSetting<Int>(
        "--trace-devices",
        "The trace follows at most this many devices: every k-th from device 0, their own lines and their pairs' "
            + "contacts and near misses; the run line's traceEvery is k", .atLeast(1, otherwise: "all"),
        default: "1000",
        // The run block reports what it makes of the count: the stride `traceEvery`.
        reporting: nil,
        value: { $0.traceDevices })
    package static let maximumSessions = RunSetting<Int>(
        "--max-sessions", "The most sessions a device holds at once; its discovery invites no more and declines more",
        .between(1, 10_000), default: "100",
        reporting: .always("maximumSessions"),
        value: { $0.maximumSessions })
    package static let discoveryRange = RunSetting<Double>(
        "--discovery-range",
        "In memory: how far devices discover each other and exchange tokens; the default is where the phones' mean "
            + "Bluetooth reading falls to the receivers' sensitivity (docs/simulation.md)",
        .atLeast(1, otherwise: "none"),
        unit: ("metre", "metres"), default: "35.5",
        reporting: .only("discoveryRange",
                         "in memory, when discovery was bounded (absent: every device heard every other)"),
        value: { $0.discoveryRange },
        reported: { $0.transport == .memory && $0.discoveryRange.isFinite ? $0.discoveryRange : nil })
    package static let imuRate = RunSetting<Double>(
        "--imu-rate", "With --sensors samples: the rate of the accelerometers and gyroscopes, over the profile's",
        .between(IMUSettings.rates.lowerBound, IMUSettings.rates.upperBound), unit: ("Hz", "Hz"),
        default: "the profile's: 100 on ios, 200 on android, 400 on android-high-rate",
        reporting: .only("imuRate", "with --sensors samples"),
        value: { $0.sensors == .samples ? $0.imu.rate : nil })
    package static let imuRange = RunSetting<Double>(
        "--imu-range", "With --sensors samples: the largest acceleration the accelerometers report, over the profile's",
        .between(2, 64), unit: ("g", "g"), default: "the profile's: 8",
        reporting: .only("imuRange", "with --sensors samples"),
        value: { $0.sensors == .samples ? $0.imu.range / IMUSettings.gravity : nil })
    package static let stampJitter = RunSetting<Double>(
        "--stamp-jitter",
        "With --sensors samples: the spread of each sample's stamp around its even interval, as a share of the "
            + "interval, over the profile's", .between(0, 0.5),
        default: "the profile's: 0.01 on ios, 0.03 (the Android CDD's bound) on android",
        reporting: .only("stampJitter", "with --sensors samples"),
        value: { $0.sensors == .samples ? $0.imu.stampJitter : nil })
    package static let sensorGaps = RunSetting<Double>(
        "--sensor-gaps",
        "With --sensors samples: how often, a minute, a phone's sensors deliver nothing for a fifth of a second, "
            + "over the profile's", .between(0, 60), unit: ("a minute", "a minute"),
        default: "the profile's: none on ios, 1 on android",
        reporting: .only("sensorGaps", "with --sensors samples"),
        value: { $0.sensors == .samples ? $0.imu.gapRate * 60 : nil })
    package static let sensorLag = RunSetting<Double>(
        "--sensor-lag",
        "With --sensors samples: how late a phone's sensor stamps may run behind its own clock, over the profile's; "
            + "each phone's lag is drawn once between 0 and this", .between(0, 1), unit: ("second", "seconds"),
        default: "the profile's: 0.01 on ios, 0.1 (the Android CDD's bound) on android",
        reporting: .only("sensorLag", "with --sensors samples"),
        value: { $0.sensors == .samples ? $0.imu.stampLag : nil })
    package static let clockOffset = RunSetting<Double>(
        "--clock-offset",
        "With --sensors samples: how far apart two phones' clocks may be when their apps compare jolts sent over the "
            + "data channel", .between(0, 1), unit: ("second", "seconds"), default: "0.01",
        reporting: .only("clockOffset", "with --sensors samples"),
        value: { $0.sensors == .samples ? $0.clockOffset : nil })
    package static let lineOfSightSigma = RunSetting<Double>(
        "--los-sigma",
        "Line-of-sight distance noise a strong signal leaves; the receiver's noise adds to it with distance",
        .between(0, 10), unit: ("metre", "metres"), default: "0.085",
        reporting: .always("lineOfSightSigma"),
        value: { $0.radio.lineOfSightSigma })
    package static let antennaDelaySigma = RunSetting<Double>(
        "--antenna-sigma", "Spread of each device's antenna-delay bias", .between(0, 10), unit: ("metre", "metres"),
        default: "0.06",
        reporting: .always("antennaDelaySigma"),
        value: { $0.radio.antennaDelaySigma })
    package static let levelBias = RunSetting<Double>(
        "--level-bias",
        "How much of the leading edge's bias with the received level the pairs show in line of sight, as a share of "
            + "Decawave's measured table, 0 for chips that correct it (docs/radio-model.md)", .between(0, 2),
        default: "1",
        reporting: .always("levelBias"),
        value: { $0.radio.levelBiasShare })
    package static let nearFieldSlope = RunSetting<Double>(
        "--near-field-slope",
        "How much shorter a clear path reads for each dB its received level stands above Decawave's table, in line of "
            + "sight under about 80 cm (docs/radio-model.md, \"The near field\")", .between(0, 5),
        unit: ("cm a dB", "cm a dB"), default: "0.8",
        reporting: .always("nearFieldSlope"),
        value: { $0.radio.nearFieldBiasSlope * 100 })
}
