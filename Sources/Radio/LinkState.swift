import Foundation
import GSL

/// Whether a pair is in line of sight, as a persistent two-state Markov chain in continuous time.
///
/// Obstruction by a body or furniture lasts; it does not flicker sample to sample. Sampled at any rate, the state
/// stays in line of sight for an exponentially distributed time of mean ``RadioConfiguration/meanLineOfSightDuration``
/// and in non line of sight for a time of mean ``RadioConfiguration/meanNonLineOfSightDuration``.
public struct LinkState: Sendable, Equatable {
    /// The current state; `nil` before the first step.
    public private(set) var lineOfSight: Bool?
    private var lastTime: Double = 0
    /// The chances of leaving each state over the last elapsed time, kept because rounds come at a fixed rate and
    /// an exponential per exchange would otherwise be recomputed to the same value.
    private var cachedElapsed = -1.0
    private var leaveLineOfSight = 0.0
    private var leaveObstruction = 0.0

    public init() {}

    /// Advances the chain to `time` and returns the state there.
    public mutating func step(to time: Double, configuration: RadioConfiguration, random: RandomSource) -> Bool {
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
        case .lineOfSight:
            next = true
        case .nonLineOfSight:
            next = false
        case .markov:
            if let current = lineOfSight {
                let elapsed = max(time - lastTime, 0)
                if elapsed != cachedElapsed {
                    cachedElapsed = elapsed
                    leaveLineOfSight = 1 - exp(-elapsed / meanLOS)
                    leaveObstruction = 1 - exp(-elapsed / meanNLOS)
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
