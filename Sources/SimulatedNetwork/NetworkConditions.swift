/// What the in-memory network does to each datagram, per receiver: loss, delay, duplication and reordering; and
/// how fast each receiver reads (a host too slow for its traffic, for overload tests).
public struct NetworkConditions: Sendable, Equatable {
    /// Share of datagrams lost (0 to 1).
    public var loss: Double = 0
    /// Fixed one-way delay, seconds.
    public var delay: Double = 0.0005
    /// Extra delay drawn uniformly in [0, jitter), seconds. A multicast datagram is one frame: its receivers share
    /// one draw.
    public var jitter: Double = 0.0005
    /// Share of datagrams delivered twice (the copy after its own delay).
    public var duplication: Double = 0
    /// Share of datagrams held back by `reorderDelay`, so that later ones overtake them.
    public var reordering: Double = 0
    /// How long a reordered datagram is held back, seconds.
    public var reorderDelay: Double = 0.02
    /// Seconds each receiver spends on one datagram before it reads the next (0: no time at all). Datagrams wait
    /// in the receiver's queue, served in the order they were sent; a node handles each when its reading ends.
    public var receiveCost: Double = 0
    /// Datagrams a receiver's queue holds, as a socket's receive buffer does; one arriving at a full queue is
    /// dropped and counted. Only with a `receiveCost`.
    public var receiveQueue: Int = 1000

    public init() {}

    public init(loss: Double, duplication: Double = 0, reordering: Double = 0) {
        self.loss = loss
        self.duplication = duplication
        self.reordering = reordering
    }

    /// Checks every field; the error names the first one that is out of its range.
    public func validate() throws(NetworkConditionsError) {
        for (name, value) in [("loss", loss), ("duplication", duplication), ("reordering", reordering)] {
            guard value >= 0, value <= 1 else { throw NetworkConditionsError(field: name, value: value, rule: "between 0 and 1") }
        }
        guard receiveQueue >= 1, receiveQueue <= 1_000_000 else {
            throw NetworkConditionsError(field: "receiveQueue", value: Double(receiveQueue), rule: "between 1 and 1000000")
        }
        for (name, value) in [("delay", delay), ("jitter", jitter), ("reorderDelay", reorderDelay),
                              ("receiveCost", receiveCost)] {
            guard value.isFinite, value >= 0, value <= 10 else {
                throw NetworkConditionsError(field: name, value: value, rule: "between 0 and 10 s")
            }
        }
    }
}

/// A network condition out of its range.
public struct NetworkConditionsError: Error, Sendable, Equatable, CustomStringConvertible {
    public let field: String
    public let value: Double
    public let rule: String

    public var description: String { "network \(field) must be \(rule), got \(value)" }
}
