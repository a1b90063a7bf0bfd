import ArgumentParser
import Calibration
import DeviceInterface
import Foundation
import Geometry
import Radio
import Simulation

/// `nearcatch-sim radio`: samples exchanges of one static pair and prints the error statistics.
package struct RadioCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "radio",
        abstract: "Sample N ranging exchanges of one pair and print raw and filtered error statistics.",
        discussion: """
            Device A stands at the origin; B stands at --distance, --azimuth and --elevation in A's frame, facing A. \
            Every figure is A's view of B, scored against the true geometry. Distances are in metres, angles in \
            degrees. With --format json the report's field names are stable (docs/radio-probe.md).
            """
    )

    @Option(parsing: .unconditional, help: "True distance between the two devices, metres (0 to 100).")
    var distance: Double = 2

    @Option(parsing: .unconditional, help: "True azimuth of B in A's frame, degrees right of the boresight (-180 to 180).")
    var azimuth: Double = 0

    @Option(parsing: .unconditional, help: "True elevation of B in A's frame, degrees (-90 to 90).")
    var elevation: Double = 0


    @Option(parsing: .unconditional, help: "Number of exchanges to sample (1 to 10000000).")
    var samples: Int = 10_000

    @Option(parsing: .unconditional, help: "Exchanges per second, the time step seen by the filter and the link state (0.1 to 1000).")
    var rate: Double = 10

    @Option(help: "Ranging scheme: ds (asymmetric double-sided) or ss (single-sided).")
    var ranging: RadioConfiguration.RangingScheme = .doubleSided

    @Option(name: .customLong("clock-ppm"), parsing: .unconditional, help: "Clock offsets are drawn within +- this many ppm (0 to 1000).")
    var clockPPM: Double = 20

    @Option(name: .customLong("reply-delay"), parsing: .unconditional, help: "Responder's reply delay, milliseconds (0 to 100, not 0).")
    var replyDelay: Double = 1



    @Option(name: .customLong("angle-sigma"), parsing: .unconditional, help: "Angle-of-arrival noise at boresight with a strong signal, degrees (0 to 90); the receiver's noise adds to it with distance.")
    var angleSigma: Double = 5.5

    @Option(name: .customLong("fov"), parsing: .unconditional, help: "Field-of-view half-angle, degrees (0 to 90).")
    var fieldOfView: Double = 60

    @Option(name: .customLong("max-range"), parsing: .unconditional, help: "Hard limit of range, metres (above 0); the link fades out before it.")
    var maximumRange: Double = 15

    @Option(parsing: .unconditional, help: "Share of exchanges whose reading is a gross outlier, anything from 0 to the true distance plus 3 m (0 to 1).")
    var outliers: Double = RadioConfiguration().outlierShare

    @Option(name: .customLong("undetected-path"), parsing: .unconditional, help: "Share of obstructed exchanges whose direct path goes undetected, adding an excess of mean 1 m (0 to 1).")
    var undetectedPath: Double = RadioConfiguration().undetectedPathShare

    @Option(help: "Antenna layout: l-shaped, horizontal-pair or triangle.")
    var antennas: AntennaChoice = .lShaped

    @Option(parsing: .unconditional, help: "Run seed; the same seed gives the same figures.")
    var seed: UInt64 = 1

    @Flag(name: .customLong("near-field"),
          help: "Sample 2, 5, 10, 15, 20, 25 and 30 cm instead of --distance, one table row each (docs/radio-model.md, \"The near field\").")
    var nearField = false

    @Flag(help: "Print each device profile's figures beside its published ones instead of one pair's: RMSE facing at 1 to 5 m over 100 pairs, share within 20 cm, p99, share of headings failing at 5 m, and what touching phones read (docs/radio-model.md, \"Device profiles\").")
    var profiles = false

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    @OptionGroup var radio: RadioOptions

    package init() {}

    package func validate() throws {
        try require(distance.isFinite && distance >= 0 && distance <= 100,
                  "--distance must be between 0 and 100 metres, got \(distance)")
        try require(azimuth.isFinite && abs(azimuth) <= 180,
                  "--azimuth must be between -180 and 180 degrees, got \(azimuth)")
        try require(elevation.isFinite && abs(elevation) <= 90,
                  "--elevation must be between -90 and 90 degrees, got \(elevation)")
        try require(samples >= 1 && samples <= 10_000_000, "--samples must be between 1 and 10000000, got \(samples)")
        try require(rate.isFinite && rate >= 0.1 && rate <= 1000, "--rate must be between 0.1 and 1000 Hz, got \(rate)")
        try require(clockPPM.isFinite && clockPPM >= 0 && clockPPM <= 1000,
                  "--clock-ppm must be between 0 and 1000, got \(clockPPM)")
        try require(replyDelay.isFinite && replyDelay > 0 && replyDelay <= 100,
                  "--reply-delay must be above 0 and at most 100 ms, got \(replyDelay)")
        try require(angleSigma.isFinite && angleSigma >= 0 && angleSigma <= 90,
                  "--angle-sigma must be between 0 and 90 degrees, got \(angleSigma)")
        try require(fieldOfView.isFinite && fieldOfView >= 0 && fieldOfView <= 90,
                  "--fov must be between 0 and 90 degrees, got \(fieldOfView)")
        try require(maximumRange.isFinite && maximumRange > 0 && maximumRange <= 1000,
                  "--max-range must be above 0 and at most 1000 metres, got \(maximumRange)")
        try require(outliers.isFinite && outliers >= 0 && outliers <= 1, "--outliers must be between 0 and 1, got \(outliers)")
        try require(undetectedPath.isFinite && undetectedPath >= 0 && undetectedPath <= 1,
                  "--undetected-path must be between 0 and 1, got \(undetectedPath)")
    }

    /// The probe settings the flags describe.
    package var settings: RadioProbe.Settings {
        var s = RadioProbe.Settings()
        s.distance = distance
        s.azimuth = Angle.radians(fromDegrees: azimuth)
        s.elevation = Angle.radians(fromDegrees: elevation)
        s.samples = samples
        s.rate = rate
        s.seed = seed
        radio.apply(to: &s.radio, link: link)
        s.radio.scheme = ranging
        s.radio.clockOffsetLimitPPM = clockPPM
        s.radio.responderReplyDelay = replyDelay / 1000
        s.radio.boresightAngleSigma = Angle.radians(fromDegrees: angleSigma)
        s.radio.fieldOfViewHalfAngle = Angle.radians(fromDegrees: fieldOfView)
        s.radio.maximumRange = maximumRange
        s.radio.antennaLayout = antennas.layout
        s.radio.outlierShare = outliers
        s.radio.undetectedPathShare = undetectedPath
        return s
    }

    /// Runs the probe and renders the report in the chosen format.
    /// The probe's link: `--link`, or line of sight (no one stands between the two devices).
    var link: RadioConfiguration.LinkModel { radio.link ?? .lineOfSight }

    package func render() throws -> String {
        if profiles {
            var table = ProfileTable.Settings()
            table.seed = seed
            table.radio = settings.radio
            return try render(probing: { try ProfileTable(settings: table).run() },
                              json: { ProfileTableOutput(seed: seed, rows: $0) }) {
                ProfileRow.text($0, heading: "radio probe, device profiles: facing in line of sight at 1 to 5 m, "
                    + "\(table.pairs) pairs x \(table.exchanges) exchanges a distance; \(table.headings) headings at 5 m; "
                    + "seed \(seed)")
            }
        }
        let probe = RadioProbe(settings: settings)
        guard nearField else {
            return try render(probing: { try probe.run() }, json: { RadioProbeOutput(settings: self, report: $0) }) {
                $0.text(heading: "radio probe: \(distance) m, azimuth \(azimuth)°, elevation \(elevation)°, "
                    + "link \(link.rawValue), ranging \(ranging.rawValue), \(samples) samples at \(rate) Hz, seed \(seed)")
            }
        }
        return try render(probing: { try probe.nearField() }, json: { NearFieldOutput(settings: self, rows: $0) }) {
            $0.nearFieldText(heading: "radio probe, near field: azimuth \(azimuth)°, elevation \(elevation)°, "
                + "link \(link.rawValue), ranging \(ranging.rawValue), negative distances "
                + (radio.negativeDistance == .zero ? "read 0 m" : "fail") + ", near-field slope "
                + "\(radio.nearFieldSlope) cm a dB, \(samples) samples a distance at \(rate) Hz, seed \(seed)")
        }
    }

    /// Runs `probing` and renders what it found as JSON or text.
    private func render<Found, Document: Encodable>(
        probing: () throws -> Found, json: (Found) -> Document, text: (Found) -> String
    ) throws -> String {
        let found: Found
        do {
            found = try probing()
        } catch {
            // A bad radio configuration or a GSL failure (``PairRadioError``), in its own words.
            throw ValidationError(String(describing: error))
        }
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            return String(decoding: try encoder.encode(json(found)), as: UTF8.self)
        case .text:
            return text(found)
        }
    }

    package func run() throws {
        print(try render())
    }
}

