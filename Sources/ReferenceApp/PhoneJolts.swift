import Bump
import DeviceInterface

/// One phone's jolts: found in its own accelerometer samples (``ImpactExtractor``), as its app and its ranging
/// service both use them, and kept for the last seconds. Each is stamped on the time the phone's pairs agree on:
/// the phone's own clock carried over by what its ranging exchanges tell of the other clocks (to nanoseconds), off by
/// the few milliseconds of `syncOffset` by which two phones' apps disagree when they compare jolts
/// (docs/sensors.md).
package struct PhoneJolts: Sendable {
    /// How long the jolts are kept, seconds: past any window a detector or a planner compares them in.
    package static let memory = 3.0

    private var finder = ImpactExtractor()
    /// The jolts found, oldest first, within ``memory`` of the latest samples taken.
    package private(set) var felt: [Impact] = []
    package let clock: DeviceClock
    package let syncOffset: Double

    package init(clock: DeviceClock, syncOffset: Double) {
        self.clock = clock
        self.syncOffset = syncOffset
    }

    /// Takes the phone's new samples, up to the time `time`; calls `found` with each jolt found, in order.
    package mutating func take(_ samples: [AccelerometerSample], upTo time: Double, found: (Impact) -> Void) {
        for sample in samples {
            guard let jolt = finder.take(sample) else { continue }
            // Known at the instant the app could know it: the sample that ended it.
            let impact = Impact(time: clock.time(atReading: jolt.time) + syncOffset, magnitude: jolt.peak,
                                width: jolt.width, direction: jolt.direction, vertical: jolt.vertical,
                                interval: jolt.interval, known: clock.time(atReading: jolt.known))
            felt.append(impact)
            found(impact)
        }
        if let first = felt.first, first.time < time - Self.memory {
            felt.removeAll { $0.time < time - Self.memory }
        }
    }
}
