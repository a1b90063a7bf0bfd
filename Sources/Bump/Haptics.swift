/// The haptic intensity an app plays toward its target peer, as a function of the estimated distance: nothing
/// beyond `farDistance`, full strength at the bump distance and closer, rising as the square in between, so the
/// last half metre is felt most.
package struct HapticCurve: Sendable, Equatable {
    /// At and beyond this distance, no haptic, metres.
    package var farDistance: Float = 1.5
    /// At and under this distance, full strength, metres.
    package var nearDistance: Float = 0.08

    package init() {}

    /// The intensity, 0 to 1, for an estimated distance (`nil`, out of range, gives 0).
    @inline(__always)
    package func intensity(at distance: Float?) -> Float {
        guard let distance else { return 0 }
        if distance >= farDistance { return 0 }
        if distance <= nearDistance { return 1 }
        let f = (farDistance - distance) / (farDistance - nearDistance)
        return f * f
    }
}
