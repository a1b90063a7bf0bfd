/// The motion sensors a platform gives its apps: the rate it delivers, the range it reports, and how its stamps and
/// gaps come (sources in docs/sensors.md). The chip beneath is the same (``IMUSettings``' defaults: a phone-class
/// MEMS part's noise, offset and filter); what differs is what the platform lets an app have of it.
package enum SensorProfile: String, Sendable, CaseIterable {
    /// Core Motion on an iPhone: about 100 Hz (an app that asks for more gets 10-ms intervals), ±8 g, stamps
    /// within a few milliseconds of the phone's clock.
    case ios
    /// Android 12 and later without the high-rate permission: 200 Hz at most; the CDD's 3% stamp jitter and its
    /// 100-ms bound on how far the sensor's time base may be off the phone's; gaps in delivery.
    case android
    /// Android with `HIGH_SAMPLING_RATE_SENSORS`: 400 Hz, otherwise as ``android``.
    case androidHighRate = "android-high-rate"

    /// The profile's sensors.
    package var imu: IMUSettings {
        var s = IMUSettings()
        switch self {
        case .ios:
            s.rate = 100
            s.range = 8 * IMUSettings.gravity
            s.resolution = IMUSettings.gravity / 4096
            // Assumptions (docs/sensors.md, sensitivity rows): Core Motion stamps at the sensor's own interrupt.
            s.stampJitter = 0.01
            s.stampLag = 0.01
        case .android, .androidHighRate:
            s.rate = self == .android ? 200 : 400
            s.range = 8 * IMUSettings.gravity
            s.resolution = IMUSettings.gravity / 4096
            s.stampJitter = 0.03
            s.stampLag = 0.1
            // An assumption: one gap a minute of a fifth of a second (Stisen et al. 2015 saw such gaps, not a rate).
            s.gapRate = 1.0 / 60
            s.gapLength = 0.2
        }
        return s
    }

    /// How far the platform allows a sensor's stamps to be off the phone's clock, seconds, as it publishes it: the
    /// Android CDD's 100 ms (7.3: the synchronisation error SHOULD be below 100 ms); Apple publishes none, and Core
    /// Motion's stamps are taken as the phone's clock. An app can widen its windows by this; it cannot know its own
    /// phone's lag.
    package var allowedLag: Double { self == .ios ? 0 : 0.1 }

    /// What `--sensor-profile` says of each.
    package var explanation: String {
        switch self {
        case .ios: "Core Motion: 100 Hz, ±8 g"
        case .android:
            "Android 12+ without the high-rate permission: 200 Hz, ±8 g, 3% stamp jitter, up to 100 ms lag, gaps"
        case .androidHighRate: "Android with HIGH_SAMPLING_RATE_SENSORS: 400 Hz, otherwise as android"
        }
    }
}
