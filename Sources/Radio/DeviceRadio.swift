import DeviceInterface
import GSL

/// The per-device hardware imperfections: a crystal frequency offset, a free-running clock phase, and an
/// uncalibrated antenna delay; and the phone's own clock, counted by the same crystal. Constant for a device's life.
package struct DeviceRadio: Sendable, Equatable {
    /// The clock's frequency error as a fraction (20 ppm is 20e-6): the clock counts (1 + offset) ticks per tick.
    package let clockOffset: Double
    /// Where the clock's counter stood at global time 0, in ticks; chips start counting at power-on, not in step.
    package let clockPhaseTicks: Double
    /// The antenna-delay error, as metres of one-way flight.
    package let antennaDelayBias: Double
    /// The clock the phone's apps read: its uptime, counted by this crystal.
    package let clock: DeviceClock
    /// The device's model.
    package let profile: DeviceProfile

    /// A device with the given imperfections.
    package init(clockOffset: Double, clockPhaseTicks: Double = 0, antennaDelayBias: Double = 0,
                 uptimeAtStart: Double = 0, profile: DeviceProfile = .generic) {
        self.clockOffset = clockOffset
        self.profile = profile
        self.clockPhaseTicks = clockPhaseTicks
        self.antennaDelayBias = antennaDelayBias
        clock = DeviceClock(uptimeAtStart: uptimeAtStart, rate: clockOffset)
    }

    /// A device whose imperfections are drawn from its own stream of the run, so they depend only on the run seed
    /// and the device id.
    package init(id: UInt64, runSeed: UInt64, configuration: RadioConfiguration) throws(GSLError) {
        let random = try RandomSource(runSeed: runSeed, stream: .device(id))
        let limit = configuration.clockOffsetLimitPPM * 1e-6
        self.clockOffset = limit > 0 ? random.uniform(in: -limit..<limit) : 0
        self.clockPhaseTicks = random.uniform() * TwoWayRanging.counterModulus
        self.antennaDelayBias = random.gaussian(sigma: configuration.antennaDelaySigma)
        // Drawn last, so that the radio's own draws are those of every run before phones had clocks.
        clock = DeviceClock(uptimeAtStart: random.uniform() * DeviceClock.uptimeSpread, rate: clockOffset)
        profile = configuration.profile(of: id)
    }

    /// The radios of devices 0 to `count - 1` of a run.
    package static func room(count: Int, runSeed: UInt64,
                             configuration: RadioConfiguration) throws(GSLError) -> [DeviceRadio] {
        var devices: [DeviceRadio] = []
        devices.reserveCapacity(count)
        for i in 0..<count { devices.append(try DeviceRadio(id: UInt64(i), runSeed: runSeed, configuration: configuration)) }
        return devices
    }
}
