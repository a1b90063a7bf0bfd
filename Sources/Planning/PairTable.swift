/// The pairs of devices that have found each other, each with an index in the order it first did: what the
/// planners' and the devices' per-pair arrays (estimates, Bluetooth readings) are indexed by. A pair is never removed
/// (its slot keeps its link's stream and its statistics), so indices stay valid for the run.
///
/// Only pairs that met take room: at 10,000 devices the 50 million pairs of a full mesh would not fit, and a
/// device finds the few hundred within reach of its radio.
public final class PairTable {
    /// Every pair, by index.
    public private(set) var pairs: [RangingPair] = []
    /// The indices in the order of the pairs themselves, (0,1), (0,2) ... (1,2) ...: the order the planners scan
    /// pairs in, so that which pairs exist, not when each met, decides a plan.
    public private(set) var ordered: [Int32] = []
    public let peers: Int
    /// Index + 1 of every pair, row by row, while the square of the peer count is small (a lookup is one load);
    /// beyond it, a hash map from the pair's key.
    private var square: [Int32]
    private var hashed: [UInt64: Int32] = [:]
    private var unordered = 0
    /// The key of each pair of ``ordered``, in its order.
    private var orderedKeys: [UInt64] = []

    /// Rooms up to this many devices look pairs up in a square of 4-byte entries (64 MB at the limit).
    public static let squareLimit = 4096

    public init(peers: Int, squareLimit: Int = PairTable.squareLimit) {
        self.peers = peers
        square = peers <= squareLimit ? [Int32](repeating: 0, count: peers * peers) : []
    }

    /// A table holding every pair of `peers` devices, in pair order.
    public static func everyPair(of peers: Int) -> PairTable {
        let table = PairTable(peers: peers)
        for low in 0..<peers {
            for high in (low + 1)..<peers { table.add(low, high) }
        }
        return table
    }

    public var count: Int { pairs.count }

    public subscript(_ index: Int) -> RangingPair { pairs[index] }

    @inline(__always)
    private static func key(_ low: Int, _ high: Int) -> UInt64 { UInt64(low) << 32 | UInt64(high) }

    /// The index of the pair of devices `i` and `j` (either order), `nil` if they never met.
    @inline(__always)
    public func index(_ i: Int, _ j: Int) -> Int? {
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
    public func add(_ i: Int, _ j: Int) -> (index: Int, added: Bool) {
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
        ordered.append(p)
        unordered += 1
        return (Int(p), true)
    }

    /// Puts the pairs added since the last call in their places in ``ordered``: the new ones sorted, then merged
    /// (comparing the pairs' keys, kept beside ``ordered``).
    public func sortNewPairs() {
        guard unordered > 0 else { return }
        let old = ordered.count - unordered
        unordered = 0
        var fresh = ordered[old...].map { (key: Self.key(Int(pairs[Int($0)].low), Int(pairs[Int($0)].high)), index: $0) }
        fresh.sort { $0.key < $1.key }
        ordered.removeSubrange(old...)
        // Pairs added in order (a table of every pair, a crowd made at once) need no merge.
        if old == 0 || orderedKeys[old - 1] < fresh[0].key {
            ordered += fresh.map(\.index)
            orderedKeys += fresh.map(\.key)
            return
        }
        var mergedIndices: [Int32] = []
        var mergedKeys: [UInt64] = []
        mergedIndices.reserveCapacity(old + fresh.count)
        mergedKeys.reserveCapacity(old + fresh.count)
        var a = 0, b = 0
        orderedKeys.withUnsafeBufferPointer { keys in
            ordered.withUnsafeBufferPointer { indices in
                while a < old || b < fresh.count {
                    if b == fresh.count || (a < old && keys[a] < fresh[b].key) {
                        mergedIndices.append(indices[a])
                        mergedKeys.append(keys[a])
                        a += 1
                    } else {
                        mergedIndices.append(fresh[b].index)
                        mergedKeys.append(fresh[b].key)
                        b += 1
                    }
                }
            }
        }
        ordered = mergedIndices
        orderedKeys = mergedKeys
    }
}
