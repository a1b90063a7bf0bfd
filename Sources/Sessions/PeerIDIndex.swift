/// Ids side by side with their places, and an index from id to place: a table keyed by peer id whose look-up is a
/// multiply and a probe or two, about 30 instructions, where a dictionary's (its keyed hash of the id, then its
/// probe) took about 140. A node looks a peer up for every datagram it takes, 13 million times in a 1,000-peer start.
///
/// Places are `0..<count`, in the order ids were appended; removing one moves the last id into its place, as a
/// table kept side by side beside it does with its entries. The index is open addressing over places alone (4 bytes
/// a bucket, the ids compared in their own array), by a multiply of the id with a secret of the process: an id is
/// its sender's key's, which a sender cannot choose to collide under a secret it does not know.
package struct PeerIDIndex: Sendable {
    /// `ids[k]` is the id at place `k`.
    package private(set) var ids: [UInt64] = []
    /// Places by the id's bucket (linear probing, no tombstones); `-1` empty. A power of two in size, at most
    /// three-quarters full.
    private var buckets: [Int32] = []

    package init() {}

    /// The ids, each at its place.
    package init(_ ids: [PeerID]) {
        reserveCapacity(ids.count)
        for id in ids { append(id) }
    }

    package var count: Int { ids.count }

    /// Room for `count` ids without growing.
    package mutating func reserveCapacity(_ count: Int) {
        ids.reserveCapacity(count)
        if count > buckets.count / 4 * 3 { rebuild(buckets: Self.buckets(for: count)) }
    }

    /// The place of `id`, valid until an id is removed.
    @inline(__always)
    package func place(of id: PeerID) -> Int? {
        let b = bucket(of: id.rawValue)
        return b < 0 ? nil : Int(buckets[b])
    }

    /// Puts `id`, which must not be here, at place `count`. `ids` grows by the array's rule unless reserved.
    package mutating func append(_ id: PeerID) {
        assert(place(of: id) == nil, "an id is indexed once")
        if ids.count + 1 > buckets.count / 4 * 3 { rebuild(buckets: Self.buckets(for: ids.count + 1)) }
        buckets[emptyBucket(for: id.rawValue)] = Int32(ids.count)
        ids.append(id.rawValue)
    }

    /// Removes the id at `place`: the last id takes its place. Returns the id removed.
    @discardableResult
    package mutating func remove(at place: Int) -> PeerID {
        let id = ids[place]
        clear(bucket(of: id))
        let last = ids.count - 1
        if place != last {
            buckets[bucket(of: ids[last])] = Int32(place)
            ids.swapAt(place, last)
        }
        ids.removeLast()
        return PeerID(id)
    }

    // MARK: - The index

    /// The process's secret: from the standard library's hash seed, so that a run with
    /// `SWIFT_DETERMINISTIC_HASHING` probes the same way each time.
    private static let secret: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x6E65_6172_6361_7463 as UInt64)
        return UInt64(bitPattern: Int64(hasher.finalize())) | 1
    }()

    /// The bucket count for `count` ids: a power of two at most three-quarters full.
    private static func buckets(for count: Int) -> Int {
        var n = 16
        while count > n / 4 * 3 { n *= 2 }
        return n
    }

    @inline(__always)
    private func home(_ id: UInt64) -> Int {
        let product = (id ^ Self.secret).multipliedFullWidth(by: 0x9E37_79B9_7F4A_7C15)
        return Int(truncatingIfNeeded: product.high ^ product.low) & (buckets.count - 1)
    }

    /// The bucket holding `id`'s place, or -1.
    @inline(__always)
    private func bucket(of id: UInt64) -> Int {
        guard !buckets.isEmpty else { return -1 }
        return buckets.withUnsafeBufferPointer { b in
            ids.withUnsafeBufferPointer { ids in
                let mask = b.count - 1
                var k = home(id)
                while true {
                    let place = b[k]
                    if place < 0 { return -1 }
                    if ids[Int(place)] == id { return k }
                    k = (k + 1) & mask
                }
            }
        }
    }

    /// The first empty bucket from `id`'s home (there is one: the buckets are at most three-quarters full).
    private func emptyBucket(for id: UInt64) -> Int {
        let mask = buckets.count - 1
        var k = home(id)
        while buckets[k] >= 0 { k = (k + 1) & mask }
        return k
    }

    /// Empties bucket `k`, moving back each later entry of its run that may sit there (backward-shift deletion: a
    /// look-up stops at the first empty bucket, so no run may have one before its entry).
    private mutating func clear(_ k: Int) {
        let mask = buckets.count - 1
        var hole = k
        var j = k
        while true {
            j = (j + 1) & mask
            let place = buckets[j]
            if place < 0 { break }
            let h = home(ids[Int(place)])
            // The entry at j may move to the hole when its home is not within (hole, j], cyclically.
            let stays = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j)
            if !stays {
                buckets[hole] = place
                hole = j
            }
        }
        buckets[hole] = -1
    }

    private mutating func rebuild(buckets count: Int) {
        buckets = [Int32](repeating: -1, count: count)
        for (place, id) in ids.enumerated() { buckets[emptyBucket(for: id)] = Int32(place) }
    }
}
