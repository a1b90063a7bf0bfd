import ArgumentParser

/// The `nearcatch-sim` command.
public struct NearcatchSim: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "nearcatch-sim",
        abstract: "A multi-peer proximity ranging simulator: discovery, token exchange, UWB ranging, bumps.",
        discussion: """
            This build carries the radio model, the range/direction estimator and discovery. `radio` samples one \
            pair of devices and reports the error statistics against the truth; `discover` runs N nodes that find \
            each other and exchange tokens, over UDP multicast on loopback or in memory. The multi-peer ranging \
            simulation (`--peers N` without a subcommand) is not in this build yet.
            """,
        subcommands: [RadioCommand.self, DiscoverCommand.self]
    )

    public init() {}
}

/// How results are printed.
public enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case text
    case json
}

/// Throws a validation error with `message` unless `ok`: the one-line, flag-naming errors of every subcommand.
func require(_ ok: Bool, _ message: @autoclosure () -> String) throws {
    if !ok { throw ValidationError(message()) }
}
