import ArgumentParser

/// The `nearcatch-sim` command.
package struct NearcatchSim: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "nearcatch-sim",
        abstract: "A multi-peer proximity ranging simulator: discovery, token exchange, UWB ranging, bumps.",
        discussion: """
            `nearcatch-sim --peers 100` runs the main job (the `run` subcommand): a room of peers that discover \
            each other, range every pair and bump, scored against the truth. `discover` runs discovery alone; \
            `radio` samples the radio model of one pair; `report` makes an HTML report of a run from its trace; `uci` \
            serves simulated UWB chips to UCI host stacks; `sweep` runs a grid of options over seeds, here or on a \
            Dask cluster.
            """,
        version: NearcatchSim.version,
        subcommands: [RunCommand.self, DiscoverCommand.self, RadioCommand.self, ReportCommand.self, UCICommand.self,
                      SweepCommand.self],
        defaultSubcommand: RunCommand.self
    )

    /// The program's version, as `--version` prints it.
    package static let version = "0.7.0-dev"

    package init() {}
}

/// How results are printed.
package enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case text
    case json
}

/// Throws a validation error with `message` unless `ok`: the one-line, flag-naming errors of every subcommand.
func require(_ ok: Bool, _ message: @autoclosure () -> String) throws {
    if !ok { throw ValidationError(message()) }
}
