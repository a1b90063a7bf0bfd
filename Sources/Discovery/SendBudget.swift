/// At most `rate` sends a second on average and one second's worth at once, as a token bucket allows, kept as a
/// schedule (the generic cell rate algorithm): each send is given its own instant, so that sends held back wait for
/// that instant alone instead of all waking whenever the budget refills.
struct SendBudget: Sendable, Equatable {
    /// Seconds between sends at the sustained rate.
    private let spacing: Double
    /// How far ahead of the sustained schedule a burst may run: one second's worth of sends less one.
    private let tolerance: Double
    /// When the next send would fall if every send so far had kept to the sustained rate.
    private var theoretical = -Double.infinity

    /// - Parameter burst: sends at once at most; one second's worth unless given.
    init(rate: Double, burst: Double? = nil) {
        spacing = 1 / rate
        // A nanosecond of slack, so that sums of spacings do not refuse by a rounding error a send that is due.
        tolerance = (max(burst ?? rate, 1) - 1) * spacing + 1e-9
    }

    /// Reserves the next send: the instant, at `now` or later, at which it may go.
    mutating func reserve(now: Double) -> Double {
        let due = max(theoretical, now)
        theoretical = due + spacing
        return max(now, due - tolerance)
    }

    /// Whether ``take(now:)`` would take a send at `now`.
    func allows(now: Double) -> Bool {
        max(theoretical, now) - tolerance <= now
    }

    /// Takes a send at `now` if the budget allows one now; otherwise takes nothing.
    mutating func take(now: Double) -> Bool {
        let due = max(theoretical, now)
        guard due - tolerance <= now else { return false }
        theoretical = due + spacing
        return true
    }
}
