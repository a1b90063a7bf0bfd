import UCI

/// One-way rounds (RANGING_ROUND_USAGE 6, OWR-AoA): an advertiser's session sends one advertisement a round; every
/// observer of its session that names it (or no one) and hears it through the air reports its angle of arrival
/// (SESSION_INFO_NTF of type 3), nothing for one it missed. The advertiser's host is told nothing.
extension UCIRoom {
    func oneWayRound(_ chip: Chip, _ session: UCISession, _ out: inout [UCIOutgoing]) {
        guard let own = session.deviceAddress else { return }
        let start = session.nextRound
        move(to: start)
        let observers = participants(chip, session).compactMap { $0 }
        let air = airRound(chip, session, observers, start: start)
        let others = neighbours(of: air)
        // The advertisement is heard as it ends.
        let end = air.frames[0].end
        counters.rounds += 1
        var advertiser = chip.sessions[session.token] ?? session
        // The advertisement's number and the ranging block it opens.
        let frameNumber = UInt8(truncatingIfNeeded: advertiser.rangingCount)
        let block = UInt16(truncatingIfNeeded: advertiser.rangingCount)
        advertiser.rangingCount &+= 1
        chip.sessions[session.token] = advertiser
        var seen: [(device: Int, status: UInt8, distance: UInt16)] = []
        for part in observers {
            guard var observer = part.chip.sessions[part.session] else { continue }
            counters.exchanges += 1
            guard hears(part.chip.id, air.frames[0], among: others) else {
                counters.collidedExchanges += 1
                seen.append((part.chip.id, UCIStatus.rangingRxPhyDecodeFailed.rawValue, 0))
                continue
            }
            // The radio's link decides whether the frame is heard and the angle it arrives at.
            guard let (_, heard) = measure(chip, part.chip, at: start, slot: 0, controllerAddress: own,
                                           controleeAddress: observer.deviceAddress ?? own) else {
                counters.lostExchanges += 1
                seen.append((part.chip.id, UCIStatus.rangingRxTimeout.rawValue, 0))
                continue
            }
            seen.append((part.chip.id, 0, heard.distance))
            observer.rangingCount &+= 1
            observer.lastController = own
            if observer.parsed.reportsInfo {
                let length = observer.addressLength
                sessionInfo(part.chip, &observer, type: 3, count: 1, at: end, &out) { w in
                    w.append(own.bytes(padded: length))
                    w.u8(0)
                    w.u8(heard.nlos)
                    w.u8(frameNumber)
                    w.u16(block)
                    w.i16(heard.own.azimuth)
                    w.u8(heard.own.azimuthFOM)
                    w.i16(heard.own.elevation)
                    w.u8(heard.own.elevationFOM)
                }
            }
            part.chip.sessions[part.session] = observer
        }
        finish(air, of: chip, session, seen: seen, end: end)
    }
}

/// DL-TDoA (RANGING_ROUND_USAGE 5): DT-anchors range each other in an ordinary round (the initiator's poll, each
/// responder's response, the final), and report nothing; every DT-tag (DEVICE_ROLE 8) of the session that names the
/// initiator, or no one, hears each of those messages it can through the air and reports them, one measurement each
/// (SESSION_INFO_NTF of type 2): the sender, the message's type, its transmit time on the sender's clock and its
/// arrival on the tag's, the angle it came from, the replies' times and the anchors' time of flight, from which the
/// tag's host computes where it is.
extension UCIRoom {
    /// Timestamps count 1/(128 × 499.2 MHz), about 15.65 ps, in 40 bits, from when each chip's host connected.
    static let tick = 1 / (128 * 499.2e6)
    static let speedOfLight = 299_792_458.0

    /// The tags that listen to `chip`'s DL-TDoA session.
    func tags(_ chip: Chip, _ session: UCISession) -> [Participant] {
        if controleesDirty { indexControlees() }
        guard let own = session.deviceAddress else { return [] }
        return (listeners[session.id] ?? []).filter { p in
            guard p.chip.id != chip.id, let s = p.chip.sessions[p.session], s.isTag else { return false }
            return (s.destinations ?? []).isEmpty || s.destinations?.contains(own) == true
        }
    }

    func ticks(_ seconds: Double) -> UInt64 { UInt64(max(seconds / Self.tick, 0).rounded()) }

