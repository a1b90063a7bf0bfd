import DeviceInterface
import Radio
import Testing

@Suite struct TwoWayRangingTests {
    let tick = RadioConfiguration().tickDuration
    /// A tick of 0.1 ps makes the timestamps' rounding negligible (0.03 mm), leaving the clock drift alone.
    let fineTick = 1e-13
    let distance = 5.0

    private func error(
        _ scheme: RadioConfiguration.RangingScheme, ppmA: Double, ppmB: Double, reply: Double, start: Double = 12.5,
        phaseA: Double = 0, phaseB: Double = 0, tick: Double? = nil
    ) -> Double {
        let tick = tick ?? self.tick
        let a = DeviceRadio(clockOffset: ppmA * 1e-6, clockPhaseTicks: phaseA)
        let b = DeviceRadio(clockOffset: ppmB * 1e-6, clockPhaseTicks: phaseB)
        let stamps = TwoWayRanging.timestamps(
            initiator: a, responder: b, start: start, flightTime: distance / TwoWayRanging.speedOfLight,
            responderReplyDelay: reply, initiatorReplyDelay: reply * 1.5, tick: tick)
        return TwoWayRanging.distance(stamps, scheme: scheme, tick: tick) - distance
    }

    /// Single-sided ranging errs by about (eB - eA) x Treply / 2 of time: 40 ppm x 1 ms / 2 = 20 ns, about 6 m.
    @Test func singleSidedDriftsByMetres() {
        let e = error(.singleSided, ppmA: -20, ppmB: 20, reply: 1e-3)
        let predicted = 40e-6 * 1e-3 / 2 * TwoWayRanging.speedOfLight
        #expect(abs(e) > 1)
        #expect(abs(abs(e) - predicted) < 0.05 * predicted)
    }

    @Test(arguments: [(-20.0, 20.0), (20.0, -20.0), (15.0, 3.0), (-50.0, 50.0)])
    func doubleSidedCancelsTheDrift(_ ppm: (Double, Double)) {
        let exact = error(.doubleSided, ppmA: ppm.0, ppmB: ppm.1, reply: 1e-3, tick: fineTick)
        #expect(abs(exact) < 0.0001)
        // With the chips' 15.65 ps tick each exchange also carries up to half a tick of rounding (2.35 mm); over
        // exchanges at different instants that rounding averages out and what is left, the drift, is under 1 mm.
        let errors = (0..<2000).map {
            error(.doubleSided, ppmA: ppm.0, ppmB: ppm.1, reply: 1e-3, start: 3 + Double($0) * 0.0137)
        }
        #expect(errors.allSatisfy { abs($0) < 0.0024 })
        #expect(abs(errors.reduce(0, +) / Double(errors.count)) < 0.001)
        #expect(abs(error(.singleSided, ppmA: ppm.0, ppmB: ppm.1, reply: 1e-3)) > 100 * abs(exact))
    }

    @Test func doubleSidedSurvivesTheCounterWrap() {
        // Both counters wrap at 2^40 ticks (about 17.2 s) in the middle of the exchange.
        let modulus = TwoWayRanging.counterModulus
        let e = error(.doubleSided, ppmA: 20, ppmB: -20, reply: 1e-3, start: 0,
                      phaseA: modulus - 1_000, phaseB: modulus - 50_000)
        #expect(abs(e) < 0.0024)
    }

    @Test func noiselessQuantisationStaysWithinHalfATick() {
        // Without drift the only error is the rounding of the timestamps to 4.69 mm ticks: at most half a tick.
        for d in stride(from: 0.1, through: 8.0, by: 0.37) {
            let stamps = TwoWayRanging.timestamps(
                initiator: DeviceRadio(clockOffset: 0), responder: DeviceRadio(clockOffset: 0), start: d,
                flightTime: d / TwoWayRanging.speedOfLight, responderReplyDelay: 1e-3, initiatorReplyDelay: 2e-3,
                tick: tick)
            #expect(abs(TwoWayRanging.distance(stamps, scheme: .doubleSided, tick: tick) - d) < 0.0024)
        }
    }
}
