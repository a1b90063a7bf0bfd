import DeviceInterface
import Foundation
import ReferenceApp
import Testing

/// A phone's own sense of its holder's walk, from its accelerometer's samples alone.
@Suite struct PedometerTests {
    /// 100 samples a second for `seconds`, gravity along the phone's y (upright) plus `extra` (m/s², the phone's
    /// frame) at each instant.
    private static func samples(_ seconds: Double,
                                _ extra: (Double) -> (Double, Double, Double)) -> [AccelerometerSample] {
        (0..<Int(seconds * 100)).map { k in
            let t = Double(k) / 100
            let (x, y, z) = extra(t)
            return AccelerometerSample(timestamp: 500 + t, x: Float(x), y: Float(9.81 + y), z: Float(z))
        }
    }

    private static func speeds(_ samples: [AccelerometerSample]) -> [Float] {
        var pedometer = Pedometer()
        return samples.map { pedometer.take($0); return pedometer.speed }
    }

    /// A walk's rise and fall (3.2 m/s² at 1.8 steps a second, the world's walk) is a walk within two seconds and
    /// stays one; a phone at rest with its chip's noise (0.05 m/s² at 7 Hz) never is; nor is a hand's reach of
    /// 30 cm in 0.6 s across the phone (its 4.8 m/s² barely moves the magnitude, which gravity holds).
    @Test func aWalkIsAWalkAndAHandsReachIsNot() {
        let walk = Self.speeds(Self.samples(6) { t in (0, 3.2 * sin(2 * .pi * 1.8 * t), 0) })
        #expect(walk[200...].allSatisfy { $0 == Pedometer.walkingSpeed })
        let still = Self.speeds(Self.samples(6) { t in (0.05 * sin(2 * .pi * 7 * t), 0, 0) })
        #expect(still.allSatisfy { $0 == 0 })
        let reach = Self.speeds(Self.samples(6) { t in
            // A minimum-jerk move of 0.3 m from 2 s to 2.6 s, along the phone's x.
            let u = (t - 2) / 0.6
            guard u > 0, u < 1 else { return (0, 0, 0) }
            return (0.3 * 60 * u * (1 - 3 * u + 2 * u * u) / 0.36, 0, 0)
        })
        #expect(reach.allSatisfy { $0 == 0 })
        // The walk stops: within two seconds the phone stands again.
        let stop = Self.speeds(Self.samples(4) { t in (0, 3.2 * sin(2 * .pi * 1.8 * t), 0) }
                                   + Self.samples(4) { _ in (0, 0, 0) }.map {
                                       AccelerometerSample(timestamp: $0.timestamp + 4, x: $0.x, y: $0.y, z: $0.z)
                                   })
        #expect(stop[700...].allSatisfy { $0 == 0 })
    }
}
