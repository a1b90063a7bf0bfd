import DeviceInterface
import GSL

/// Every session on its own timer, as independent phone sessions range: each round, every running pair starts an
/// exchange at an instant of its own, uniform over the round, on a channel of its own choosing, with no regard for
/// anyone else. The world's medium decides which collide (the `Air` module, with the round taken as circular): two
/// that overlap in time are both lost when they share a device, or share a channel with a device of one within the
/// interference range of a device of the other. With m sessions all in hearing on one channel an exchange survives
/// with probability (1 − 2τ/T)^(m−1), τ its length and T the round.
package struct Uncoordinated: RangingPlanner {
    private let random: RandomSource
    private let channels: Int
    private var admitted: AdmittedPairs

    /// - Throws: a GSL allocation error.
    package init(medium: Medium, scheme: RangingScheme, peers: Int, seed: UInt64) throws {
        random = try RandomSource(runSeed: seed, stream: StreamIdentity(kind: .planner, first: 1, second: 0))
        channels = medium.channels
        admitted = AdmittedPairs(medium: medium, peers: peers)
    }

    /// Sessions on their own timers: the round wraps around.
    package var roundIsCircular: Bool { true }

    package mutating func plan(_ context: PlanningContext, into plan: inout RangingPlan) {
        plan.suspensions.removeAll(keepingCapacity: true)
        admitted.refresh(context, into: &plan.suspensions)
        plan.emptyExchanges(channels: channels)
        for p in admitted.pairs {
            let start = random.uniform() * context.interval
            let channel = channels == 1 ? 0 : UInt8(min(Int(random.uniform() * Double(channels)), channels - 1))
            plan.exchanges.append(PlannedExchange(pair: Int(p), offset: Float(start)))
            plan.channels.append(channel)
        }
    }
}
