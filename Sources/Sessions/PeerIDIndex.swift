/// Ids side by side with their places, and an index from id to place: a table keyed by peer id whose look-up is a
/// multiply and a probe or two, about 30 instructions, where a dictionary's (its keyed hash of the id, then its
/// probe) took about 140. A node looks a peer up for every datagram it takes, 13 million times in a 1,000-peer start.
///
/// Places are `0..<count`, in the order ids were appended; removing one moves the last id into its place, as a
/// table kept side by side beside it does with its entries. The index is ``IDBuckets``, the ids compared in their own
/// array.
package struct PeerIDIndex: Sendable {
    /// `ids[k]` is the id at place `k`.
    package private(set) var ids: [UInt64] = []
    private var buckets = IDBuckets()

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
        ids.withUnsafeBufferPointer { ids in buckets.reserve(count, places: ids.count) { ids[$0] } }
    }

    /// The place of `id`, valid until an id is removed.
    @inline(__always)
    package func place(of id: PeerID) -> Int? {
        ids.withUnsafeBufferPointer { ids in buckets.place(of: id.rawValue) { ids[$0] } }
    }

    /// Puts `id`, which must not be here, at place `count`. `ids` grows by the array's rule unless reserved.
    package mutating func append(_ id: PeerID) {
        assert(place(of: id) == nil, "an id is indexed once")
        ids.withUnsafeBufferPointer { ids in buckets.reserve(ids.count + 1, places: ids.count) { ids[$0] } }
        buckets.insert(id.rawValue, at: ids.count)
        ids.append(id.rawValue)
    }

    /// Removes the id at `place`: the last id takes its place. Returns the id removed.
    @discardableResult
    package mutating func remove(at place: Int) -> PeerID {
        let id = ids[place]
        ids.withUnsafeBufferPointer { ids in buckets.remove(at: place, last: ids.count - 1) { ids[$0] } }
        ids.swapAt(place, ids.count - 1)
        ids.removeLast()
        return PeerID(id)
    }
}

/// The index of a table keyed by peer id whose ids sit side by side at places `0..<count`: open addressing over
/// places alone (4 bytes a bucket), by a multiply of the id with a secret of the process (an id is its sender's
/// key's, which a sender cannot choose to collide under a secret it does not know). Each method is given the id at
/// a place, read where the table keeps its ids.
///
/// A look-up reads the mask kept here, not the buckets' count: in a crowd of a thousand nodes each receiver's index
/// is out of every cache when a frame comes, and the count, in the buckets' header, was a cache miss of its own
/// (12% of the look-up's time at 1,000 peers, the look-up 14% of the run's).
package struct IDBuckets: Sendable {
    /// Places by the id's bucket (linear probing, no tombstones); `-1` empty. A power of two in size, at most
    /// three-quarters full.
    @usableFromInline var buckets: [Int32] = []
    /// `buckets.count - 1`, or -1 with no buckets.
    @usableFromInline var mask = -1

    package init() {}

    /// The process's secret: from the standard library's hash seed, so that a run with
    /// `SWIFT_DETERMINISTIC_HASHING` probes the same way each time.
    @usableFromInline static let secret: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x6E65_6172_6361_7463 as UInt64)
        return UInt64(bitPattern: Int64(hasher.finalize())) | 1
    }()

    @inlinable @inline(__always)
    func home(_ id: UInt64) -> Int {
        let product = (id ^ Self.secret).multipliedFullWidth(by: 0x9E37_79B9_7F4A_7C15)
        return Int(truncatingIfNeeded: product.high ^ product.low) & mask
    }

    /// The place of `id`, `id(place)` giving the id held at a place.
    @inlinable @inline(__always)
    package func place(of id: UInt64, _ idAt: (Int) -> UInt64) -> Int? {
        let k = bucket(of: id, idAt)
        return k < 0 ? nil : Int(buckets.withUnsafeBufferPointer { $0[k] })
    }

    /// The bucket holding `id`'s place, or -1.
    @inlinable @inline(__always)
    func bucket(of id: UInt64, _ idAt: (Int) -> UInt64) -> Int {
        guard mask >= 0 else { return -1 }
        let mask = self.mask
        // The buffer's count is not read: `mask` bounds every bucket.
        return buckets.withUnsafeBufferPointer { b in
            var k = home(id)
            while true {
                let place = b[k]
                if place < 0 { return -1 }
                if idAt(Int(place)) == id { return k }
                k = (k + 1) & mask
            }
        }
    }

    /// Buckets enough for `count` places, the `places` held now re-indexed if they grow.
    package mutating func reserve(_ count: Int, places: Int, _ idAt: (Int) -> UInt64) {
        guard count > (mask + 1) / 4 * 3 else { return }
        var n = 16
        while count > n / 4 * 3 { n *= 2 }
        buckets = [Int32](repeating: -1, count: n)
        mask = n - 1
        for place in 0..<places { buckets[emptyBucket(for: idAt(place))] = Int32(place) }
    }

    /// Indexes `id`, which is not here, at `place`; room must have been reserved.
    package mutating func insert(_ id: UInt64, at place: Int) {
        buckets[emptyBucket(for: id)] = Int32(place)
    }

    /// Unindexes the id at `place` and re-indexes the id at `last` at `place`, as its table moves it there.
    package mutating func remove(at place: Int, last: Int, _ idAt: (Int) -> UInt64) {
        clear(bucket(of: idAt(place), idAt), idAt)
        if place != last { buckets[bucket(of: idAt(last), idAt)] = Int32(place) }
    }

    /// The first empty bucket from `id`'s home (there is one: the buckets are at most three-quarters full).
    private func emptyBucket(for id: UInt64) -> Int {
        var k = home(id)
        while buckets[k] >= 0 { k = (k + 1) & mask }
        return k
    }

    /// Empties bucket `k`, moving back each later entry of its run that may sit there (backward-shift deletion: a
    /// look-up stops at the first empty bucket, so no run may have one before its entry).
    private mutating func clear(_ k: Int, _ idAt: (Int) -> UInt64) {
        var hole = k
        var j = k
        while true {
            j = (j + 1) & mask
            let place = buckets[j]
            if place < 0 { break }
            let h = home(idAt(Int(place)))
            // The entry at j may move to the hole when its home is not within (hole, j], cyclically.
            let stays = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j)
            if !stays {
                buckets[hole] = place
                hole = j
            }
        }
        buckets[hole] = -1
    }
}
