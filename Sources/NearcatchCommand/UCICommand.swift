import ArgumentParser
import DeviceInterface
import Foundation
import Radio
import UCI
import UCIRoom
import UCIServer
import World

/// `nearcatch-sim uci`: simulated UWB chips behind a FiRa UCI endpoint, for any host stack that speaks UCI.
package struct UCICommand: AsyncParsableCommand, Sendable {
    package static let configuration = CommandConfiguration(
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

    @Option(name: .customLong("web-host"),
            help: "The address the web API and its live page listen on: 127.0.0.1 unless asked (an IPv4 or IPv6 address; 0.0.0.0 serves every interface).")
    var webHost = "127.0.0.1"

    @Option(help: "The web API's coordinates: room (z up, yaw counter-clockwise from +x, a chip at rest facing +x) or pica (y up, a chip at rest facing +z, as pica's page and scripts place chips) (docs/uci.md).")
    var axes: WebAxes = .room

    @Option(name: .customLong("uci-version"),
            help: "The UCI the chips speak: 2.0 (the default, as current Android expects: session handles, 2.0 caps and multicast-list layouts), 1.1 (sessions named by their ids), or pica (what pica answers at its HEAD, for hosts written against it) (docs/uci.md).")
    var uciVersion: UCIVersion = .v2_0

    @Option(parsing: .unconditional, help: "Run seed; the same seed and the same commands give the same measurements.")
    var seed: UInt64 = 1

    @Option(help: "Line-of-sight state: geometry (clear between chips, as nothing stands between them), los, nlos or markov.")
    var link: RadioConfiguration.LinkModel = .geometry

    @Option(name: .customLong("device-profile"),
            help: "Each chip's model: generic (the default), iphone, pixel, galaxy or dw3000; a comma-separated list mixes them, chip N taking the (N mod n)-th; a scenario file's peer may name its own (docs/radio-model.md, \"Device profiles\").")
    var deviceProfile: DeviceProfileList = DeviceProfileList(profiles: [.generic])

    @Option(parsing: .unconditional, help: "Spacing of the default row, metres (0.1 to 100).")
    var spacing: Double = 1

    @Option(help: "Move the chips: still (the default row, moved only by the web API), mingle, random-waypoint, or the path of a scenario file (docs/scenario-format.md); chip N follows the world's peer N.")
    var scenario: String = "still"

    @Option(parsing: .unconditional, help: "Peers of a mingle or random-waypoint world (2 to 1000); a scenario file brings its own.")
    var peers: Int = 100

    @Option(name: .customLong("pcapng-dir"), help: "Write each chip's UCI packets to DIR/device-N.pcapng (made if missing).")
    var pcapngDirectory: String?

    @Flag(help: "Serve nothing: measure N phones ranging their k nearest as k sessions or one one-to-many session each (N 10, 30, 100; k 2, 4, 8) on the room's own clock, print the table of docs/uci.md, and exit.")
    var compare = false

    package init() {}

    /// The closing line of counters (docs/uci.md).
    package static func summary(_ c: UCICounters, lateness: (p50: Double, p95: Double)?) -> String {
        let late = lateness.map { String(format: "; reports left p50 %.1f ms, p95 %.1f ms after they were due", $0.p50, $0.p95) } ?? ""
        return "nearcatch-sim uci: \(c.packetsReceived) packets in, \(c.malformedPackets) malformed, \(c.badCommands) commands refused, "
            + "\(c.commandsInWrongState) in the wrong state, \(c.badDataPackets) data packets refused; \(c.rounds) rounds, "
            + "\(c.exchanges) exchanges (\(c.lostExchanges) lost to the link, \(c.collidedExchanges) to collisions), "
            + "\(c.notifications) notifications; data \(c.dataDelivered) delivered, \(c.dataDropped) dropped, "
            + "\(c.dataMisaddressed) misaddressed" + late
    }

    package func validate() throws {
        try require((0...65_535).contains(uciPort), "--uci-port must be between 0 and 65535, got \(uciPort)")
        if let webPort { try require((0...65_535).contains(webPort), "--web-port must be between 0 and 65535, got \(webPort)") }
        var v4 = in_addr(), v6 = in6_addr()
        try require(inet_pton(AF_INET, webHost, &v4) == 1 || inet_pton(AF_INET6, webHost, &v6) == 1,
                    "--web-host must be an IPv4 or IPv6 address, got \(webHost)")
        try require(spacing.isFinite && spacing >= 0.1 && spacing <= 100, "--spacing must be between 0.1 and 100 metres, got \(spacing)")
        try require((2...1000).contains(peers), "--peers must be between 2 and 1000, got \(peers)")
    }

    /// The world the chips follow, if one moves them, and the models its scenario file gives its peers.
    private func world() throws -> (world: World, devices: [UInt64: DeviceProfile])? {
        let chosen: Scenario
        switch scenario {
        case "still": return nil
        case "mingle": chosen = .mingle
        case "random-waypoint": chosen = .randomWaypoint
        default:
            do {
                chosen = .scripted(try ScenarioFile.load(path: scenario))
            } catch {
                throw ValidationError("--scenario: \(error)")
            }
        }
        let devices: [UInt64: DeviceProfile] = if case .scripted(let file) = chosen { file.deviceProfiles } else { [:] }
        return (try World(scenario: chosen, peers: peers, seed: seed), devices)
    }

    package func run() async throws {
        if compare {
            var lines = [UCIStudy.header]
            for n in [10, 30, 100] {
                for k in [2, 4, 8] {
                    for mode in UCIStudy.Mode.allCases { lines.append(try UCIStudy.run(phones: n, peers: k, mode: mode, seed: seed).line) }
                }
            }
            FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            return
        }
        var settings = UCIRoomSettings()
        settings.seed = seed
        settings.version = uciVersion
        settings.radio.linkModel = link
        settings.radio.deviceProfiles = deviceProfile.profiles
        settings.spacing = spacing
        let moving = try world()
        settings.radio.deviceProfileOverrides = moving?.devices ?? [:]
        let room = try UCIRoom(settings: settings)
        if let world = moving?.world {
            room.moves = { time in
                _ = world.advance(to: time)
                return world.poses
            }
        }
        let endpoint = UCIEndpoint(room: room)
        endpoint.axes = axes
        if let pcapngDirectory {
            let url = URL(fileURLWithPath: pcapngDirectory)
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                throw ValidationError("--pcapng-dir: cannot make \(pcapngDirectory): \(UCICapture.reason(error))")
            }
            endpoint.capture(into: url)
        }
        let port: Int
        do {
            port = try endpoint.listen(port: uciPort)
        } catch {
            throw ValidationError("cannot listen on 127.0.0.1:\(uciPort) for --uci-port: \(error)")
        }
        var lines = ["nearcatch-sim uci: listening for UCI hosts on 127.0.0.1:\(port)"]
        if let webPort {
            do {
                let bound = try endpoint.serveWeb(host: webHost, port: webPort)
                // An IPv6 address goes in brackets in a URL.
                let host = webHost.contains(":") ? "[\(webHost)]" : webHost
                lines.append("nearcatch-sim uci: pica's HTTP API and the live page on http://\(host):\(bound)")
            } catch {
                do {
                    try endpoint.shutdown()
                } catch {
                    FileHandle.standardError.write(Data("nearcatch-sim uci: closing: \(error)\n".utf8))
                }
                throw ValidationError("cannot listen on \(webHost):\(webPort) for --web-port: \(error)")
            }
        }
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        // The endpoint's counters belong to its event loop: a second signal says only that it ended.
        _ = try await InterruptSignals.run(lastWords: { "nearcatch-sim uci: interrupted twice, closed at once" }) {
            // Serves until the signal cancels this wait; the cancellation is the way out, not an error.
            while !Task.isCancelled {
                do { try await Task.sleep(for: .milliseconds(200)) } catch { return }
            }
        } then: { _, _ in
            func say(_ line: String) { FileHandle.standardError.write(Data("nearcatch-sim uci: \(line)\n".utf8)) }
            let figures: (counters: UCICounters, lateness: (p50: Double, p95: Double)?, problems: [String])?
            do {
                figures = try endpoint.closingFigures()
            } catch {
                figures = nil
                say("its event loop had stopped, so no counters: \(error)")
            }
            do {
                try endpoint.shutdown()
            } catch {
                say("closing: \(error)")
            }
            guard let figures else { throw ExitCode.failure }
            for p in figures.problems { say(p) }
            let summary = Self.summary(figures.counters, lateness: figures.lateness) + "\n"
            FileHandle.standardOutput.write(Data(summary.utf8))
        }
    }
}

extension UCIVersion: ExpressibleByArgument {}
extension WebAxes: ExpressibleByArgument {}
