import DeviceInterface

/// The air the plans used, by channel, over the run and since the last `air` event, and the sessions a device's
/// limit suspended: what the summary's airtime and the trace's `air` lines are made of.
struct AirTally {
    private(set) var exchanges: [Int]
    private(set) var collided: [Int]
    private var secondExchanges: [Int]
    private var secondCollided: [Int]
    private(set) var suspensions = 0
    /// Rounds planned (the one at the run's end ranges nothing and is not counted).
    private(set) var rounds = 0
    /// Exchanges that lost only the responder's report to the air.
    private(set) var reportsLost = 0
    /// The frame-level analytic survival worked out: the sum over the exchanges worked out, and their count.
    private(set) var expectedSum = 0.0
    private(set) var expectedCount = 0

    init(channels: Int) {
        exchanges = [Int](repeating: 0, count: channels)
        collided = exchanges
        secondExchanges = exchanges
        secondCollided = exchanges
    }

    /// Counts the plan's use of each channel, and tells the apps of the sessions a device limit suspended or let
    /// run again.
    mutating func count(_ plan: RangingPlan, at time: Double, into out: inout StepOutput) {
        rounds += 1
        for lost in plan.reportLost where lost { reportsLost += 1 }
        for c in plan.channels {
            exchanges[Int(c)] += 1
            secondExchanges[Int(c)] += 1
        }
        for (c, n) in plan.collided.enumerated() where n > 0 {
            exchanges[c] += n
            secondExchanges[c] += n
            collided[c] += n
            secondCollided[c] += n
        }
        for change in plan.suspensions {
            if change.suspended { suspensions += 1 }
            out.happened(at: time, .session(device: change.device, peer: change.peer,
                                            event: change.suspended ? .suspended : .suspensionEnded, reading: nil))
        }
    }

    /// Adds a round's frame-level analytic survival (``AirPhysics/expectedSurvival``).
    mutating func expect(_ worked: (sum: Double, count: Int)) {
        expectedSum += worked.sum
        expectedCount += worked.count
    }

    /// The exchanges and collisions by channel since the last call.
    mutating func takeSecond() -> (exchanges: [Int], collided: [Int]) {
        defer {
            for c in secondExchanges.indices {
                secondExchanges[c] = 0
                secondCollided[c] = 0
            }
        }
        return (secondExchanges, secondCollided)
    }
}
