/// The raw outcome of one ranging exchange between a pair: the distance its six timestamps give, which each side
/// reads once it holds them all, and each side's own angle measurement in its own frame.
///
/// Double-sided two-way ranging leaves every timestamp with the responder once the final message arrives (the final
/// carries the initiator's three), so the responder reads the distance at the end of the exchange; the initiator
/// holds only its own three until the responder reports its timestamps in one more frame, which the link may lose
/// (``reachedInitiator``).
public struct RangingMeasurement: Sendable, Equatable {
    /// Global time of the exchange, seconds.
    public let time: Double
    /// Whether the link was in line of sight.
    public let lineOfSight: Bool
    /// The measured distance, metres; `nil` beyond the maximum range. Never negative: chips report an error larger
    /// than the distance itself as zero (or fail the exchange, ``RadioConfiguration``'s `negativeFlight`).
    public let distance: Double?
    /// The distance the timestamps give before that clamp, which may be negative (single-sided ranging drifts by
    /// metres); `nil` beyond the maximum range.
    public let timeOfFlightDistance: Double?
    /// The initiator's angle measurement of the responder; `nil` outside its field of view, in non line of sight
    /// or out of range.
    public let angleAtInitiator: AngleMeasurement?
    /// The responder's angle measurement of the initiator, on the same conditions.
    public let angleAtResponder: AngleMeasurement?
    /// Whether the responder's report of its timestamps reached the initiator: only then does the initiator read
    /// this exchange's distance (and its angle, which it delivers with it).
    public let reachedInitiator: Bool

    public init(
        time: Double, lineOfSight: Bool, distance: Double?,
        angleAtInitiator: AngleMeasurement?, angleAtResponder: AngleMeasurement?, timeOfFlightDistance: Double? = nil,
        reachedInitiator: Bool = true
    ) {
        self.time = time
        self.lineOfSight = lineOfSight
        self.distance = distance.map { max($0, 0) }
        self.timeOfFlightDistance = timeOfFlightDistance ?? distance
        self.angleAtInitiator = angleAtInitiator
        self.angleAtResponder = angleAtResponder
        self.reachedInitiator = reachedInitiator
    }
}
