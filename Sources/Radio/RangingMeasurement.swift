/// The raw outcome of one ranging exchange between a pair: one distance for both sides, and each side's own
/// angle measurement in its own frame.
public struct RangingMeasurement: Sendable, Equatable {
    /// Global time of the exchange, seconds.
    public let time: Double
    /// Whether the link was in line of sight.
    public let lineOfSight: Bool
    /// The measured distance, metres; `nil` beyond the maximum range.
    public let distance: Double?
    /// The initiator's angle measurement of the responder; `nil` outside its field of view, in non line of sight
    /// or out of range.
    public let angleAtInitiator: AngleMeasurement?
    /// The responder's angle measurement of the initiator, on the same conditions.
    public let angleAtResponder: AngleMeasurement?

    public init(
        time: Double, lineOfSight: Bool, distance: Double?,
        angleAtInitiator: AngleMeasurement?, angleAtResponder: AngleMeasurement?
    ) {
        self.time = time
        self.lineOfSight = lineOfSight
        self.distance = distance
        self.angleAtInitiator = angleAtInitiator
        self.angleAtResponder = angleAtResponder
    }
}
