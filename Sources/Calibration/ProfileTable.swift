import DeviceInterface
import Foundation
import Geometry
import Radio

/// Each device profile against its published figures: a pair of two devices of the profile, facing each other in
/// line of sight at 1 to 5 m, and one of them turned about at 5 m (docs/radio-model.md, "Device profiles").
///
/// The RMSE is over many pairs, so that it holds each pair's own antenna bias as a study of a few devices does:
/// the published figures are uncalibrated.
package struct ProfileTable: Sendable {
    /// What to sample.
    package struct Settings: Sendable, Equatable {
        /// Pairs a profile, each with its own devices.
        package var pairs = 100
        /// Exchanges a pair at each distance.
        package var exchanges = 100
        /// Headings of the turned phone, evenly spread.
        package var headings = 72
        /// Exchanges a heading.
        package var exchangesPerHeading = 400
        /// The run seed.
        package var seed: UInt64 = 1
        /// The room's radio; each profile replaces its devices' models.
        package var radio = RadioConfiguration()

        package init() {}
    }

    /// The distances of the facing rows, metres.
    package static let distances: [Double] = [1, 2, 3, 4, 5]
    /// Where the near-field column samples, metres.
    package static let touchingDistance = 0.05

    package let settings: Settings

    package init(settings: Settings) {
        self.settings = settings
    }

    /// One row a profile.
    ///
    /// - Throws: ``PairRadioError`` for a bad radio configuration or a GSL failure.
    package func run(profiles: [DeviceProfile] = DeviceProfile.allCases) throws(PairRadioError) -> [ProfileRow] {
        var rows: [ProfileRow] = []
        for profile in profiles {
            var radio = settings.radio
            radio.deviceProfiles = [profile]
            radio.deviceProfileOverrides = [:]
            radio.linkModel = .lineOfSight
            rows.append(try row(profile, radio))
        }
        return rows
    }

    private func row(_ profile: DeviceProfile, _ radio: RadioConfiguration) throws(PairRadioError) -> ProfileRow {
        let s = settings
        let a = Pose(position: .zero, orientation: Orientation(heading: 0))
        func facing(at distance: Double) -> PairGeometry {
            let b = Vector3(distance, 0, 0)
            return PairGeometry(a, Pose(position: b, orientation: .facing(.zero, from: b)))
        }
        var all: [Double] = []
        var byDistance: [Double] = []
        for distance in Self.distances {
            let truth = facing(at: distance)
            var errors: [Double] = []
            for p in 0..<s.pairs {
                var link = try PairRadio(initiatorID: UInt64(2 * p), responderID: UInt64(2 * p + 1),
                                         runSeed: s.seed, configuration: radio)
                for i in 0..<s.exchanges {
                    if let d = link.exchange(geometry: truth, at: Double(i) / 10)?.distance {
                        errors.append(d - distance)
                    }
                }
            }
            byDistance.append(Self.rootMeanSquare(errors))
            all += errors
        }
        // One phone faces the other, which turns about its vertical axis: a heading fails when more than half its
        // exchanges are lost.
        var failing = 0
        for h in 0..<s.headings {
            let turn = (Double(h) + 0.5) * 2 * Double.pi / Double(s.headings)
            let b = Pose(position: Vector3(5, 0, 0), orientation: Orientation(heading: Double.pi + turn))
            var link = try PairRadio(initiatorID: UInt64(2 * h), responderID: UInt64(2 * h + 1), runSeed: s.seed &+ 1,
                                     configuration: radio)
            var received = 0
            for i in 0..<s.exchangesPerHeading where link.exchange(geometry: PairGeometry(a, b), at: Double(i) / 10) != nil {
                received += 1
            }
            if 2 * received < s.exchangesPerHeading { failing += 1 }
        }
        // Touching: what share of the exchanges read 0 m, or fail.
        let touching = facing(at: Self.touchingDistance)
        var zero = 0, lost = 0, total = 0
        for p in 0..<s.pairs {
            var link = try PairRadio(initiatorID: UInt64(2 * p), responderID: UInt64(2 * p + 1), runSeed: s.seed &+ 2,
                                     configuration: radio)
            for i in 0..<s.exchanges {
                total += 1
                guard let m = link.exchange(geometry: touching, at: Double(i) / 10) else {
                    lost += 1
                    continue
                }
                if m.distance == 0 { zero += 1 }
            }
        }
        let magnitudes = all.map(abs).sorted()
        return ProfileRow(
            profile: profile.rawValue, published: profile.published.map(ProfileRow.Published.init),
            rootMeanSquare: Self.rootMeanSquare(all), rootMeanSquareByDistance: byDistance,
            underTwentyCentimetres: Double(magnitudes.prefix { $0 < 0.2 }.count) / Double(max(all.count, 1)),
            p99: magnitudes.isEmpty ? 0 : magnitudes[min(magnitudes.count - 1, Int(0.99 * Double(magnitudes.count)))],
            failingOrientationsAtFiveMetres: Double(failing) / Double(max(s.headings, 1)),
            touchingReadsZero: Double(zero) / Double(max(total, 1)),
            touchingFails: Double(lost) / Double(max(total, 1)),
            measuresAngle: profile.traits(in: radio).measuresAngle)
    }

    private static func rootMeanSquare(_ errors: [Double]) -> Double {
        guard !errors.isEmpty else { return .nan }
        return (errors.reduce(0) { $0 + $1 * $1 } / Double(errors.count)).squareRoot()
    }
}

/// One profile's figures beside its published ones; distances in metres. Field names are the JSON output's.
package struct ProfileRow: Sendable, Equatable, Codable {
    /// A profile's published figures, as the JSON output prints them.
    package struct Published: Sendable, Equatable, Codable {
        package let rootMeanSquare: Double
        package let failingOrientationsAtFiveMetres: Double?
        package let source: String

        init(_ p: PublishedRanging) {
            rootMeanSquare = p.rootMeanSquare
            failingOrientationsAtFiveMetres = p.failingOrientationsAtFiveMetres
            source = p.source
        }
    }

    package let profile: String
    package let published: Published?
    /// Facing in line of sight, over ``ProfileTable/distances`` together.
    package let rootMeanSquare: Double
    /// The same at each of ``ProfileTable/distances``.
    package let rootMeanSquareByDistance: [Double]
    /// Share of those readings within 20 cm of the truth.
    package let underTwentyCentimetres: Double
    /// 99th percentile of their absolute error.
    package let p99: Double
    /// Share of the turned phone's headings that lose more than half their exchanges at 5 m.
    package let failingOrientationsAtFiveMetres: Double
    /// At 5 cm apart, facing: the share of exchanges that read 0 m, and that fail.
    package let touchingReadsZero: Double
    package let touchingFails: Double
    /// Whether the profile's devices measure a direction.
    package let measuresAngle: Bool
}
