import ArgumentParser
import Bump
import Foundation
import Planning
import Simulation
import World

/// `run`'s own flags: the room, the clock, the trace, the sensors and detector, the air. Each flag with a range
/// takes its name, help and check from its declaration (``RunSettings``); `run` shares the radio's, the session
/// limit's and the network's flags with the other commands through their groups.
struct RunOptions: ParsableArguments, Sendable {
    @Option(name: RunSettings.peers.option, parsing: .unconditional, help: RunSettings.peers.argumentHelpWithDefault)
    var peers: Int?

    @Option(name: RunSettings.duration.option, parsing: .unconditional, help: RunSettings.duration.argumentHelp)
    var duration: Double = SimulationSettings().duration

    @Option(name: RunSettings.rate.option, parsing: .unconditional, help: RunSettings.rate.argumentHelp)
    var rate: Double = SimulationSettings().rate

    @Option(help: "mingle, random-waypoint, or the path of a scenario file (docs/scenario-format.md).")
    var scenario: String = "mingle"

    @Option(help: "real (paced) or virtual (as fast as possible; memory transport only). Default: real over UDP, virtual in memory.")
    var clock: RunCommand.ClockChoice?

    @Option(name: RunSettings.workers.option, parsing: .unconditional,
            help: RunSettings.workers.argumentHelpWithDefault)
    var workers: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Write a JSON Lines trace to this file (written only if the run succeeds; an existing file only with --force).")
    var trace: String?

    @Flag(help: "Replace an existing file at the --trace path (a folder there is always refused).")
    var force = false

    @Option(name: RunSettings.traceUpdateInterval.option, parsing: .unconditional,
            help: RunSettings.traceUpdateInterval.argumentHelp)
    var traceUpdateInterval: Double = SimulationSettings().traceUpdateInterval

    @Option(name: RunSettings.tracePoseInterval.option, parsing: .unconditional,
            help: RunSettings.tracePoseInterval.argumentHelp)
    var tracePoseInterval: Double = SimulationSettings().tracePoseInterval

    @Option(name: RunSettings.traceDevices.option, parsing: .unconditional, help: RunSettings.traceDevices.argumentHelp)
    var traceDevices: TraceDevices = TraceDevices(count: SimulationSettings().traceDevices)

    @Option(name: .customLong("bump-distance"), parsing: .unconditional, help: "The range detector fires at or under this estimated distance, metres (default 0.08).")
    var bumpDistance: Float = BumpConfiguration().distance

    @Option(help: "Bump detector: fused (an impact both phones' accelerometers feel at once, confirmed by range) or range (the range estimate alone).")
    var detector: BumpConfiguration.Method = BumpConfiguration().method

    @Option(help: "What the phones' accelerometers are made of: samples (the default: each phone's chip sampling its physical motion, the device finding its own jolts) or peaks (a tap at every true contact, made from the truth: to compare with, never a default). docs/sensors.md.")
    var sensors: Sensors = SimulationSettings().sensors

    @Option(name: .customLong("sensor-profile"), help: ArgumentHelp(RunOptions.profileHelp))
    var sensorProfile: SensorProfile = SimulationSettings().sensorProfile

    @Option(name: RunSettings.imuRate.option, parsing: .unconditional,
            help: RunSettings.imuRate.argumentHelpWithDefault)
    var imuRate: Double?

    @Option(name: RunSettings.imuRange.option, parsing: .unconditional,
            help: RunSettings.imuRange.argumentHelpWithDefault)
    var imuRange: Double?

    @Option(name: RunSettings.sensorLag.option, parsing: .unconditional,
            help: RunSettings.sensorLag.argumentHelpWithDefault)
    var sensorLag: Double?

    @Option(name: RunSettings.stampJitter.option, parsing: .unconditional,
            help: RunSettings.stampJitter.argumentHelpWithDefault)
    var stampJitter: Double?

    @Option(name: RunSettings.sensorGaps.option, parsing: .unconditional,
            help: RunSettings.sensorGaps.argumentHelpWithDefault)
    var sensorGaps: Double?

    @Option(name: RunSettings.clockOffset.option, parsing: .unconditional, help: RunSettings.clockOffset.argumentHelp)
    var clockOffset: Double = SimulationSettings().clockOffset

    @Option(name: .customLong("ranging-policy"), help: ArgumentHelp(RunOptions.policyHelp))
    var rangingPolicy: SimulationSettings.RangingPolicy = SimulationSettings().rangingPolicy

    @Option(parsing: .unconditional, help: "UWB channels the devices range on (default 1).")
    var channels: Int = SimulationSettings().medium.channels

    @Option(name: .customLong("interference-range"), parsing: .unconditional,
            help: "Metres within which two exchanges may not share a slot (default 20).")
    var interferenceRange: Double = SimulationSettings().medium.interferenceRange

