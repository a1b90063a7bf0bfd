import World

/// A run setting declared once: the flag that sets it, what it means, the values it takes and its default. The
/// command line's options take their name, help and default from it (NearcatchCommand's option groups), and
/// ``SimulationSettings/validate()`` checks a value through it, in words that name the flag.
package struct RunSetting<Value: Comparable & Sendable & CustomStringConvertible>: Sendable {
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

    package init(_ flag: String, _ meaning: String, _ values: Values, unit: (String, String) = ("", ""),
                 default defaultValue: String, value: @escaping @Sendable (SimulationSettings) -> Value?) {
        self.flag = flag
        self.meaning = meaning
        self.values = values
        self.unit = unit
        self.defaultValue = defaultValue
        self.value = value
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

/// What every declaration says, whatever its value's type: for the tests and docs that list them.
package protocol RunSettingDeclaration: Sendable {
    var flag: String { get }
    var rule: String { get }
    func help(showingDefault: Bool) -> String
    func check(in settings: SimulationSettings) throws(SimulationSettingsError)
}

extension RunSetting: RunSettingDeclaration {}

/// The run's settings with a range, each declared once (``RunSetting``).
package enum RunSettings {
    /// Every declaration, in the order ``SimulationSettings/validate()`` checks them.
    package static let all: [any RunSettingDeclaration] = [
        peers, duration, rate, workers, loss, traceUpdateInterval, tracePoseInterval, traceDevices, maximumSessions,
        discoveryRange, imuRate, clockOffset, lineOfSightSigma, antennaDelaySigma, levelBias,
    ]

    package static let peers = RunSetting<Int>(
        "--peers", "Peers in the room; at most 400 over UDP, and a scenario file brings its own", .between(2, 10_000),
        default: "100",
        value: { $0.peerCount })
    package static let duration = RunSetting<Double>(
        "--duration", "Simulated time", .aboveAndAtMost(0, 86_400), unit: ("second", "seconds"), default: "60",
        value: { $0.duration })
    package static let rate = RunSetting<Double>(
        "--rate",
        "Ranging rounds per second: under --ranging-policy ideal every pair of running sessions ranges once a round; "
            + "under the others the round is how often the plan is made", .between(0.5, 100), unit: ("Hz", "Hz"),
        default: "10",
        value: { $0.rate })
    package static let workers = RunSetting<Int>(
        "--workers",
        "Threads that share each round's pairs and, from 200 peers in memory, each announcement's receivers and the "
            + "world's round; the outcome does not depend on it", .between(1, 256), default: "the number of cores",
        value: { $0.workers })
    package static let loss = RunSetting<Double>(
        "--loss", "Share of datagrams lost, memory transport only", .between(0, 0.9), default: "0",
        value: { $0.loss })
    package static let traceUpdateInterval = RunSetting<Double>(
        "--trace-update-interval",
        "Each session's updates go into the trace at most once per this many seconds; a pair's updates in the second "
            + "before each of its bumps, and from 2 s before to 1 s after each of its near misses, always do",
        .between(0, 3_600), unit: ("second", "seconds"), default: "1",
        value: { $0.traceUpdateInterval })
    package static let tracePoseInterval = RunSetting<Double>(
        "--trace-pose-interval",
        "Every device's position and heading go into the trace every this many seconds, 0 for every round",
        .between(0, 3_600), unit: ("second", "seconds"), default: "0.5",
        value: { $0.tracePoseInterval })
    package static let traceDevices = RunSetting<Int>(
        "--trace-devices",
        "The trace follows at most this many devices: every k-th from device 0, their own lines and their pairs' "
            + "contacts and near misses; the run line's traceEvery is k", .atLeast(1, otherwise: "all"),
        default: "1000",
        value: { $0.traceDevices })
    package static let maximumSessions = RunSetting<Int>(
        "--max-sessions", "The most sessions a device holds at once; its discovery invites no more and declines more",
        .between(1, 10_000), default: "100",
        value: { $0.maximumSessions })
    package static let discoveryRange = RunSetting<Double>(
        "--discovery-range",
        "In memory: how far devices discover each other and exchange tokens; the default is where the phones' mean "
            + "Bluetooth reading falls to the receivers' sensitivity (docs/simulation.md)",
        .atLeast(1, otherwise: "none"),
        unit: ("metre", "metres"), default: "35.5",
        value: { $0.discoveryRange })
    package static let imuRate = RunSetting<Double>(
        "--imu-rate", "With --sensors samples: the accelerometers' rate",
        .between(IMUSettings.rates.lowerBound, IMUSettings.rates.upperBound), unit: ("Hz", "Hz"), default: "100",
        value: { $0.sensors == .samples ? $0.imu.rate : nil })
    package static let clockOffset = RunSetting<Double>(
        "--clock-offset",
        "With --sensors samples: how far apart two phones' clocks may be when their apps compare jolts sent over the "
            + "data channel", .between(0, 1), unit: ("second", "seconds"), default: "0.01",
        value: { $0.sensors == .samples ? $0.clockOffset : nil })
    package static let lineOfSightSigma = RunSetting<Double>(
        "--los-sigma",
        "Line-of-sight distance noise a strong signal leaves; the receiver's noise adds to it with distance",
        .between(0, 10), unit: ("metre", "metres"), default: "0.085",
        value: { $0.radio.lineOfSightSigma })
    package static let antennaDelaySigma = RunSetting<Double>(
        "--antenna-sigma", "Spread of each device's antenna-delay bias", .between(0, 10), unit: ("metre", "metres"),
        default: "0.06",
        value: { $0.radio.antennaDelaySigma })
    package static let levelBias = RunSetting<Double>(
        "--level-bias",
        "How much of the leading edge's bias with the received level the pairs show in line of sight, as a share of "
            + "Decawave's measured table, 0 for chips that correct it (docs/radio-model.md)", .between(0, 2),
        default: "1",
        value: { $0.radio.levelBiasShare })
}
