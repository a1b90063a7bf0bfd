import GSL
import Sessions

/// Tokens from a seeded stream, for deterministic runs: the same seed gives the same tokens.
package struct SeededTokenSource: TokenSource {
    private let random: RandomSource

    package init(random: RandomSource) {
        self.random = random
    }

    package mutating func nextToken() -> DiscoveryToken {
        let high = UInt64(random.bits32()) << 32 | UInt64(random.bits32())
        let low = UInt64(random.bits32()) << 32 | UInt64(random.bits32())
        return DiscoveryToken(high: high, low: low)
    }
}
