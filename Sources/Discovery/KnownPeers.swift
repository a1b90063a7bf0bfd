import Sessions
import TransportCore

/// A node's table of the peers it knows, by id: the peers side by side in one array, and an index from id to place
/// (``PeerIDIndex``).
///
/// What a node knows of a peer is 112 bytes. Kept as a dictionary's values, each of a thousand nodes held a thousand
/// of them in 2,048 buckets (a dictionary is at most three-quarters full, and its size a power of two): 250 KB a
/// node. Side by side they take what they are, grown by a sixteenth when full (an array doubles).
package struct KnownPeers {
    private var entries: [DiscoveryNode.KnownPeer] = []
    /// The place of each peer's entry in `entries`: the same places, moved together.
    private var places = PeerIDIndex()

    package init() {}

    package var count: Int { entries.count }
    package var isEmpty: Bool { entries.isEmpty }
    /// The ids known, in no order to rely on.
    package var keys: [PeerID] { places.ids.map(PeerID.init) }

    /// Room for `count` peers without growing.
    mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
        places.reserveCapacity(count)
    }

    /// The place of `peer`'s entry, valid until a peer is removed.
    func index(forKey peer: PeerID) -> Int? {
        places.place(of: peer)
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
            places.append(peer)
            entries.append(newValue)
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
        let peer = places.remove(at: index)
        entries.swapAt(index, entries.count - 1)
        return (peer, entries.removeLast())
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
        get { self[Self.place(endpoint)] }
        set { self[Self.place(endpoint)] = newValue }
    }

    /// Where an endpoint is kept: by its number (``key(_:)``), or by itself.
    enum Place {
        case numbered(UInt64)
        case named(Endpoint)
    }

    /// The place of `endpoint`, found once for a look-up and a change of one address (reading an address's number
    /// from its host is about 270 instructions, and a 1,000-peer start discovers a million peers).
    static func place(_ endpoint: Endpoint) -> Place {
        key(endpoint).map(Place.numbered) ?? .named(endpoint)
    }

    subscript(place: Place) -> PeerID? {
        get {
            switch place {
            case .numbered(let key): numbered[key]
            case .named(let endpoint): named[endpoint]
            }
        }
        set {
            switch place {
            case .numbered(let key): numbered[key] = newValue
            case .named(let endpoint): named[endpoint] = newValue
            }
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