    @Option(name: .customLong("capture-threshold"), parsing: .unconditional,
            help: ArgumentHelp("How much stronger a frame must arrive than the frames overlapping it to be received, dB, or 'none' for no capture (default 6; docs/airtime.md, \"Frames and capture\").", valueName: "dB|none"))
    var captureThreshold: CaptureThreshold = CaptureThreshold(decibels: SimulationSettings().medium.captureThreshold)

    @Option(name: .customLong("sessions-per-device"), parsing: .unconditional,
            help: "Of the sessions a device holds (--max-sessions), those it keeps active; the others are suspended (default: all it holds).")
    var sessionsPerDevice: Int?

    @Option(name: RunSettings.discoveryRange.option, parsing: .unconditional,
            help: RunSettings.discoveryRange.argumentHelpWithDefault)
    var discoveryRange: DiscoveryRange?

    @Option(name: .customLong("exchanges-per-device"), parsing: .unconditional,
            help: "Exchanges one device takes part in per second (default: no limit beyond one at a time).")
    var exchangesPerDevice: Double?

    @Option(help: "Write an HTML report of the run to this file (docs/report.md); with no --trace, the run traces to a temporary file for it.")
    var report: String?

    @Option(help: "Write the report's pictures as SVG files into this folder (room, distance and direction error, bump latency).")
    var svg: String?

    init() {}

    /// `--sensor-profile`'s help, from the profiles' own list.
    static var profileHelp: String {
        "With --sensors samples, the platform whose motion sensors the phones have (docs/sensors.md): "
            + SensorProfile.allCases.map { "\($0.rawValue) (\($0.explanation))" }.joined(separator: ", ")
            + ". Default: ios."
    }

    /// `--ranging-policy`'s help, from the policies' own list (beside their planners).
    static var policyHelp: String {
        let policies = SimulationSettings.RangingPolicy.allCases.map { "\($0.rawValue) (\($0.explanation))" }
        return "Who ranges when (docs/airtime.md): " + policies.dropLast().joined(separator: ", ") + " or "
            + (policies.last ?? "") + "."
    }

    /// Sets the run's own fields of `s` from the flags.
    ///
    /// - Parameter reportTrace: where the trace goes for the report when no --trace names one.
    /// - Throws: a validation error naming the scenario file's field, or `--peers` against the file's peers.
    func apply(to s: inout SimulationSettings, reportTrace: String?,
               transport: NetworkOptions.TransportChoice) throws {
        switch scenario {
        case "mingle": s.scenario = .mingle
        case "random-waypoint": s.scenario = .randomWaypoint
        default:
            do {
                s.scenario = .scripted(try ScenarioFile.load(path: scenario))
            } catch {
                throw ValidationError("--scenario: \(error)")
            }
        }
        if case .scripted(let file) = s.scenario, let peers, peers != file.peers.count {
            throw ValidationError("--peers \(peers) disagrees with the scenario file, which has \(file.peers.count) peers")
        }
        s.peers = peers ?? s.peers
        s.duration = duration
        s.rate = rate
        s.transport = transport == .udp ? .udp : .memory
        s.clock = (clock ?? (transport == .udp ? .real : .virtual)) == .real ? .real : .virtual
        s.workers = workers
        s.tracePath = trace ?? reportTrace
        // A temporary trace of this process's own is replaced whatever --force says.
        s.replaceTrace = force || (trace == nil && reportTrace != nil)
        s.traceUpdateInterval = traceUpdateInterval
        s.tracePoseInterval = tracePoseInterval
        s.traceDevices = traceDevices.count
        s.rangingPolicy = rangingPolicy
        s.medium.channels = channels
        s.medium.interferenceRange = interferenceRange
        s.medium.captureThreshold = captureThreshold.decibels
        s.medium.sessionsPerDevice = sessionsPerDevice
        if let discoveryRange { s.discoveryRange = discoveryRange.metres }
        s.medium.exchangesPerDevicePerSecond = exchangesPerDevice
        s.bump.distance = bumpDistance
        s.bump.rearmDistance = max(s.bump.rearmDistance, bumpDistance * 2)
        s.bump.method = detector
        s.sensors = sensors
        s.sensorProfile = sensorProfile
        if let imuRate { s.imu.rate = imuRate }
        if let imuRange { s.imu.range = imuRange * IMUSettings.gravity }
        if let sensorLag { s.imu.stampLag = sensorLag }
        if let stampJitter { s.imu.stampJitter = stampJitter }
        if let sensorGaps { s.imu.gapRate = sensorGaps / 60 }
        s.clockOffset = clockOffset
    }
}

/// `--capture-threshold`: decibels, or `none` for no capture.
struct CaptureThreshold: ExpressibleByArgument, Sendable {
    let decibels: Double?

    init(decibels: Double?) { self.decibels = decibels }

    init?(argument: String) {
        if argument == "none" {
            decibels = nil
        } else if let x = Double(argument), x.isFinite {
            decibels = x
        } else {
            return nil
        }
    }

    var defaultValueDescription: String { decibels.map { String(format: "%g", $0) } ?? "none" }
}
