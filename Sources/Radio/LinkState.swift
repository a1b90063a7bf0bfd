import Foundation
import GSL

/// Whether a pair is in line of sight, as a persistent two-state Markov chain in continuous time.
///
/// Obstruction by a body or furniture lasts; it does not flicker sample to sample. Sampled at any rate, the state
/// stays in line of sight for an exponentially distributed time of mean ``RadioConfiguration/meanLineOfSightDuration``
/// and in non line of sight for a time of mean ``RadioConfiguration/meanNonLineOfSightDuration``.
package struct LinkState: Sendable, Equatable {
    /// The current state; `nil` before the first step.
    package private(set) var lineOfSight: Bool?
    private var lastTime: Double = 0
    /// The chances of leaving each state over the last elapsed time, kept because rounds come at a fixed rate and
    /// an exponential per exchange would otherwise be recomputed to the same value.
    private var cachedElapsed = -1.0
    private var leaveLineOfSight = 0.0
    private var leaveObstruction = 0.0

    package init() {}

    /// Advances the chain to `time` and returns the state there.
    package mutating func step(to time: Double, configuration: RadioConfiguration, random: RandomSource) -> Bool {
        step(to: time, model: configuration.linkModel, meanLOS: configuration.meanLineOfSightDuration,
             meanNLOS: configuration.meanNonLineOfSightDuration, random: random)
    }

    /// ``step(to:configuration:random:)`` given the three settings it reads, so that a caller holding the
    /// configuration inside a value it mutates does not copy the whole configuration per step.
    @inline(__always)
    mutating func step(
        to time: Double, model: RadioConfiguration.LinkModel, meanLOS: Double, meanNLOS: Double, random: RandomSource
    ) -> Bool {
        let u = random.uniform()
        let next: Bool
        switch model {
        case .lineOfSight, .geometry:
            // Under the geometry model the radio asks the world, not the chain; asked anyway, the chain stays clear.
            next = true
        case .nonLineOfSight:
            next = false
        case .markov:
            if let current = lineOfSight {
                let elapsed = max(time - lastTime, 0)
                if elapsed != cachedElapsed {
                    // The two-state chain's exact transition over `elapsed`, whatever happened in between: with
                    // rates λ = 1/meanLOS and μ = 1/meanNLOS, P(LOS -> NLOS) = λ/(λ+μ) (1 − e^−(λ+μ)t) and
                    // P(NLOS -> LOS) = μ/(λ+μ) (1 − e^−(λ+μ)t). The first-order 1 − e^−t/mean is right only for
                    // gaps much shorter than the means: for a pair ranged once every few seconds it left the pair
                    // obstructed about 40% of the time instead of the chain's stationary share.
                    cachedElapsed = elapsed
                    let lambda = 1 / meanLOS, mu = 1 / meanNLOS
                    let settle = 1 - exp(-(lambda + mu) * elapsed)
                    leaveLineOfSight = lambda / (lambda + mu) * settle
                    leaveObstruction = mu / (lambda + mu) * settle
                }
                next = u < (current ? leaveLineOfSight : leaveObstruction) ? !current : current
            } else {
                // The first state is drawn from the chain's stationary distribution, so that a pair's first seconds
                // are not special.
                next = u >= meanNLOS / (meanLOS + meanNLOS)
            }
        }
        lineOfSight = next
        lastTime = time
        return next
    }
}
