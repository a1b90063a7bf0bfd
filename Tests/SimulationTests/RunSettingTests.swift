import Simulation
import Testing

/// The run's settings declared once: each check says what the flag takes in the words the command line prints.
@Suite struct RunSettingTests {
    @Test(arguments: [
        (RunSettings.duration.outcome(0), "--duration must be above 0 and at most 86400 seconds, got 0.0"),
        (RunSettings.duration.outcome(.nan), "--duration must be above 0 and at most 86400 seconds, got nan"),
        (RunSettings.clockOffset.outcome(2), "--clock-offset must be between 0 and 1 second, got 2.0"),
        (RunSettings.imuRate.outcome(801), "--imu-rate must be between 1 and 800 Hz, got 801.0"),
        (RunSettings.discoveryRange.outcome(0.5), "--discovery-range must be at least 1 metre (or none), got 0.5"),
        (RunSettings.traceDevices.outcome(0), "--trace-devices must be at least 1 (or all), got 0"),
        (RunSettings.maximumSessions.outcome(10_001), "--max-sessions must be between 1 and 10000, got 10001"),
    ] as [(Result<Void, SimulationSettingsError>, String)])
    func aValueOutOfRangeIsRefusedByItsFlag(_ checked: Result<Void, SimulationSettingsError>, message: String) {
        #expect(throws: SimulationSettingsError(message: message)) { try checked.get() }
    }

    @Test func valuesWithinRangePass() throws {
        try RunSettings.duration.check(86_400)
        try RunSettings.clockOffset.check(0)
        try RunSettings.discoveryRange.check(.infinity)
        try RunSettings.peers.check(10_000)
        #expect(RunSettings.rate.accepts(0.5) && !RunSettings.rate.accepts(0.49))
    }

    /// The default settings of a run are within every declaration: a run with no flags passes its checks.
    @Test func theDefaultsAreWithinTheirDeclarations() throws {
        var s = SimulationSettings()
        s.transport = .memory
        s.clock = .virtual
        try s.validate()
        let flags = Set(RunSettings.all.map(\.flag))
        #expect(flags.count == RunSettings.all.count, "two declarations of one flag")
        #expect(flags.isSuperset(of: ["--peers", "--duration", "--rate", "--workers", "--loss", "--trace-update-interval",
                                      "--trace-pose-interval", "--trace-devices", "--max-sessions", "--discovery-range",
                                      "--imu-rate", "--clock-offset", "--los-sigma", "--antenna-sigma", "--level-bias"]))
    }

    @Test func helpSaysTheValuesAndTheDefaultWhenAsked() {
        #expect(RunSettings.imuRate.help()
                == "With --sensors samples: the rate of the accelerometers and gyroscopes, over the profile's (1 to 800 Hz).")
        #expect(RunSettings.sensorLag.help(showingDefault: true).hasSuffix(
            "(0 to 1 second; default the profile's: 0.01 on ios, 0.1 (the Android CDD's bound) on android)."))
        #expect(RunSettings.discoveryRange.help(showingDefault: true).hasSuffix("(at least 1 metre, or none; default 35.5)."))
    }
}

extension RunSetting {
    /// The check as a value, for a table of cases.
    fileprivate func outcome(_ value: Value) -> Result<Void, SimulationSettingsError> {
        Result { () throws(SimulationSettingsError) in try self.check(value) }
    }
}
