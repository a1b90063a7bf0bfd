/// A pair of devices, `low` < `high` (their indices in the run), as the ranging service plans them.
public struct RangingPair: Sendable, Equatable {
    public let low: Int32
    public let high: Int32

    public init(low: Int32, high: Int32) {
        self.low = low
        self.high = high
    }

    /// Whether the two pairs have a device in common (whose one radio they would share).
    @inline(__always)
    public func sharesADevice(with other: RangingPair) -> Bool {
        low == other.low || low == other.high || high == other.low || high == other.high
    }
}
