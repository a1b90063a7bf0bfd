import HeapModule
import Sessions

/// When something falls due for a peer (its silence, its invitation), as the node's timer queues hold it.
///
/// Ordered by time, then by peer id, so that work due at the same instant runs in the same order in every run.
struct PeerDeadline: Comparable, Sendable {
    let time: Double
    let peer: PeerID

    static func < (a: PeerDeadline, b: PeerDeadline) -> Bool {
        a.time != b.time ? a.time < b.time : a.peer < b.peer
    }
}

/// A queue of deadlines whose earliest is kept beside it: a node asks for it after every datagram (its next
/// wake-up), and in a crowd of a thousand the heap's own storage is seldom in the cache by then, two misses a
/// datagram for the node's two queues.
struct DeadlineQueue {
    private var heap = Heap<PeerDeadline>()
    /// The earliest deadline, as the heap holds it.
    private(set) var min: PeerDeadline?

    init() {}

    init(_ deadlines: some Sequence<PeerDeadline>) {
        heap = Heap(deadlines)
        min = heap.min
    }

    var count: Int { heap.count }

    /// The deadlines in no particular order.
    var unordered: [PeerDeadline] { heap.unordered }

    mutating func insert(_ deadline: PeerDeadline) {
        heap.insert(deadline)
        if min.map({ deadline < $0 }) ?? true { min = deadline }
    }

    mutating func removeMin() {
        heap.removeMin()
        min = heap.min
    }
}
