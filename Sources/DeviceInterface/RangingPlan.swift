/// One exchange a planner chose: the pair (its index in ``RoundEngine/pairs``) and the instant it ranges at, in
/// seconds after the round's start (within the round's interval). Eight bytes: a plan of 500,000 pairs is read
/// every round.
public struct PlannedExchange: Sendable, Equatable {
    public var pair: Int32
    public var offset: Float

    public init(pair: Int, offset: Float = 0) {
        self.pair = Int32(pair)
        self.offset = offset
    }
}

/// The exchanges of one round, in the order the engine reports them. A pair appears at most once a round.
public struct RangingPlan: Sendable {
    public var exchanges: [PlannedExchange] = []
    /// The channel of each exchange, beside ``exchanges``, from the planners that model the air (empty otherwise).
    public var channels: [UInt8] = []
    /// Exchanges attempted this round that collided with another and were lost (`uncoordinated`), by channel.
    public var collided: [Int] = []
    /// Sessions a device's limit suspended or let run again this round (``Medium/sessionsPerDevice``).
    public var suspensions: [SuspensionChange] = []
    /// Beside ``exchanges`` once the world's air has decided: whether the exchange lost only the responder's report,
    /// so that the responder reads it and the initiator does not (empty: no report lost).
    public var reportLost: [Bool] = []

    public init() {}
}

/// A device's session with a peer suspended, or resumed, because of the device's limit of active sessions.
public struct SuspensionChange: Sendable, Equatable {
    public let device: Int
    public let peer: Int
    public let suspended: Bool

    public init(device: Int, peer: Int, suspended: Bool) {
        self.device = device
        self.peer = peer
        self.suspended = suspended
    }
}
