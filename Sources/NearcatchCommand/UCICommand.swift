import ArgumentParser
import Foundation
import Radio
import UCIRoom
import UCIServer

/// `nearcatch-sim uci`: simulated UWB chips behind a FiRa UCI endpoint, for any host stack that speaks UCI.
public struct UCICommand: AsyncParsableCommand, Sendable {
    public static let configuration = CommandConfiguration(
        commandName: "uci",
        abstract: "Serve simulated UWB chips over UCI on TCP: each connection is one chip (docs/uci.md).",
        discussion: """
            Listens on 127.0.0.1 only. A host that connects gets CORE_DEVICE_STATUS_NTF(READY) and drives its chip \
            with UCI commands, as it would drive pica (its flags mean the same here). Active sessions range through \
            the simulator's radio and air: distances, angles in Q9.7, figures of merit, NLOS, RSSI, timeouts and \
            collisions. Chips no one placed stand in a row along x, --spacing apart, 1 m up, even ones facing +x \
            and odd ones -x. With --web-port, pica's HTTP API moves them (/set-position/{mac}) and shows them \
            (/get-state, /events). Runs until SIGINT or SIGTERM, then prints its counters.
            """
    )

    @Option(name: .customLong("uci-port"), parsing: .unconditional, help: "TCP port for the hosts (0 picks a free one; it is printed).")
    var uciPort: Int = 7000

    @Option(name: .customLong("web-port"), parsing: .unconditional, help: "TCP port of pica's HTTP API (0 picks a free one); none without it.")
    var webPort: Int?

    @Option(parsing: .unconditional, help: "Run seed; the same seed and the same commands give the same measurements.")
    var seed: UInt64 = 1

    @Option(help: "Line-of-sight state: geometry (clear between chips, as nothing stands between them), los, nlos or markov.")
    var link: RadioConfiguration.LinkModel = .geometry

    @Option(parsing: .unconditional, help: "Spacing of the default row, metres (0.1 to 100).")
    var spacing: Double = 1

    public init() {}

    public func validate() throws {
        try require((0...65_535).contains(uciPort), "--uci-port must be between 0 and 65535, got \(uciPort)")
        if let webPort { try require((0...65_535).contains(webPort), "--web-port must be between 0 and 65535, got \(webPort)") }
        try require(spacing.isFinite && spacing >= 0.1 && spacing <= 100, "--spacing must be between 0.1 and 100 metres, got \(spacing)")
    }

    public func run() async throws {
        var settings = UCIRoomSettings()
        settings.seed = seed
        settings.radio.linkModel = link
        settings.spacing = spacing
        let endpoint = UCIEndpoint(room: try UCIRoom(settings: settings))
        let port: Int
        do {
            port = try endpoint.listen(port: uciPort)
        } catch {
            throw ValidationError("cannot listen on 127.0.0.1:\(uciPort) for --uci-port: \(error)")
        }
        var lines = ["nearcatch-sim uci: listening for UCI hosts on 127.0.0.1:\(port)"]
        if let webPort {
            do {
                let bound = try endpoint.serveWeb(port: webPort)
                lines.append("nearcatch-sim uci: pica's HTTP API on http://127.0.0.1:\(bound)")
            } catch {
                endpoint.shutdown()
                throw ValidationError("cannot listen on 127.0.0.1:\(webPort) for --web-port: \(error)")
            }
        }
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        let (_, signal) = try await InterruptSignals.run {
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(200)) }
        }
        let c = endpoint.counters
        endpoint.shutdown()
        let summary = """
            nearcatch-sim uci: \(c.packetsReceived) packets in, \(c.malformedPackets) malformed, \(c.badCommands) commands refused, \
            \(c.commandsInWrongState) in the wrong state, \(c.badDataPackets) data packets refused; \(c.rounds) rounds, \
            \(c.exchanges) exchanges (\(c.lostExchanges) lost to the link, \(c.collidedExchanges) to collisions), \
            \(c.notifications) notifications; data \(c.dataDelivered) delivered, \(c.dataDropped) dropped

            """
        FileHandle.standardOutput.write(Data(summary.utf8))
        _ = signal
    }
}
