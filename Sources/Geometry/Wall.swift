/// A wall of a scenario: a vertical plane from floor to ceiling over the segment `from`-`to` (z ignored).
public struct Wall: Sendable, Equatable {
    public let from: Vector3
    public let to: Vector3
    /// Loss through it, dB.
    public let loss: Double

    public init(from: Vector3, to: Vector3, loss: Double) {
        self.from = from
        self.to = to
        self.loss = loss
    }
}