/// The antenna layouts offered on the command line.
package enum AntennaChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case lShaped = "l-shaped"
    case horizontalPair = "horizontal-pair"
    case triangle

    var layout: AntennaLayout {
        switch self {
        case .lShaped: .lShaped
        case .horizontalPair: .horizontalPair
        case .triangle: .triangle
        }
    }
}

extension RadioConfiguration.LinkModel: ExpressibleByArgument {}
extension RadioConfiguration.RangingScheme: ExpressibleByArgument {}

/// The probe's inputs as its JSON documents print them.
struct RadioProbeInputs: Encodable {
    let distance: Double?
    let azimuthDegrees, elevationDegrees, rate, clockPPM, losSigma, levelBias, nearFieldSlope: Double
    let angleSigmaDegrees: Double
    let link, ranging, antennas, negativeDistance: String
    /// A's model and B's (devices 0 and 1 of `--device-profile`).
    let devices: [String]
    let samples: Int
    let seed: UInt64

    init(_ c: RadioCommand) {
        distance = c.nearField ? nil : c.distance
        azimuthDegrees = c.azimuth
        elevationDegrees = c.elevation
        rate = c.rate
        clockPPM = c.clockPPM
        losSigma = c.radio.losSigma
        levelBias = c.radio.levelBias
        nearFieldSlope = c.radio.nearFieldSlope
        angleSigmaDegrees = c.angleSigma
        link = c.link.rawValue
        ranging = c.ranging.rawValue
        antennas = c.antennas.rawValue
        negativeDistance = c.radio.negativeDistance.rawValue
        let radio = c.settings.radio
        devices = [radio.profile(of: 0).rawValue, radio.profile(of: 1).rawValue]
        samples = c.samples
        seed = c.seed
    }
}

/// The JSON document `radio --format json` prints: the inputs, then the report.
struct RadioProbeOutput: Encodable {
    let inputs: RadioProbeInputs
    let report: RadioProbeReport

    init(settings c: RadioCommand, report: RadioProbeReport) {
        inputs = RadioProbeInputs(c)
        self.report = report
    }
}

/// The JSON document `radio --near-field --format json` prints: the inputs, then a report a distance.
struct NearFieldOutput: Encodable {
    let inputs: RadioProbeInputs
    let rows: [NearFieldRow]

    init(settings c: RadioCommand, rows: [NearFieldRow]) {
        inputs = RadioProbeInputs(c)
        self.rows = rows
    }
}

extension RadioConfiguration.NegativeFlight: ExpressibleByArgument {}

/// The JSON document `radio --profiles --format json` prints.
struct ProfileTableOutput: Encodable {
    let seed: UInt64
    let distances = ProfileTable.distances
    let rows: [ProfileRow]
}
