import Dispatch
import Foundation
import GSL
import Synchronization
import TransportCore

/// A simulated network in one process: a discovery group and unicast endpoints, with seeded loss, delay,
/// duplication and reordering, and optionally receivers that read slowly, delivering through the shared
/// ``VirtualClock``.
///
/// Deterministic: every draw comes from one seeded stream in the order datagrams are sent, and the clock orders
/// deliveries by time and then by sending order.
package final class InMemoryNetwork {
    package let clock: VirtualClock
    package let conditions: NetworkConditions
    private let random: RandomSource
    @exclusivity(unchecked) private var members: [Endpoint: InMemoryTransport] = [:]
    /// The members in endpoint order, rebuilt only when one joins or leaves: a group send visits them all.
    @exclusivity(unchecked) private var orderedMembers: [InMemoryTransport]?
    /// Each of ``orderedMembers``'s hosts, side by side: a group send asks the reach of each before it touches the
    /// member (at 10,000 hosts, of which about 1,160 are in a frame's reach, reading and counting a reference to every
    /// member took 9% of a venue's time, about 10,000 objects a frame, 977 frames a second).
    @exclusivity(unchecked) private var orderedHosts: [Int] = []
    @exclusivity(unchecked) private var nextHost = 1
    /// Datagrams handed to the network.
    @exclusivity(unchecked) package private(set) var sent = 0
    /// Datagram deliveries dropped by the loss draw (a group datagram counts once per receiver).
    @exclusivity(unchecked) package private(set) var dropped = 0
    /// Deliveries handed to a receiver (a group datagram counts once per receiver that got it).
    @exclusivity(unchecked) package private(set) var delivered = 0
    /// Deliveries dropped because the receiver's queue was full (``NetworkConditions/receiveQueue``).
    @exclusivity(unchecked) package private(set) var queueDrops = 0
    /// Deliveries that did not happen because the receiver was out of the radio's ``reach`` (a group datagram
    /// counts once per receiver out of reach).
    @exclusivity(unchecked) package private(set) var outOfReach = 0
    /// Group frames whose receivers took them on several threads (``frameCopies``).
    @exclusivity(unchecked) package private(set) var framesSpread = 0
    /// Where hosts hear each other; `nil`: everywhere. Loss and delay are drawn as if everyone heard, so that the
    /// draws of the datagrams that do arrive do not depend on where the hosts stand.
    @exclusivity(unchecked) package var reach: RadioReach?
    /// Copies of a group frame, one for each thread that takes it, each with its own bytes and a frozen
    /// ``FrameMemo`` filled as its receivers would fill it; `nil` for a frame that is handed out whole, receiver
    /// after receiver. Given (by the discovery layer, which knows what a frame holds), a frame with at least
    /// ``steppedReceivers`` receivers is taken on ``frameWorkers`` threads by those that are ``SteppedReceiver``s
    /// (the others take it whole at their turn).
    @exclusivity(unchecked) package var frameCopies: ((IncomingDatagram, Int) -> [IncomingDatagram]?)?
    /// Threads a group frame's receivers are spread over.
    @exclusivity(unchecked) package var frameWorkers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
    /// The fewest receivers of a frame worth spreading: a hand-off to the workers costs about as much as 20 to 40
    /// receivers' taking of an announcement they know (about 0.5 µs each), so a room of 100 is handed out whole.
    package static let steppedReceivers = 200
    /// Receivers a worker claims at once: about 10 µs of taking.
    static let handOutRun = 16
    private let handOutCursor = HandOutCursor()

    /// A network with the given conditions, drawing from `seed`.
    ///
    /// - Throws: ``NetworkConditionsError`` for a condition out of range; a GSL allocation failure as ``GSLError``.
    package init(clock: VirtualClock, conditions: NetworkConditions, seed: UInt64) throws {
        try conditions.validate()
        self.clock = clock
        self.conditions = conditions
        self.random = try RandomSource(runSeed: seed, stream: StreamIdentity(kind: .network, first: 0, second: 0))
    }

    /// A new transport with its own host address (10.x.y.z, in attachment order) and port 5000.
    ///
    /// - Parameter joinsGroup: whether it receives the group's frames; a socket that only sends to the group (and
    ///   takes unicast) does not, and costs a group frame nothing.
    package func attach(joinsGroup: Bool = true) -> InMemoryTransport {
        let n = nextHost
        nextHost += 1
        let endpoint = Endpoint(host: "10.\(n >> 16 & 255).\(n >> 8 & 255).\(n & 255)", port: 5000)
        let transport = InMemoryTransport(network: self, endpoint: endpoint, host: n - 1, joinsGroup: joinsGroup)
        members[endpoint] = transport
        orderedMembers = nil
        return transport
    }

    func detach(_ endpoint: Endpoint) {
        members[endpoint] = nil
        orderedMembers = nil
    }

    func send(_ bytes: [UInt8], from source: Endpoint, to destination: Destination, memo: FrameMemo? = nil) {
        sent += 1
        switch destination {
        case .group:
            let receivers: [InMemoryTransport]
            if let orderedMembers {
                receivers = orderedMembers
            } else {
                receivers = members.keys.sorted().compactMap { members[$0] }.filter(\.joinsGroup)
                orderedMembers = receivers
                orderedHosts = receivers.map(\.host)
            }
            sendToGroup(bytes, from: source, receivers: receivers, hosts: orderedHosts, memo: memo)
        case .unicast(let endpoint):
            guard let receiver = members[endpoint] else {
                // Nobody there: the draws are made all the same, so that a run's draws do not depend on who left.
                _ = draws()
                return
            }
            let arrivals = draws()
            if let reach, let sender = members[source], !reach.reaches(sender.host, receiver.host) {
                outOfReach += arrivals.count
                return
            }
            for arrival in arrivals {
                deliver(bytes, from: source, to: receiver, viaGroup: false, at: arrival, memo: memo)
            }
        }
    }

    /// One frame for the whole group: one delay draw, then the loss (and duplication) of each receiver in endpoint
    /// order. Receivers that read instantly get the frame in one scheduled delivery.
    private func sendToGroup(_ bytes: [UInt8], from source: Endpoint, receivers: [InMemoryTransport], hosts: [Int],
                             memo: FrameMemo?) {
        let c = conditions
        var arrival = clock.now + c.delay + c.jitter * random.uniform()
        if random.bernoulli(c.reordering) { arrival += c.reorderDelay }
        var together: [InMemoryTransport] = []
        together.reserveCapacity(receivers.count)
        let reach = self.reach
        let sender = reach == nil ? -1 : members[source]?.host ?? -1
        // A condition that is off draws nothing: a group of a thousand would otherwise make two thousand draws a
        // datagram to learn nothing.
        // By place, the member read only once it is in reach.
        for k in receivers.indices {
            let copies = c.duplication > 0 && random.bernoulli(c.duplication) ? 2 : 1
            for copy in 0..<copies {
                if c.loss > 0, random.bernoulli(c.loss) {
                    dropped += 1
                    continue
                }
                if let reach, sender >= 0, !reach.reaches(sender, hosts[k]) {
                    outOfReach += 1
                    continue
                }
                let receiver = receivers[k]
                if copy == 0, c.receiveCost == 0 {
                    together.append(receiver)
                } else {
                    deliver(bytes, from: source, to: receiver, viaGroup: true, at: arrival + Double(copy) * c.delay,
                            memo: memo)
                }
            }
        }
        guard !together.isEmpty else { return }
        delivered += together.count
        let datagram = IncomingDatagram(bytes: bytes, source: source, viaGroup: true, memo: memo ?? FrameMemo())
        clock.schedule(at: arrival) { [weak self] in
            if let self, together.count >= Self.steppedReceivers, self.frameWorkers > 1,
               self.handOut(datagram, to: together) {
                return
            }
            for receiver in together where receiver.isAttached {
                if let stepped = receiver.stepped { stepped.receive(datagram) } else { receiver.onReceive?(datagram) }
            }
        }
    }

    /// Hands a group frame to its receivers on ``frameWorkers`` threads, each taking its own copy, then settles the
    /// receivers whose taking asked for something, in endpoint order on this thread: the same sends, draws and events
    /// in the same order as receiver after receiver. Returns `false`, having done nothing, when the frame is not to
    /// be spread.
    private func handOut(_ datagram: IncomingDatagram, to receivers: [InMemoryTransport]) -> Bool {
        // No more workers than runs to claim: each takes a copy of the frame.
        let workers = min(frameWorkers, receivers.count / Self.handOutRun)
        guard workers > 1, let copies = frameCopies?(datagram, workers), copies.count == workers else { return false }
        framesSpread += 1
        let cursor = handOutCursor
        cursor.next.store(0, ordering: .relaxed)
        // Per worker, the receivers to settle (those without a stepped receiver take the frame whole then), in
        // ascending order: each worker claims ascending runs.
        var toSettle = [[Int32]](repeating: [], count: workers)
        toSettle.withUnsafeMutableBufferPointer { lists in
            let shared = SteppedHandOut(receivers: receivers, copies: copies, toSettle: lists)
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                // Runs of receivers claimed one after another, so that a worker that starts late (a thread woken for
                // each frame) or meets slower receivers takes fewer; contiguous, as a receiver's state is its own.
                let count = shared.receivers.count
                while true {
                    let start = cursor.next.add(Self.handOutRun, ordering: .relaxed).oldValue
                    guard start < count else { break }
                    for i in start..<min(start + Self.handOutRun, count) {
                        let receiver = shared.receivers[i]
                        guard receiver.isAttached else { continue }
                        if let stepped = receiver.stepped {
                            if stepped.take(shared.copies[w]) { shared.toSettle[w].append(Int32(i)) }
                        } else {
                            shared.toSettle[w].append(Int32(i))
                        }
                    }
                }
            }
        }
        // Merged in receiver order.
        var next = [Int](repeating: 0, count: workers)
        while true {
            var pick = -1
            var lowest = Int32.max
            for w in 0..<workers where next[w] < toSettle[w].count && toSettle[w][next[w]] < lowest {
                lowest = toSettle[w][next[w]]
                pick = w
            }
            guard pick >= 0 else { break }
            next[pick] += 1
            let receiver = receivers[Int(lowest)]
            guard receiver.isAttached else { continue }
            if let stepped = receiver.stepped { stepped.settle() } else { receiver.onReceive?(datagram) }
        }
        return true
    }

    /// The arrival times of one unicast datagram: none when lost, two when duplicated.
    private func draws() -> [Double] {
        let c = conditions
        var arrivals: [Double] = []
        let copies = random.bernoulli(c.duplication) ? 2 : 1
        for _ in 0..<copies {
            if random.bernoulli(c.loss) {
                dropped += 1
                continue
            }
            var delay = c.delay + c.jitter * random.uniform()
            if random.bernoulli(c.reordering) { delay += c.reorderDelay }
            arrivals.append(clock.now + delay)
        }
        return arrivals
    }

    private func deliver(_ bytes: [UInt8], from source: Endpoint, to receiver: InMemoryTransport, viaGroup: Bool,
                         at arrival: Double, memo: FrameMemo?) {
        var handledAt = arrival
        let cost = conditions.receiveCost
        if cost > 0 {
            // The datagrams ahead of this one in the receiver's queue, each taking `cost` to read.
            let waiting = max(receiver.busyUntil - arrival, 0) / cost
            if waiting >= Double(conditions.receiveQueue) {
                queueDrops += 1
                return
            }
            handledAt = max(arrival, receiver.busyUntil) + cost
            receiver.busyUntil = handledAt
        }
        delivered += 1
        let datagram = IncomingDatagram(bytes: bytes, source: source, viaGroup: viaGroup, memo: memo)
        clock.schedule(at: handledAt) {
            if receiver.isAttached { receiver.onReceive?(datagram) }
        }
    }
}

