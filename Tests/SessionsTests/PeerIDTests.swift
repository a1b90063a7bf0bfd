import Sessions
import Testing

@Suite struct PeerIDTests {
    /// A peer id hashes as its 64 bits do, by whichever path a table asks (its seeded one-call hash, or a `Hasher`
    /// fed the id): a table keyed by ids holds them where the general path put them, and finds every one.
    @Test func anIdHashesAsItsBitsDo() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        let raw = (0..<2_000).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        let ids = raw.map(PeerID.init)
        for (id, bits) in zip(ids, raw) {
            for seed in [0, 1, -7, 0x5DEE_CE66] {
                var hasher = Hasher()
                hasher.combine(bits)
                var through = Hasher()
                id.hash(into: &through)
                #expect(through.finalize() == hasher.finalize())
                #expect(id._rawHashValue(seed: seed) == bits._rawHashValue(seed: seed))
            }
        }
        let table = Dictionary(uniqueKeysWithValues: zip(ids, raw.indices))
        #expect(table.count == 2_000 && zip(ids, raw.indices).allSatisfy { table[$0] == $1 })
    }
}