    /// Tells each tag what it heard of a DL-TDoA round: `exchanges` are the initiator's with each responder, in slot
    /// order, as measured.
    func tagsHear(_ air: AirRound, of initiator: Chip, _ session: UCISession,
                  exchanges: [(responder: Chip, report: TwoWayReport)], among others: [AirRound], _ out: inout [UCIOutgoing]) {
        guard let own = session.deviceAddress else { return }
        let tags = self.tags(initiator, session)
        guard !tags.isEmpty else { return }
        let slot = session.slot
        let block = UInt16(truncatingIfNeeded: session.rangingCount)
        func flight(_ a: Chip, _ b: Chip) -> Double { (a.pose.position - b.pose.position).length / Self.speedOfLight }
        // What each message says, by its frame: the sender, the message type, and the reply times and the time of
        // flight the anchors measured (ticks).
        struct Message {
            let frame: AirFrame
            let sender: Chip
            let address: UCIAddress
            let type: UInt8
            var initiatorReply: UInt32 = 0
            var responderReply: UInt32 = 0
            var timeOfFlight: UInt16 = 0
        }
        var messages = [Message(frame: air.frames[0], sender: initiator, address: own, type: 0)]
        for (k, x) in exchanges.enumerated() {
            // The initiator's report of the exchange names the responder's address.
            guard let frame = air.frames.first(where: { $0.sender == x.responder.id }) else { continue }
            let address = x.report.address
            let reply = Double(k + 1) * slot - flight(initiator, x.responder)
            messages.append(Message(frame: frame, sender: x.responder, address: address, type: 1,
                                    responderReply: UInt32(truncatingIfNeeded: ticks(reply))))
        }
        if let final = air.frames.last, air.frames.count > 1 {
            var message = Message(frame: final, sender: initiator, address: own, type: 2)
            if let last = exchanges.last {
                let reply = Double(exchanges.count + 1) * slot - (Double(exchanges.count) * slot + flight(initiator, last.responder))
                message.initiatorReply = UInt32(truncatingIfNeeded: ticks(reply))
            }
            if let first = exchanges.first, first.report.status == 0 {
                message.timeOfFlight = UInt16(min(ticks(Double(first.report.distance) / 100 / Self.speedOfLight), 65_535))
            }
            messages.append(message)
        }
        let mask: UInt64 = (1 << 40) - 1
        for part in tags {
            guard var tag = part.chip.sessions[part.session] else { continue }
            var heard: [(Message, TwoWayReport, UInt64)] = []
            for message in messages {
                counters.exchanges += 1
                guard hears(part.chip.id, message.frame, among: others) else {
                    counters.collidedExchanges += 1
                    continue
                }
                guard let (_, at) = measure(message.sender, part.chip, at: air.start, slot: 0, controllerAddress: message.address,
                                            controleeAddress: tag.deviceAddress ?? message.address) else {
                    counters.lostExchanges += 1
                    continue
                }
                // Its arrival on the tag's clock, read through the radio's own error on the distance.
                let arrival = message.frame.start + Double(at.distance) / 100 / Self.speedOfLight
                heard.append((message, at, ticks(arrival - part.chip.since) & mask))
            }
            tag.rangingCount &+= 1
            tag.lastController = own
            if !heard.isEmpty && tag.parsed.reportsInfo {
                let length = tag.addressLength
                sessionInfo(part.chip, &tag, type: 2, count: heard.count, at: air.end, &out) { w in
                    for (message, at, arrival) in heard {
                        w.append(message.address.bytes(padded: length))
                        w.u8(0)
                        w.u8(message.type)
                        w.u16(0)  // message control: 40-bit timestamps, no location, no active rounds
                        w.u16(block)
                        w.u8(0)  // round index
                        w.u8(at.nlos)
                        w.i16(at.own.azimuth)
                        w.u8(at.own.azimuthFOM)
                        w.i16(at.own.elevation)
                        w.u8(at.own.elevationFOM)
                        w.u8(at.rssi)
                        let sent = ticks(message.frame.start - message.sender.since) & mask
                        for k in 0..<5 { w.u8(UInt8(truncatingIfNeeded: sent >> (8 * UInt64(k)))) }
                        for k in 0..<5 { w.u8(UInt8(truncatingIfNeeded: arrival >> (8 * UInt64(k)))) }
                        w.u16(0)  // the anchor's clock offset: no drift is modelled
                        w.u16(0)
                        w.u32(message.initiatorReply)
                        w.u32(message.responderReply)
                        w.u16(message.timeOfFlight)
                    }
                }
            }
            part.chip.sessions[part.session] = tag
        }
    }
}