/// One node's attachment to an ``InMemoryNetwork``.
package final class InMemoryTransport: DatagramTransport {
    private weak var network: InMemoryNetwork?
    package let unicastEndpoint: Endpoint
    @exclusivity(unchecked) package var onReceive: ((IncomingDatagram) -> Void)?
    /// Takes group frames in two steps (``SteppedReceiver``) when set; ``onReceive`` takes everything else.
    /// Unowned, not weak: a weak reference is read through a side table, a cache miss for each receiver of each
    /// frame. Its receiver takes it back (``offer(stepped:)`` with `nil`) before it goes.
    @exclusivity(unchecked) package unowned(unsafe) var stepped: (any SteppedReceiver)?
    /// When this receiver will have read everything queued for it (with a receive cost).
    @exclusivity(unchecked) var busyUntil = 0.0
    /// The host's number: its place in the order of attachment, from 0.
    package let host: Int
    /// Whether it receives the group's frames.
    let joinsGroup: Bool

    init(network: InMemoryNetwork, endpoint: Endpoint, host: Int, joinsGroup: Bool) {
        self.network = network
        self.unicastEndpoint = endpoint
        self.host = host
        self.joinsGroup = joinsGroup
    }

    /// Stored, not read from the weak reference: every delivery asks.
    @exclusivity(unchecked) private(set) var isAttached = true

    package func send(_ bytes: [UInt8], to destination: Destination) {
        network?.send(bytes, from: unicastEndpoint, to: destination)
    }

    package func send(_ bytes: [UInt8], to destination: Destination, memo: FrameMemo?) {
        network?.send(bytes, from: unicastEndpoint, to: destination, memo: memo)
    }

    package func offer(stepped receiver: (any SteppedReceiver)?) {
        stepped = receiver
    }

    package var handsOnMemos: Bool { true }

    package func close() {
        network?.detach(unicastEndpoint)
        network = nil
        isAttached = false
        onReceive = nil
        stepped = nil
    }
}

/// The next receiver of a frame no worker has claimed yet.
private final class HandOutCursor: Sendable {
    let next = Atomic<Int>(0)
}

/// A group frame's receivers and its copies, one per worker, handed to `concurrentPerform`. Each worker takes only
/// its own run of receivers, with its own copy, and a receiver's ``SteppedReceiver/take(_:)`` touches only its own
/// state, which is what makes sharing them safe.
private struct SteppedHandOut: @unchecked Sendable {
    let receivers: [InMemoryTransport]
    let copies: [IncomingDatagram]
    /// Each worker's list of receivers to settle, written by that worker alone.
    let toSettle: UnsafeMutableBufferPointer<[Int32]>
}

