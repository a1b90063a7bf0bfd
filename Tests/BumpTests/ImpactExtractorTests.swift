import Bump
import DeviceInterface
import Foundation
import Testing

@Suite struct ImpactExtractorTests {
    private func sample(_ t: Double, _ x: Float, _ y: Float, _ z: Float) -> AccelerometerSample {
        AccelerometerSample(timestamp: t, x: x, y: y, z: z)
    }

    private func run(_ samples: [AccelerometerSample]) -> [SampledImpact] {
        var extractor = ImpactExtractor()
        return samples.compactMap { extractor.take($0) }
    }

    /// A two-sample jolt along x on a phone lying still: one impact, at its peak, as strong, two samples wide,
    /// pointing along x.
    @Test func aJoltIsFoundWithItsShape() throws {
        var samples = (0..<300).map { k in sample(1000 + Double(k) / 100, 0.01 * Float(k % 3), 0, 9.81) }
        samples[150] = sample(samples[150].timestamp, 14, 0, 9.81)
        samples[151] = sample(samples[151].timestamp, 20, 0, 9.81)
        let found = run(samples)
        #expect(found.count == 1)
        let impact = try #require(found.first)
        #expect(impact.time == samples[151].timestamp)
        #expect(abs(impact.peak - 20) < 0.05)
        #expect(abs(impact.width - 0.02) < 1e-6)
        #expect(impact.direction.x > 0.999)
    }

    /// A departure under the threshold, and a phone turned a quarter over two seconds (its resting reading follows
    /// it), are no jolts.
    @Test func smallDeparturesAndSlowTurnsAreNot() {
        var small = (0..<200).map { k in sample(Double(k) / 100, 0, 0, 9.81) }
        small[100] = sample(1, 0.8, 0, 9.81)
        #expect(run(small).isEmpty)
        let turning = (0..<400).map { k -> AccelerometerSample in
            let angle = Float(min(max(Double(k - 100) / 200, 0), 1)) * .pi / 2
            return sample(Double(k) / 100, 0, 9.81 * sin(angle), 9.81 * cos(angle))
        }
        #expect(run(turning).isEmpty)
    }

    /// The threshold is a departure's size to the last bit: exactly at it a jolt starts, a hair under it none
    /// (the resting samples' shortcut stops short of the threshold and leaves the edge to the exact test).
    @Test(arguments: [(Float(1.0), 1), (Float(1.0).nextDown, 0), (Float(0.9995), 0), (Float(1.0).nextUp, 1)])
    func theThresholdHoldsToItsLastBit(_ departure: Float, _ jolts: Int) {
        var samples = (0..<200).map { k in sample(Double(k) / 100, 0, 0, 8) }
        samples[100] = sample(1, departure, 0, 8)
        #expect(run(samples).count == jolts)
    }

    /// A long departure is cut at 0.3 s, never held as one jolt, and the phone rests where it is held: one jolt
    /// where it moved there and one where it moved back.
    @Test func aLongDepartureIsCut() {
        var samples = (0..<100).map { k in sample(Double(k) / 100, 0, 0, 9.81) }
        samples += (100..<200).map { k in sample(Double(k) / 100, 8, 0, 9.81) }
        samples += (200..<300).map { k in sample(Double(k) / 100, 0, 0, 9.81) }
        let found = run(samples)
        #expect(found.count == 2, "\(found.map(\.time))")
        #expect(found.allSatisfy { $0.width <= 0.3 + 0.01 + 1e-9 })
        #expect(abs((found.first?.time ?? 0) - 1) < 0.3 && abs((found.last?.time ?? 0) - 2) < 0.3)
    }
}
