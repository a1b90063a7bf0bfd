import ArgumentParser

/// The `nearcatch-sim` command.
public struct NearcatchSim: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "nearcatch-sim",
        abstract: "A multi-peer proximity ranging simulator: discovery, token exchange, UWB ranging, bumps.",
        discussion: """
            This build carries the radio model and the range/direction estimator. The `radio` subcommand samples \
            one pair of devices and reports the error statistics against the truth; the multi-peer simulation \
            (`--peers N`) is not in this build yet.
            """,
        subcommands: [RadioCommand.self]
    )

    public init() {}
}

/// How results are printed.
public enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case text
    case json
}
