import DeviceInterface
/// The pairs of devices that have found each other, each with an index in the order it first did: what the
/// planners' and the devices' per-pair arrays (estimates, Bluetooth readings) are indexed by. A pair is never removed
/// (its slot keeps its link's stream and its statistics), so indices stay valid for the run.
///
/// Only pairs that met take room: at 10,000 devices the 50 million pairs of a full mesh would not fit, and a
/// device finds the few hundred within reach of its radio.
package final class PairTable {
    /// Every pair, by index.
    // Unchecked: the table changes only between rounds, on the run's thread, and is read by every lookup of a
    // round (a dynamic exclusivity check per read was a tenth of a 100-peer plan).
    @exclusivity(unchecked) package private(set) var pairs: [RangingPair] = []
    /// The indices in the order of the pairs themselves, (0,1), (0,2) ... (1,2) ...: the order the planners scan
    /// pairs in, so that which pairs exist, not when each met, decides a plan ...
    package var ordered: [Int32] { everyOrder.indices }
    /// ... and those of the pairs that have begun a session (``markInSession(_:)``), the only ones that may range,
    /// in the same order.
    package var inSession: [Int32] { inSessionOrder.indices }
    /// ... with, in the same order, each one's devices (lower, higher) as one number, `low << 32 | high`: a scan in
    /// this order reads them side by side rather than each pair's at its index.
    package var inSessionDevices: [UInt64] { inSessionOrder.keys }
    @exclusivity(unchecked) private var everyOrder = SortedIndices()
    @exclusivity(unchecked) private var inSessionOrder = SortedIndices()
    package let peers: Int
    /// Index + 1 of every pair, row by row, while the square of the peer count is small (a lookup is one load);
    /// beyond it, a hash map from the pair's key.
    @exclusivity(unchecked) private var square: [Int32]
    @exclusivity(unchecked) private var hashed: [UInt64: Int32] = [:]

    /// Rooms up to this many devices look pairs up in a square of 4-byte entries (64 MB at the limit).
    package static let squareLimit = 4096

    package init(peers: Int, squareLimit: Int = PairTable.squareLimit) {
        self.peers = peers
        square = peers <= squareLimit ? [Int32](repeating: 0, count: peers * peers) : []
    }

    /// A table holding every pair of `peers` devices, each in session, in pair order.
    package static func everyPair(of peers: Int) -> PairTable {
        let table = PairTable(peers: peers)
        for low in 0..<peers {
            for high in (low + 1)..<peers { table.markInSession(table.add(low, high).index) }
        }
        table.sortNewPairs()
        return table
    }

    package var count: Int { pairs.count }

    package subscript(_ index: Int) -> RangingPair { pairs[index] }

    @inline(__always)
    private static func key(_ low: Int, _ high: Int) -> UInt64 { UInt64(low) << 32 | UInt64(high) }

    /// The index of the pair of devices `i` and `j` (either order), `nil` if they never met.
    @inline(__always)
    package func index(_ i: Int, _ j: Int) -> Int? {
        let (low, high) = i < j ? (i, j) : (j, i)
        if !square.isEmpty {
            let k = square[low * peers + high]
            return k == 0 ? nil : Int(k) - 1
        }
        return hashed[Self.key(low, high)].map(Int.init)
    }

    /// Adds the pair of devices `i` and `j` (either order) if it is new.
    ///
    /// - Returns: its index, and whether it was added now.
    @discardableResult
    package func add(_ i: Int, _ j: Int) -> (index: Int, added: Bool) {
        precondition(i != j && i >= 0 && j >= 0 && i < peers && j < peers, "a pair is two devices of the room")
        if let known = index(i, j) { return (known, false) }
        let (low, high) = i < j ? (i, j) : (j, i)
        let p = Int32(pairs.count)
        pairs.append(RangingPair(low: Int32(low), high: Int32(high)))
        if !square.isEmpty {
            square[low * peers + high] = p + 1
        } else {
            hashed[Self.key(low, high)] = p
        }
        everyOrder.insert(key: Self.key(low, high), index: p)
        return (Int(p), true)
    }

    /// Marks pair `p` as having begun a session: it joins ``inSession``.
    package func markInSession(_ p: Int) {
        let pair = pairs[p]
        inSessionOrder.insert(key: Self.key(Int(pair.low), Int(pair.high)), index: Int32(p))
    }

    /// Puts the pairs added or marked since the last call in their places in ``ordered`` and ``inSession``.
    package func sortNewPairs() {
        everyOrder.settle()
        inSessionOrder.settle()
    }
}

/// Indices kept in the order of their keys: new ones wait, then are sorted and merged in at once.
private struct SortedIndices {
    private(set) var indices: [Int32] = []
    private(set) var keys: [UInt64] = []
    private var fresh: [(key: UInt64, index: Int32)] = []

    mutating func insert(key: UInt64, index: Int32) {
        fresh.append((key, index))
    }

    mutating func settle() {
        guard !fresh.isEmpty else { return }
        fresh.sort { $0.key < $1.key }
        defer { fresh.removeAll(keepingCapacity: true) }
        // Indices added in order (a table of every pair, a crowd made at once) need no merge.
        if keys.last.map({ $0 < fresh[0].key }) ?? true {
            indices += fresh.map(\.index)
            keys += fresh.map(\.key)
            return
        }
        // Merged in place from the back: the arrays grow by the new ones, and only what sorts after the first of
        // them moves. A new array each round that met someone (at 1,000 peers, 400,000 pairs found) cost fresh
        // pages and a copy of the whole table ten times a second.
        let old = indices.count
        indices += repeatElement(0, count: fresh.count)
        keys += repeatElement(0, count: fresh.count)
        keys.withUnsafeMutableBufferPointer { keys in
            indices.withUnsafeMutableBufferPointer { indices in
                var a = old - 1, b = fresh.count - 1, w = keys.count - 1
                while b >= 0 {
                    // A new index goes before an old one of the same key.
                    if a >= 0, keys[a] >= fresh[b].key {
                        keys[w] = keys[a]
                        indices[w] = indices[a]
                        a -= 1
                    } else {
                        keys[w] = fresh[b].key
                        indices[w] = fresh[b].index
                        b -= 1
                    }
                    w -= 1
                }
            }
        }
    }
}
