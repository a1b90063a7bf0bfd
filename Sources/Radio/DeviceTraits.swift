import DeviceInterface

/// What a device's model does to its readings, where models differ (docs/radio-model.md, "Device profiles"): the
/// rest of the radio (the link budget, the level's bias, the tail, the air) is the room's.
package struct DeviceTraits: Sendable, Equatable {
    /// Standard deviation of the line-of-sight first-path error a strong signal leaves, metres; a pair's is the
    /// root mean square of its two devices'.
    package var lineOfSightSigma: Double
    /// The antenna's gain toward the device's back, dB (``RadioConfiguration/rearGain``).
    package var rearGain: Double
    /// What the chip does with a negative time of flight.
    package var negativeFlight: RadioConfiguration.NegativeFlight
    /// Whether the device measures a direction: it needs two antennas or more.
    package var measuresAngle: Bool
}

/// A device model's published figures, against which its profile is set and checked.
package struct PublishedRanging: Sendable, Equatable {
    /// Root mean square distance error, uncalibrated, in line of sight with the devices facing, metres.
    package let rootMeanSquare: Double
    /// Share of orientations in which the device failed to range at 5 m, where published.
    package let failingOrientationsAtFiveMetres: Double?
    /// Where the figures come from.
    package let source: String
}

extension DeviceProfile {
    /// The profile's traits in a room of `configuration`: the generic profile's are the configuration's own.
    package func traits(in configuration: RadioConfiguration) -> DeviceTraits {
        switch self {
        case .generic:
            DeviceTraits(lineOfSightSigma: configuration.lineOfSightSigma, rearGain: configuration.rearGain,
                         negativeFlight: configuration.negativeFlight, measuresAngle: true)
        // Each floor is the one that brings a pair of the model to its published RMSE facing at 1 to 5 m, over
        // pairs (`radio --profiles`; docs/radio-model.md has the fit).
        case .iphone:
            // What U1 does with a negative flight is not published: the framework's distance is never negative.
            DeviceTraits(lineOfSightSigma: 0.145, rearGain: configuration.rearGain, negativeFlight: .zero,
                         measuresAngle: true)
        case .pixel:
            // A Pixel 6 Pro failed to range in 37.8% of orientations at 5 m: a deeper back lobe than the generic
            // phone's, set to fail in that share of headings.
            DeviceTraits(lineOfSightSigma: 0.110, rearGain: -12, negativeFlight: .zero, measuresAngle: true)
        case .galaxy:
            // A Galaxy S21 Ultra reported 0 m repeatedly.
            DeviceTraits(lineOfSightSigma: 0.120, rearGain: configuration.rearGain, negativeFlight: .zero,
                         measuresAngle: true)
        case .dw3000:
            // Qorvo's DW3000 firmware treats a negative time of flight as an error (libdeca issue 7); the DWM3000
            // module has one antenna, so no angle of arrival.
            DeviceTraits(lineOfSightSigma: 0.121, rearGain: configuration.rearGain, negativeFlight: .fail,
                         measuresAngle: false)
        }
    }

    /// The figures the profile is fitted to; none for the generic profile.
    package var published: PublishedRanging? {
        let heinrich = "Heinrich et al. 2023, \"Smartphones with UWB\" (arXiv 2303.11220)"
        return switch self {
        case .generic: nil
        case .iphone: PublishedRanging(rootMeanSquare: 0.177, failingOrientationsAtFiveMetres: nil, source: heinrich)
        case .pixel: PublishedRanging(rootMeanSquare: 0.150, failingOrientationsAtFiveMetres: 0.378, source: heinrich)
        case .galaxy: PublishedRanging(rootMeanSquare: 0.157, failingOrientationsAtFiveMetres: nil, source: heinrich)
        case .dw3000: PublishedRanging(rootMeanSquare: 0.160, failingOrientationsAtFiveMetres: nil, source: heinrich)
        }
    }
}
