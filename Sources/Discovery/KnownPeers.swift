import Sessions
import TransportCore

/// A node's table of the peers it knows, by id: the peers side by side in one array, their ids beside them, and an
/// index from id to place.
///
/// What a node knows of a peer is 112 bytes. Kept as a dictionary's values, each of a thousand nodes held a thousand
/// of them in 2,048 buckets (a dictionary is at most three-quarters full, and its size a power of two): 250 KB a
/// node. Side by side they take what they are, grown by a sixteenth when full (an array doubles).
///
/// The index is open addressing over places alone (4 bytes a bucket, the ids compared in their own array), by a
/// multiply of the id with a secret of the process: a node looks a peer up for every datagram it takes, 13 million
/// times in a 1,000-peer start, and a dictionary's look-up (its keyed hash of the id, then its probe) took about 140
/// instructions. An id is its sender's key's, which a sender cannot choose to collide under a secret it does not know.
package struct KnownPeers {
    private var entries: [DiscoveryNode.KnownPeer] = []
    /// `ids[k]` is the id of `entries[k]`.
    private var ids: [UInt64] = []
    /// Places in `entries` by the id's bucket (linear probing, no tombstones); `-1` empty. A power of two in size,
    /// at most three-quarters full.
    private var buckets: [Int32] = []

    package init() {}

    package var count: Int { entries.count }
    package var isEmpty: Bool { entries.isEmpty }
    /// The ids known, in no order to rely on.
    package var keys: [PeerID] { ids.map(PeerID.init) }

    /// Room for `count` peers without growing.
    mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
        ids.reserveCapacity(count)
        if count > buckets.count / 4 * 3 { rebuild(buckets: Self.buckets(for: count)) }
    }

    /// The place of `peer`'s entry, valid until a peer is removed.
    func index(forKey peer: PeerID) -> Int? {
        let b = bucket(of: peer.rawValue)
        return b < 0 ? nil : Int(buckets[b])
    }

    /// The entry at `index` (``index(forKey:)``), read and changed in place.
    subscript(at index: Int) -> DiscoveryNode.KnownPeer {
        get { entries[index] }
        _modify { yield &entries[index] }
    }

    /// What is known of `peer`, the peer its advertisement names; setting `nil` forgets it.
    package subscript(peer: PeerID) -> DiscoveryNode.KnownPeer? {
        get { index(forKey: peer).map { entries[$0] } }
        set {
            guard let newValue else {
                removeValue(forKey: peer)
                return
            }
            assert(newValue.advertisement.peer == peer, "a known peer is kept under its own id")
            if let place = index(forKey: peer) {
                entries[place] = newValue
                return
            }
            if entries.count == entries.capacity {
                // A sixteenth more, not twice: a table sized for the crowd within reach outgrows it by a few peers,
                // not by as many again.
                reserveCapacity(entries.count + max(entries.count / 16, 16))
            }
            if entries.count + 1 > buckets.count / 4 * 3 { rebuild(buckets: Self.buckets(for: entries.count + 1)) }
            buckets[emptyBucket(for: peer.rawValue)] = Int32(entries.count)
            entries.append(newValue)
            ids.append(peer.rawValue)
        }
    }

    /// Forgets `peer`, returning what was known of it.
    @discardableResult
    mutating func removeValue(forKey peer: PeerID) -> DiscoveryNode.KnownPeer? {
        guard let place = index(forKey: peer) else { return nil }
        return remove(at: place).value
    }

    /// Forgets the peer at `index`: the last entry takes its place, so that the entries stay side by side.
    @discardableResult
    mutating func remove(at index: Int) -> (key: PeerID, value: DiscoveryNode.KnownPeer) {
        let peer = ids[index]
        clear(bucket(of: peer))
        let last = entries.count - 1
        if index != last {
            buckets[bucket(of: ids[last])] = Int32(index)
            entries.swapAt(index, last)
            ids.swapAt(index, last)
        }
        ids.removeLast()
        return (PeerID(peer), entries.removeLast())
    }

    // MARK: - The index

    /// The process's secret for the index: from the standard library's hash seed, so that a run with
    /// `SWIFT_DETERMINISTIC_HASHING` probes the same way each time.
    private static let secret: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x6E65_6172_6361_7463 as UInt64)
        return UInt64(bitPattern: Int64(hasher.finalize())) | 1
    }()

    /// The bucket count for `count` peers: a power of two at most three-quarters full.
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

/// The id last found at each address (``DiscoveryNode/discover(_:interval:announcement:sequence:from:validated:now:)``).
///
/// An IPv4 address and port is kept as one number: a dictionary keyed by an ``Endpoint`` holds its host's string in
/// every bucket, 32 bytes a bucket against 16 (a node of a thousand peers has 2,048 buckets). Other hosts (in-memory
/// names, IPv6) are kept by endpoint.
struct AddressBook {
    private var numbered: [UInt64: PeerID] = [:]
    private var named: [Endpoint: PeerID] = [:]

    var count: Int { numbered.count + named.count }

    subscript(endpoint: Endpoint) -> PeerID? {
        get {
            if let key = Self.key(endpoint) { return numbered[key] }
            return named[endpoint]
        }
        set {
            if let key = Self.key(endpoint) { numbered[key] = newValue } else { named[endpoint] = newValue }
        }
    }

    /// The address and port as one number, when the host is an IPv4 address in dotted form (four numbers of at most
    /// three digits, each under 256).
    static func key(_ endpoint: Endpoint) -> UInt64? {
        // Over the bytes in place: walking a string's UTF-8 view took 474 instructions an address.
        var host = endpoint.host
        guard let address = host.withUTF8({ Self.ipv4($0) }) else { return nil }
        return UInt64(address) << 16 | UInt64(endpoint.port)
    }

    private static func ipv4(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32? {
        var address: UInt32 = 0
        var part: UInt32 = 0
        var digits = 0
        var dots = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, dots < 3 else { return nil }
                address = address << 8 | part
                (part, digits, dots) = (0, 0, dots + 1)
            } else if byte &- UInt8(ascii: "0") < 10, digits < 3 {
                part = part * 10 + UInt32(byte &- UInt8(ascii: "0"))
                digits += 1
                guard part < 256 else { return nil }
            } else {
                return nil
            }
        }
        guard digits > 0, dots == 3 else { return nil }
        return address << 8 | part
    }
}
