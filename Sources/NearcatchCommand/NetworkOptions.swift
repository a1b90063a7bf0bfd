import ArgumentParser
import Discovery
import MulticastTransport
import Simulation

/// The options `run` and `discover` share: the transport, the seed, the in-memory loss, the UDP group and interface,
/// the group key and the output format, checked in one place with the same words.
struct NetworkOptions: ParsableArguments, Sendable {
    enum TransportChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
        case udp
        case memory
    }

    @Option(help: "udp (real sockets on loopback, real time) or memory (an in-process network on a virtual clock: deterministic, seeded loss).")
    var transport: TransportChoice = .udp

    @Option(parsing: .unconditional,
            help: "Run seed: the same seed gives the same run (byte for byte in memory with the virtual clock).")
    var seed: UInt64 = 1

    @Option(name: RunSettings.loss.option, parsing: .unconditional, help: RunSettings.loss.argumentHelp)
    var loss: Double = 0

    @Option(help: "Multicast group as ADDRESS:PORT, administratively scoped (239.x.y.z); runs at the same time on one machine need different groups (default: 239.255.77.80:47680 for run, 239.255.77.77:47677 for discover).")
    var group: String?

    @Option(help: "Interface for the group and the unicast endpoints (UDP); loopback unless you name another.")
    var interface: String = "lo"

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    @OptionGroup var key: GroupKeyOptions

    init() {}

    func validate() throws {
        try RunSettings.loss.validate(loss)
        try require(loss == 0 || transport == .memory,
                    "--loss applies to --transport memory only; over UDP the network decides what is lost")
        if let group {
            var m = MulticastConfiguration()
            do { try m.setGroup(group) } catch { throw ValidationError("--group: \(error)") }
        }
        _ = try groupKey()
    }

    /// The group and interface, `defaultGroup` unless `--group` names another.
    func multicast(defaultGroup: String) throws -> MulticastConfiguration {
        var m = MulticastConfiguration()
        m.interface = interface
        do { try m.setGroup(group ?? defaultGroup) } catch { throw ValidationError("--group: \(error)") }
        return m
    }

    /// The group key the flags (or the environment) give.
    ///
    /// - Throws: `ValidationError` naming the option.
    func groupKey() throws -> GroupKey {
        try key.resolve(loopbackOnly: transport == .memory || interface == "lo", interface: interface)
    }

    /// A socket set-up failure in the words of the flag that caused it.
    static func validationError(_ error: MulticastSetupError) -> ValidationError {
        if case .noSuchInterface = error { return ValidationError("--interface: \(error)") }
        return ValidationError("--group: \(error)")
    }
}
