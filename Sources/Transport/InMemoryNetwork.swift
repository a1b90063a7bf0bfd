import GSL

/// A simulated network in one process: a discovery group and unicast endpoints, with seeded loss, delay,
/// duplication and reordering, delivering through the shared ``VirtualScheduler``.
///
/// Deterministic: every draw comes from one seeded stream in the order datagrams are sent, and the scheduler orders
/// deliveries by time and then by sending order.
public final class InMemoryNetwork {
    public let scheduler: VirtualScheduler
    public let conditions: NetworkConditions
    private let random: RandomSource
    private var members: [Endpoint: InMemoryTransport] = [:]
    private var nextHost = 1
    /// Datagrams handed to the network.
    public private(set) var sent = 0
    /// Datagram deliveries dropped by the loss draw (a group datagram counts once per receiver).
    public private(set) var dropped = 0

    /// A network with the given conditions, drawing from `seed`.
    ///
    /// - Throws: ``NetworkConditionsError`` for a condition out of range; a GSL allocation failure as ``GSLError``.
    public init(scheduler: VirtualScheduler, conditions: NetworkConditions, seed: UInt64) throws {
        try conditions.validate()
        self.scheduler = scheduler
        self.conditions = conditions
        self.random = try RandomSource(runSeed: seed, stream: StreamIdentity(kind: .network, first: 0, second: 0))
    }

    /// A new transport with its own host address (10.x.y.z, in attachment order) and port 5000.
    public func attach() -> InMemoryTransport {
        let n = nextHost
        nextHost += 1
        let endpoint = Endpoint(host: "10.\(n >> 16 & 255).\(n >> 8 & 255).\(n & 255)", port: 5000)
        let transport = InMemoryTransport(network: self, endpoint: endpoint)
        members[endpoint] = transport
        return transport
    }

    func detach(_ endpoint: Endpoint) {
        members[endpoint] = nil
    }

    func send(_ bytes: [UInt8], from source: Endpoint, to destination: Destination) {
        sent += 1
        switch destination {
        case .group:
            // Sorted, so that the draws follow the same receivers in the same order in every run.
            for endpoint in members.keys.sorted() { deliver(bytes, from: source, to: endpoint, viaGroup: true) }
        case .unicast(let endpoint):
            deliver(bytes, from: source, to: endpoint, viaGroup: false)
        }
    }

    private func deliver(_ bytes: [UInt8], from source: Endpoint, to endpoint: Endpoint, viaGroup: Bool) {
        let c = conditions
        let copies = random.bernoulli(c.duplication) ? 2 : 1
        for _ in 0..<copies {
            if random.bernoulli(c.loss) {
                dropped += 1
                continue
            }
            var delay = c.delay + c.jitter * random.uniform()
            if random.bernoulli(c.reordering) { delay += c.reorderDelay }
            let datagram = IncomingDatagram(bytes: bytes, source: source, viaGroup: viaGroup)
            scheduler.schedule(at: scheduler.now + delay) { [weak self] in
                self?.members[endpoint]?.onReceive?(datagram)
            }
        }
    }
}

/// One node's attachment to an ``InMemoryNetwork``.
public final class InMemoryTransport: DatagramTransport {
    private weak var network: InMemoryNetwork?
    public let unicastEndpoint: Endpoint
    public var onReceive: ((IncomingDatagram) -> Void)?

    init(network: InMemoryNetwork, endpoint: Endpoint) {
        self.network = network
        self.unicastEndpoint = endpoint
    }

    public func send(_ bytes: [UInt8], to destination: Destination) {
        network?.send(bytes, from: unicastEndpoint, to: destination)
    }

    public func close() {
        network?.detach(unicastEndpoint)
        network = nil
        onReceive = nil
    }
}
