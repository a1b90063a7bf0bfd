/// A pair of devices, `low` < `high` (their indices in the run), as the ranging service plans them.
public struct RangingPair: Sendable, Equatable {
    public let low: Int32
    public let high: Int32

    public init(low: Int32, high: Int32) {
        self.low = low
        self.high = high
    }
}
