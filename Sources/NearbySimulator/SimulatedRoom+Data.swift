import Discovery

/// The room's data channel: what ``SimulatedDevice/send(_:to:mode:)`` sends and what the apps receive.
extension SimulatedRoom {
    /// What the data channel did so far.
    public var dataCounters: DataCounters { links.counters }

    /// The first wait before an unacknowledged segment is sent again: a round trip of the network's worst delay,
    /// twice over, and 50 ms for the receiver's turn.
    var firstWait: Double {
        let n = configuration.network
        let oneWay = n.delay + n.jitter + (n.reordering > 0 ? n.reorderDelay : 0) + n.receiveCost
        return 4 * oneWay + 0.05
    }

    func send(_ data: [UInt8], from device: SimulatedDevice, to peer: PeerID, mode: DataMode) throws(SimulatorError) {
        guard let j = index[peer] else { throw SimulatorError("no device \(peer) in the room") }
        guard device.connectedPeers.contains(peer) else {
            throw SimulatorError("device \(device.peerID) is not connected to \(peer)")
        }
        switch mode {
        case .unreliable:
            guard data.count <= WireFormat.maximumSessionPayload else {
                throw SimulatorError("unreliable data is at most \(WireFormat.maximumSessionPayload) bytes a message, got \(data.count)")
            }
            links.counters.unreliableMessages += 1
            cluster.send(from: device.index, to: j, kind: ReliableLinks.unreliableKind, payload: data)
        case .reliable:
            guard data.count <= ReliableLinks.maximumMessage else {
                throw SimulatorError("reliable data is at most \(ReliableLinks.maximumMessage) bytes a message, got \(data.count)")
            }
            let key = ReliableLinks.Key(from: device.index, to: j)
            guard let link = links.outgoing[key] else {
                throw SimulatorError("device \(device.peerID) is not connected to \(peer)")
            }
            links.counters.reliableMessages += 1
            var start = 0
            repeat {
                let end = min(start + ReliableLinks.chunkBytes, data.count)
                let datagram = ReliableLinks.header(epoch: link.epoch, seq: link.next, last: end == data.count)
                    + data[start..<end]
                link.queue.append((link.next, datagram))
                link.next &+= 1
                start = end
            } while start < data.count
            pump(link, key)
        }
    }

    /// Sends what the window has room for and keeps the link's timer armed while anything is in flight.
    private func pump(_ link: ReliableLinks.Outgoing, _ key: ReliableLinks.Key) {
        while link.inFlight.count < ReliableLinks.window, let (seq, datagram) = link.queue.popFirst() {
            link.inFlight.append((seq, datagram, now))
            cluster.send(from: key.from, to: key.to, kind: ReliableLinks.segmentKind, payload: datagram)
        }
        if !link.inFlight.isEmpty, !link.timerArmed { arm(link, key, at: link.inFlight[0].sentAt + link.wait) }
    }

    private func arm(_ link: ReliableLinks.Outgoing, _ key: ReliableLinks.Key, at time: Double) {
        link.timerArmed = true
        cluster.clock.schedule(at: time) { [weak self, weak link] in
            guard let self, let link, self.links.outgoing[key] === link else { return }
            link.timerArmed = false
            self.retransmit(link, key)
        }
    }

    /// Sends again every segment in flight whose wait is over, waits longer next time, and arms the timer for the
    /// next one due.
    private func retransmit(_ link: ReliableLinks.Outgoing, _ key: ReliableLinks.Key) {
        var resent = false
        for k in link.inFlight.indices where link.inFlight[k].sentAt + link.wait <= now + 1e-12 {
            link.inFlight[k].sentAt = now
            links.counters.retransmissions += 1
            cluster.send(from: key.from, to: key.to, kind: ReliableLinks.segmentKind, payload: link.inFlight[k].datagram)
            resent = true
        }
        if resent { link.wait = min(link.wait * 2, ReliableLinks.longestWait) }
        if let due = link.inFlight.map(\.sentAt).min() { arm(link, key, at: due + link.wait) }
    }

    /// A datagram of the data channel for node `node` from `peer`.
    func received(kind: UInt8, payload: [UInt8], by node: Int, from peer: PeerID) {
        guard let j = index[peer] else { return }
        switch kind {
        case ReliableLinks.unreliableKind:
            deliver(payload, to: node, from: peer)
        case ReliableLinks.segmentKind:
            receiveSegment(payload[...], by: node, from: j)
        case ReliableLinks.ackKind:
            receiveAck(payload[...], by: node, from: j)
        default:
            // The reference app's own messages, which it handles.
            return
        }
    }

    private func receiveSegment(_ payload: ArraySlice<UInt8>, by node: Int, from sender: Int) {
        guard payload.count >= ReliableLinks.headerBytes, payload[payload.startIndex + 8] <= 1 else {
            links.counters.malformed += 1
            return
        }
        let epoch = ReliableLinks.word(payload, at: 0), seq = ReliableLinks.word(payload, at: 4)
        let last = payload[payload.startIndex + 8] == 1
        let key = ReliableLinks.Key(from: sender, to: node)
        var link = links.incoming[key] ?? ReliableLinks.Incoming(epoch: epoch)
        if epoch > link.epoch { link = ReliableLinks.Incoming(epoch: epoch) }
        // A segment of an earlier connection: nothing of it belongs to this one.
        guard epoch == link.epoch else { return }
        var messages: [[UInt8]] = []
        if seq &- link.expected >= ReliableLinks.reorderSpan {
            links.counters.duplicates += 1
        } else if link.held[seq] != nil {
            links.counters.duplicates += 1
        } else {
            link.held[seq] = (last, payload.dropFirst(ReliableLinks.headerBytes))
            while let (isLast, chunk) = link.held.removeValue(forKey: link.expected) {
                link.partial += chunk
                link.expected &+= 1
                if isLast {
                    messages.append(link.partial)
                    link.partial = []
                }
            }
        }
        links.incoming[key] = link
        cluster.send(from: node, to: sender, kind: ReliableLinks.ackKind,
                     payload: ReliableLinks.ack(epoch: epoch, next: link.expected))
        for message in messages {
            links.counters.delivered += 1
            deliver(message, to: node, from: devices[sender].peerID)
        }
    }

    private func receiveAck(_ payload: ArraySlice<UInt8>, by node: Int, from peer: Int) {
        guard payload.count == 8 else {
            links.counters.malformed += 1
            return
        }
        let key = ReliableLinks.Key(from: node, to: peer)
        guard let link = links.outgoing[key], link.epoch == ReliableLinks.word(payload, at: 0) else { return }
        let next = ReliableLinks.word(payload, at: 4)
        var advanced = false
        // Segments before `next` (counted from the oldest in flight, so that the numbers may wrap) are through.
        while let first = link.inFlight.first, next &- first.seq &- 1 < ReliableLinks.reorderSpan {
            link.inFlight.removeFirst()
            advanced = true
        }
        if advanced {
            link.wait = firstWait
            pump(link, key)
        }
    }

    private func deliver(_ data: [UInt8], to node: Int, from peer: PeerID) {
        let device = devices[node]
        guard !device.isStopped else { return }
        device.perform { device.delegate?.device(device, received: data, from: peer) }
    }
}
