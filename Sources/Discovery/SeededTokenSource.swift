import GSL
import Sessions

/// Tokens from a seeded stream, for deterministic runs: the same seed gives the same tokens.
public struct SeededTokenSource: TokenSource {
    private let random: RandomSource

    public init(random: RandomSource) {
        self.random = random
    }

    public mutating func nextToken() -> DiscoveryToken {
        let high = UInt64(random.bits32()) << 32 | UInt64(random.bits32())
        let low = UInt64(random.bits32()) << 32 | UInt64(random.bits32())
        return DiscoveryToken(high: high, low: low)
    }
}
