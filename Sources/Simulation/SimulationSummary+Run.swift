extension SimulationSummary.Run {
    /// What a run of `settings` is, as the summary's `run` section and the trace's first line say.
    package init(settings: SimulationSettings) {
        facts = Facts(
            scenario: settings.scenario.name, transport: settings.transport.rawValue, clock: settings.clock.rawValue,
            seed: settings.seed, interruptedAt: nil, groupKey: settings.groupKey.name, version: settings.version,
            // The Float's decimal value, not its binary one (0.08, not 0.0799999982).
            bumpDistance: Double(String(settings.bump.distance)) ?? Double(settings.bump.distance),
            link: settings.radio.linkModel.rawValue, negativeDistance: settings.radio.negativeFlight.rawValue,
            devices: Dictionary((0..<settings.peerCount).map { (settings.radio.profile(of: UInt64($0)).rawValue, 1) },
                                uniquingKeysWith: +),
            planner: settings.rangingPolicy.label,
            detector: settings.bump.method.rawValue, sensors: settings.sensors.rawValue,
            sensorProfile: settings.sensors == .samples ? settings.sensorProfile.rawValue : nil,
            traceEvery: settings.tracePath != nil && settings.traceEvery > 1 ? settings.traceEvery : nil)
        self.settings = [:]
        for setting in RunSettings.reported {
            if let key = setting.reporting?.key { self.settings[key] = setting.reportedValue(in: settings) }
        }
    }

    /// The keys of the `run` block the trace leaves out: those of the settings that cannot change what was simulated.
    package static let keysOutOfTheTrace = RunSettings.reported.compactMap {
        $0.reporting?.inTrace == false ? $0.reporting?.key : nil
    }

    private struct SettingKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    // The facts and the settings share one JSON object: the facts' own keys, then each reported setting's.
    package func encode(to encoder: any Encoder) throws {
        try facts.encode(to: encoder)
        var container = encoder.container(keyedBy: SettingKey.self)
        for (key, value) in settings {
            switch value {
            case .integer(let n): try container.encode(n, forKey: SettingKey(stringValue: key))
            case .number(let x): try container.encode(x, forKey: SettingKey(stringValue: key))
            }
        }
    }

    package init(from decoder: any Decoder) throws {
        facts = try Facts(from: decoder)
        settings = [:]
        let container = try decoder.container(keyedBy: SettingKey.self)
        for setting in RunSettings.reported {
            guard let reporting = setting.reporting else { continue }
            let key = SettingKey(stringValue: reporting.key)
            guard container.contains(key) else { continue }
            let decoded: ReportedValue = if let n = try? container.decode(Int.self, forKey: key) { .integer(n) }
                else { .number(try container.decode(Double.self, forKey: key)) }
            guard let value = setting.parse(decoded) else {
                throw DecodingError.typeMismatch(
                    Int.self, .init(codingPath: container.codingPath + [key],
                                    debugDescription: "\(reporting.key) must be an integer, got \(decoded.json)"))
            }
            settings[reporting.key] = value
        }
    }
}
