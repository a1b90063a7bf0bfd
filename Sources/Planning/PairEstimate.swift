/// A pair's latest estimate, as its initiator's app holds it (what a planner may rank the pair by): the filtered
/// distance, when it was measured (seconds; -∞ never), and how fast the pair closes, m/s (positive: nearing), from
/// the change since the estimate before.
package struct PairEstimate: Sendable, Equatable {
    package var distance: Float = .nan
    package var time: Float = -.infinity
    package var closing: Float = 0
    /// When the pair's detector last fired (-∞ never): until the phones part, it has nothing more to find.
    package var bumped: Float = -.infinity

    package init() {}

    /// Takes a fresh estimate at `time`: the closing speed is smoothed over successive estimates less than 2 s
    /// apart, and starts afresh after a longer gap.
    @inline(__always)
    package mutating func take(_ d: Float, at t: Float) {
        let gap = t - time
        if distance.isFinite, gap > 0.02, gap < 2 {
            let speed = (distance - d) / gap
            closing = min(max(0.5 * closing + 0.5 * speed, -3), 3)
        } else {
            closing = 0
        }
        distance = d
        time = t
    }
}
