import ArgumentParser
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

    @Option(help: "Line-of-sight model of every pair: geometry (obstructed by the bodies and walls on the line between the phones; in the radio probe no one stands in the way, as los), markov (obstructions come and go at random), los, or nlos (default: geometry in a run, los in the radio probe).")
    var link: RadioConfiguration.LinkModel?

    init() {}

    func validate() throws {
        try RunSettings.lineOfSightSigma.validate(losSigma)
        try RunSettings.antennaDelaySigma.validate(antennaSigma)
        try RunSettings.levelBias.validate(levelBias)
        try RunSettings.nearFieldSlope.validate(nearFieldSlope)
    }

    /// Sets the radio's fields from the flags; `--link` when given, else `link`.
    func apply(to radio: inout RadioConfiguration, link defaultLink: RadioConfiguration.LinkModel) {
        radio.lineOfSightSigma = losSigma
        radio.antennaDelaySigma = antennaSigma
        radio.levelBiasShare = levelBias
        radio.nearFieldBiasSlope = nearFieldSlope / 100
        radio.negativeFlight = negativeDistance
        radio.linkModel = link ?? defaultLink
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
