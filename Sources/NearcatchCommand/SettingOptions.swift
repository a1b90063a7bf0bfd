import ArgumentParser
import Foundation
import DeviceInterface
import Radio
import Simulation

extension RunSetting {
    /// The option's long name.
    var option: NameSpecification { .customLong(name) }

    /// The option's help, from the declaration (the command line adds the default of an option that has one).
    var argumentHelp: ArgumentHelp { ArgumentHelp(help()) }

    /// The same with the declared default, for an optional option.
    var argumentHelpWithDefault: ArgumentHelp { ArgumentHelp(help(showingDefault: true)) }

    /// Refuses a value the setting does not take, as the command line's error.
    func validate(_ value: Value) throws {
        do { try check(value) } catch { throw ValidationError(error.description) }
    }
}

/// The radio's flags, shared by `run` and `radio`, each declared once (``RunSettings``).
struct RadioOptions: ParsableArguments, Sendable {
    @Option(name: RunSettings.lineOfSightSigma.option, parsing: .unconditional,
            help: RunSettings.lineOfSightSigma.argumentHelp)
    var losSigma: Double = RadioConfiguration().lineOfSightSigma

    @Option(name: RunSettings.antennaDelaySigma.option, parsing: .unconditional,
            help: RunSettings.antennaDelaySigma.argumentHelp)
    var antennaSigma: Double = RadioConfiguration().antennaDelaySigma

    @Option(name: RunSettings.levelBias.option, parsing: .unconditional, help: RunSettings.levelBias.argumentHelp)
    var levelBias: Double = RadioConfiguration().levelBiasShare

    @Option(name: RunSettings.nearFieldSlope.option, parsing: .unconditional,
            help: RunSettings.nearFieldSlope.argumentHelp)
    var nearFieldSlope: Double = RadioConfiguration().nearFieldBiasSlope * 100

    @Option(name: .customLong("negative-distance"),
            help: "What a chip reports when the error exceeds the distance: zero (0 m, the default) or fail (no measurement, the exchange fails).")
    var negativeDistance: RadioConfiguration.NegativeFlight = RadioConfiguration().negativeFlight

    @Option(name: .customLong("device-profile"),
            help: "Each device's model: generic (the default: the model of --los-sigma and --negative-distance, fitted to no single device), iphone, pixel, galaxy or dw3000, each fitted to its published figures; a comma-separated list mixes them, device i taking the (i mod n)-th (docs/radio-model.md, \"Device profiles\").")
    var deviceProfile: DeviceProfileList = DeviceProfileList(profiles: [.generic])

    @Option(help: "Line-of-sight model of every pair: geometry (obstructed by the bodies and walls on the line between the phones; in the radio probe no one stands in the way, as los), markov (obstructions come and go at random), los, or nlos (default: geometry in a run, los in the radio probe).")
    var link: RadioConfiguration.LinkModel?

    init() {}

    func validate() throws {
        try RunSettings.lineOfSightSigma.validate(losSigma)
        try RunSettings.antennaDelaySigma.validate(antennaSigma)
        try RunSettings.levelBias.validate(levelBias)
        try RunSettings.nearFieldSlope.validate(nearFieldSlope)
        let defaults = RadioConfiguration()
        if !deviceProfile.profiles.contains(.generic),
           losSigma != defaults.lineOfSightSigma || negativeDistance != defaults.negativeFlight {
            // Each named profile has its own: the flags would change nothing and say they had.
            throw ValidationError("--los-sigma and --negative-distance set the generic profile's radio, and no device "
                + "of --device-profile \(deviceProfile.defaultValueDescription) is generic: leave them out, or add "
                + "generic to the list")
        }
    }

    /// Sets the radio's fields from the flags; `--link` when given, else `link`.
    func apply(to radio: inout RadioConfiguration, link defaultLink: RadioConfiguration.LinkModel) {
        radio.lineOfSightSigma = losSigma
        radio.antennaDelaySigma = antennaSigma
        radio.levelBiasShare = levelBias
        radio.nearFieldBiasSlope = nearFieldSlope / 100
        radio.negativeFlight = negativeDistance
        radio.linkModel = link ?? defaultLink
        radio.deviceProfiles = deviceProfile.profiles
    }
}

/// `--max-sessions`, shared by `run` and `discover`, declared once (``RunSettings/maximumSessions``).
struct SessionLimitOptions: ParsableArguments, Sendable {
    @Option(name: RunSettings.maximumSessions.option, parsing: .unconditional,
            help: RunSettings.maximumSessions.argumentHelp)
    var maxSessions: Int = SimulationSettings().maximumSessions

    init() {}

    func validate() throws {
        try RunSettings.maximumSessions.validate(maxSessions)
    }
}

/// `--device-profile`: one device model, or several separated by commas.
struct DeviceProfileList: ExpressibleByArgument, Sendable, Equatable {
    let profiles: [DeviceProfile]

    init(profiles: [DeviceProfile]) {
        self.profiles = profiles
    }

    init?(argument: String) {
        var profiles: [DeviceProfile] = []
        for name in argument.split(separator: ",", omittingEmptySubsequences: false) {
            guard let profile = DeviceProfile(rawValue: name.trimmingCharacters(in: .whitespaces)) else { return nil }
            profiles.append(profile)
        }
        guard !profiles.isEmpty else { return nil }
        self.profiles = profiles
    }

    var defaultValueDescription: String { profiles.map(\.rawValue).joined(separator: ",") }

    static var allValueStrings: [String] { DeviceProfile.allCases.map(\.rawValue) }
}
