import DequeModule
import Discovery

/// What the room's data channel did: what a test reads to see that `.reliable` data paid for the network's faults.
public struct DataCounters: Sendable, Equatable {
    /// Messages sent `.reliable` and `.unreliable`.
    public internal(set) var reliableMessages = 0
    public internal(set) var unreliableMessages = 0
    /// Segments of reliable messages sent again, unacknowledged after their wait.
    public internal(set) var retransmissions = 0
    /// Reliable messages handed whole to the receiving app.
    public internal(set) var delivered = 0
    /// Segments that arrived again (a retransmission whose first copy got through, or a duplicate): acknowledged, not
    /// handed on.
    public internal(set) var duplicates = 0
    /// Datagrams of the data channel too short or otherwise malformed: counted and dropped.
    public internal(set) var malformed = 0
}

/// `.reliable` data over the room's lossy datagrams: each connection of a device to a peer is a link with an epoch
/// of its own (a later connection's is higher, so nothing of an earlier one is taken for it), numbered segments,
/// cumulative acknowledgements, and the segments not acknowledged in time sent again, the wait doubling to 2 s,
/// until the connection ends. The receiver hands messages on whole and in order.
struct ReliableLinks {
    struct Key: Hashable {
        let from: Int
        let to: Int
    }

    /// The sending side of one link.
    final class Outgoing {
        let epoch: UInt32
        var next: UInt32 = 0
        /// Segments waiting for a place in the window.
        var queue: Deque<(seq: UInt32, datagram: [UInt8])> = []
        var inFlight: Deque<(seq: UInt32, datagram: [UInt8], sentAt: Double)> = []
        var wait: Double
        var timerArmed = false

        init(epoch: UInt32, wait: Double) {
            self.epoch = epoch
            self.wait = wait
        }
    }

    /// The receiving side of one link.
    struct Incoming {
        var epoch: UInt32
        var expected: UInt32 = 0
        var held: [UInt32: (last: Bool, chunk: ArraySlice<UInt8>)] = [:]
        var partial: [UInt8] = []
    }

    /// The apps' data kinds on the wire, clear of the reference app's profiles (1) and impact messages (3).
    static let unreliableKind: UInt8 = 2
    static let segmentKind: UInt8 = 16
    static let ackKind: UInt8 = 17
    /// Epoch, sequence number, flags.
    static let headerBytes = 9
    static let chunkBytes = WireFormat.maximumSessionPayload - headerBytes
    /// Segments in flight on one link at most.
    static let window = 32
    /// Segments ahead of the next expected one that a receiver holds at most.
    static let reorderSpan: UInt32 = 1024
    static let longestWait = 2.0
    /// The largest reliable message, bytes.
    static let maximumMessage = 16 << 20

    var outgoing: [Key: Outgoing] = [:]
    var incoming: [Key: Incoming] = [:]
    var counters = DataCounters()
    private var epochs: UInt32 = 0

    /// A new connection of `device` with `peer`: its sending side starts afresh.
    mutating func connect(_ device: Int, to peer: Int, wait: Double) {
        epochs += 1
        outgoing[Key(from: device, to: peer)] = Outgoing(epoch: epochs, wait: wait)
    }

    /// The connection ended on `device`'s side: what it had in flight to `peer` is lost, as on a dropped link.
    mutating func disconnect(_ device: Int, from peer: Int) {
        outgoing[Key(from: device, to: peer)] = nil
        incoming[Key(from: peer, to: device)] = nil
    }

    /// A device's life ended: every link it sent or received on goes.
    mutating func drop(device: Int) {
        outgoing = outgoing.filter { $0.key.from != device }
        incoming = incoming.filter { $0.key.to != device }
    }

    static func header(epoch: UInt32, seq: UInt32, last: Bool) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(headerBytes)
        for value in [epoch, seq] { bytes += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        bytes.append(last ? 1 : 0)
        return bytes
    }

    static func word(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt32 {
        let start = bytes.startIndex + offset
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[start + $1]) << (8 * UInt32($1)) }
    }

    static func ack(epoch: UInt32, next: UInt32) -> [UInt8] {
        [epoch, next].flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    }
}
