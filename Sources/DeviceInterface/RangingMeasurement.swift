/// The raw outcome of one ranging exchange between a pair: one distance for both sides, and each side's own
/// angle measurement in its own frame.
public struct RangingMeasurement: Sendable, Equatable {
    /// Global time of the exchange, seconds.
    public let time: Double
    /// Whether the link was in line of sight.
    public let lineOfSight: Bool
    /// The measured distance, metres; `nil` beyond the maximum range. Never negative: chips report an error larger
    /// than the distance itself as zero.
    public let distance: Double?
    /// The distance the timestamps give before that clamp, which may be negative (single-sided ranging drifts by
    /// metres); `nil` beyond the maximum range.
    public let timeOfFlightDistance: Double?
    /// The initiator's angle measurement of the responder; `nil` outside its field of view, in non line of sight
    /// or out of range.
    public let angleAtInitiator: AngleMeasurement?
    /// The responder's angle measurement of the initiator, on the same conditions.
    public let angleAtResponder: AngleMeasurement?

    public init(
        time: Double, lineOfSight: Bool, distance: Double?,
        angleAtInitiator: AngleMeasurement?, angleAtResponder: AngleMeasurement?, timeOfFlightDistance: Double? = nil
    ) {
        self.time = time
        self.lineOfSight = lineOfSight
        self.distance = distance.map { max($0, 0) }
        self.timeOfFlightDistance = timeOfFlightDistance ?? distance
        self.angleAtInitiator = angleAtInitiator
        self.angleAtResponder = angleAtResponder
    }
}
