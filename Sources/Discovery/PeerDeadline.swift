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
