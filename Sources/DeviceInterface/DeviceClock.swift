/// A phone's own clock, as its apps read it: seconds since the phone started (its uptime), counted by the crystal
/// that also clocks its radio, so that it runs fast or slow by the same fraction (``DeviceRadio/clockOffset``, at
/// most the ±20 ppm a UWB radio's crystal may be off). No two phones agree on the time: an app that compares its own
/// timestamps with a peer's must first learn the offset between the two clocks.
public struct DeviceClock: Sendable, Equatable {
    /// Phones run for days between restarts; a spread of a week is an assumption whose only consequence is that two
    /// phones' clocks differ by far more than any window an app compares timestamps in.
    public static let uptimeSpread = 7 * 86_400.0

    /// The clock's reading at the run's time 0, seconds.
    public let uptimeAtStart: Double
    /// How fast it runs against the world's time, as a fraction (20e-6 gains 20 µs a second).
    public let rate: Double

    public init(uptimeAtStart: Double, rate: Double) {
        self.uptimeAtStart = uptimeAtStart
        self.rate = rate
    }

    /// What the clock reads at the run's time `time`.
    @inline(__always)
    public func reading(at time: Double) -> Double {
        uptimeAtStart + time * (1 + rate)
    }

    /// The run's time at which the clock reads `reading`.
    public func time(atReading reading: Double) -> Double {
        (reading - uptimeAtStart) / (1 + rate)
    }
}
