import Planning
import Testing

/// The table of pairs that met: indices in the order pairs met, lookups either way round, the pairs' own order kept
/// in `ordered`, alike whether the table looks pairs up in a square or a hash map.
@Suite struct PairTableTests {
    @Test(arguments: [PairTable.squareLimit, 0])
    func indicesLookupsAndOrder(_ squareLimit: Int) {
        let table = PairTable(peers: 50, squareLimit: squareLimit)
        // 600 pairs in a scrambled order, some met twice.
        var met: [(Int, Int)] = []
        var x: UInt64 = 12345
        while met.count < 600 {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            let a = Int(x >> 33) % 50, b = Int(x >> 13) % 50
            if a != b { met.append((a, b)) }
        }
        var expected: [Int: Int] = [:]
        for (k, (a, b)) in met.enumerated() {
            let (index, added) = table.add(a, b)
            let key = min(a, b) * 50 + max(a, b)
            #expect(added == (expected[key] == nil))
            if added { expected[key] = index }
            #expect(index == expected[key])
            if k % 97 == 0 { table.sortNewPairs() }
        }
        table.sortNewPairs()
        #expect(table.count == expected.count)
        for a in 0..<50 {
            for b in 0..<50 where a != b {
                #expect(table.index(a, b) == expected[min(a, b) * 50 + max(a, b)])
            }
        }
        let keys = table.ordered.map { Int(table[Int($0)].low) * 50 + Int(table[Int($0)].high) }
        #expect(keys == expected.keys.sorted())
        // A third of the pairs begin sessions, in index order and in two batches: `inSession` holds them in pair
        // order.
        let chosen = (0..<table.count).filter { $0 % 3 == 0 }
        for p in chosen.reversed() where p % 2 == 0 { table.markInSession(p) }
        table.sortNewPairs()
        for p in chosen where p % 2 == 1 { table.markInSession(p) }
        table.sortNewPairs()
        let inSession = table.inSession.map { Int(table[Int($0)].low) * 50 + Int(table[Int($0)].high) }
        #expect(inSession == chosen.map { Int(table[$0].low) * 50 + Int(table[$0].high) }.sorted())
        #expect(table.pairs.allSatisfy { $0.low < $0.high })
    }

    @Test func everyPairIsInPairOrder() {
        let table = PairTable.everyPair(of: 5)
        #expect(table.count == 10)
        #expect(table.ordered == (0..<10).map(Int32.init))
        #expect(table.inSession == table.ordered)
        #expect(table.index(3, 1) == 5)
        #expect(table.index(4, 3) == 9)
    }
}
