import DeviceInterface
import Foundation
import Geometry
import Radio
import UCI

/// The world's side of the UCI room: the rounds of the active sessions on the air, which frames collide, and what
/// the radio measures of each exchange. Only here are the chips' true poses read.
extension UCIRoom {
    /// One frame on the air: who sends it, when, on which channel, and who listens.
    struct AirFrame {
        let sender: Int
        let start: Double
        let end: Double
        let channel: UInt8
        let receivers: [Int]
    }

    /// One round of a controller's session on the air.
    struct AirRound {
        let controller: Int
        let session: UInt32
        let start: Double
        let end: Double
        let frames: [AirFrame]
    }

    /// A controlee taking part in a round: its chip and its session.
    struct Participant {
        let chip: Chip
        let session: UInt32
    }

    /// When the next report is due, room time; `nil` when nothing ranges.
    package func nextDue() -> Double? {
        earliest()?.due
    }

    private func earliest() -> (due: Double, chip: Int, session: UInt32, round: Bool)? {
        if controleesDirty { indexControlees() }
        var best: (due: Double, chip: Int, session: UInt32, round: Bool)?
        for (chip, id) in active {
            guard let s = chip.sessions[id], !s.listensOnly else { continue }
            let due = s.isController ? s.nextRound + s.roundDuration : s.watchdog
            if let b = best, (b.due, b.chip, b.session) <= (due, chip.id, id) { continue }
            best = (due, chip.id, id, s.isController)
        }
        return best
    }

    /// Runs every round and timeout due by `time`, in time order; the messages carry the time each was due.
    package func advance(to time: Double) -> [UCIOutgoing] {
        var out: [UCIOutgoing] = []
        while let next = earliest(), next.due <= time {
            guard let chip = chips[next.chip], var session = chip.sessions[next.session] else { break }
            if next.round {
                if session.isOneWayAoA { oneWayRound(chip, session, &out) } else { round(chip, session, &out) }
                session = chip.sessions[next.session] ?? session
                session.nextRound += session.roundPeriod
            } else {
                if !session.isDLTDoA { report(chip, &session, [timeoutReport(session)], at: next.due, &out) }
                session.watchdog = next.due + session.interval
            }
            chip.sessions[next.session] = session
        }
        return out
    }

    /// The controlees of a controller's session that are ranging with it now, by destination (nil where absent).
    func participants(_ chip: Chip, _ session: UCISession) -> [Participant?] {
        guard let own = session.deviceAddress, let dst = session.destinations else { return [] }
        if controleesDirty { indexControlees() }
        if session.isOneWayAoA {
            return (listeners[session.id] ?? []).filter { p in
                guard p.chip.id != chip.id, let s = p.chip.sessions[p.session] else { return false }
                return (s.destinations ?? []).isEmpty || s.destinations?.contains(own) == true
            }
        }
        return dst.map { address in
            for p in controlees[ControleeKey(session: session.id, address: address)] ?? [] where p.chip.id != chip.id {
                let peerDestinations = p.chip.sessions[p.session]?.destinations ?? []
                if peerDestinations.isEmpty || peerDestinations.contains(own) { return p }
            }
            // An anchor answers whoever names it, in any session (its session number is never read).
            return anchor(named: address).map { Participant(chip: $0, session: 0) }
        }
    }

    /// The active controlee sessions by session id and address, lowest chip first: rebuilt when a session changes
    /// state, not at every round (100 chips' rounds would scan every chip for every destination).
    func indexControlees() {
        controlees = [:]
        listeners = [:]
        active = []
        for chip in chips.values.sorted(by: { $0.id < $1.id }) {
            for s in chip.sessions.values where s.isRanging {
                active.append((chip, s.token))
            }
            for s in chip.sessions.values where s.isRanging && s.listensOnly {
                listeners[s.id, default: []].append(Participant(chip: chip, session: s.token))
            }
            for s in chip.sessions.values where s.isRanging && !s.isController && !s.listensOnly {
                guard let a = s.deviceAddress else { continue }
                controlees[ControleeKey(session: s.id, address: a), default: []].append(Participant(chip: chip, session: s.token))
            }
        }
        controleesDirty = false
        controleesGeneration &+= 1
    }

    /// The frames of one round: the poll, each controlee's response in its slot, the final.
    func airRound(_ chip: Chip, _ session: UCISession, _ parts: [Participant?], start: Double) -> AirRound {
        let slot = session.slot
        let airtime = min(settings.medium.frameDuration, slot)
        // A DL-TDoA round's tags listen to every frame of it.
        let tags = session.isDLTDoA ? self.tags(chip, session).map(\.chip.id) : []
        let present = parts.compactMap { $0?.chip.id } + tags
        var frames = [AirFrame(sender: chip.id, start: start, end: start + airtime, channel: session.channel, receivers: present)]
        for (k, p) in parts.enumerated() {
            guard let p else { continue }
            let s = start + Double(k + 1) * slot
            frames.append(AirFrame(sender: p.chip.id, start: s, end: s + airtime, channel: session.channel,
                                   receivers: [chip.id] + tags))
        }
        // An advertisement is one frame, heard by every observer.
        if session.isOneWayAoA {
            return AirRound(controller: chip.id, session: session.token, start: start, end: start + session.roundDuration,
                            frames: [AirFrame(sender: chip.id, start: start, end: start + airtime, channel: session.channel,
                                              receivers: present)])
        }
        let f = start + Double(parts.count + 1) * slot
        frames.append(AirFrame(sender: chip.id, start: f, end: f + airtime, channel: session.channel, receivers: present))
        return AirRound(controller: chip.id, session: session.token, start: start, end: start + session.roundDuration, frames: frames)
    }

    /// The rounds sharing the air with `round`: those already run, and the next of every other active controller.
    func neighbours(of round: AirRound) -> [AirRound] {
        if controleesDirty { indexControlees() }
        var result = airLog.filter { $0.start < round.end && $0.end > round.start }
        for chip in chips.values {
            for s in chip.sessions.values where s.isRanging && s.isController {
                if chip.id == round.controller && s.token == round.session { continue }
                let start = s.nextRound
                guard start < round.end, start + s.roundDuration > round.start else { continue }
                let key = LinkKey(initiator: chip.id, responder: Int(s.token))
                if let cached = planned[key], cached.round.start == start, cached.generation == controleesGeneration {
                    result.append(cached.round)
                    continue
                }
                let round = airRound(chip, s, participants(chip, s), start: start)
                planned[key] = (round, controleesGeneration)
                result.append(round)
            }
        }
        return result
    }

    /// Whether `receiver` hears `frame`: not when its own radio, or the sender's, is busy in another round's frame at
    /// the time; otherwise by the air's one rule over the frames of other rounds that overlap it on its channel.
    func hears(_ receiver: Int, _ frame: AirFrame, among others: [AirRound]) -> Bool {
        guard let at = chips[receiver]?.pose.position, let from = chips[frame.sender]?.pose.position else { return false }
        var interference = 0.0
        for round in others {
            for g in round.frames where g.start < frame.end && g.end > frame.start {
                if g.sender == receiver || g.receivers.contains(receiver) || g.sender == frame.sender { return false }
                if g.channel == frame.channel, let p = chips[g.sender]?.pose.position {
                    interference += reception.heard(p, at)
                }
            }
        }
        return reception.survives(signal: reception.level(from, at), interference: interference)
    }

    /// One round of a controller's session: each controlee's exchange through the air and the radio, the reports
    /// to both ends, the data carried.
    private func round(_ chip: Chip, _ session: UCISession, _ out: inout [UCIOutgoing]) {
        // A session ranges only with its own address (startProblem).
        guard let own = session.deviceAddress else { return }
        let start = session.nextRound
        move(to: start)
        let parts = participants(chip, session)
        let air = airRound(chip, session, parts, start: start)
        let others = neighbours(of: air)
        let end = air.end
        counters.rounds += 1
        var reports: [TwoWayReport] = []
        var seen: [(device: Int, status: UInt8, distance: UInt16)] = []
        var dlExchanges: [(responder: Chip, report: TwoWayReport)] = []
        let destinations = session.destinations ?? []
        var slotOfResponse = 1
        for (k, part) in parts.enumerated() {
            defer { slotOfResponse += 1 }
            // A controlee's session, or none for an anchor, which reports to no host.
            let peerSession = part.flatMap { $0.chip.isAnchor ? nil : $0.chip.sessions[$0.session] }
            guard let part, part.chip.isAnchor || peerSession != nil else {
                reports.append(.timeout(destinations[k]))
                continue
            }
            counters.exchanges += 1
            let poll = air.frames[0], final = air.frames[air.frames.count - 1]
            guard let response = air.frames.first(where: { $0.sender == part.chip.id }) else { continue }
            let clear = hears(part.chip.id, poll, among: others) && hears(chip.id, response, among: others)
                && hears(part.chip.id, final, among: others)
            var mine: TwoWayReport
            var theirs: TwoWayReport
            if !clear {
                counters.collidedExchanges += 1
                mine = .failure(destinations[k], status: UCIStatus.rangingRxPhyDecodeFailed.rawValue)
                theirs = .failure(own, status: UCIStatus.rangingRxPhyDecodeFailed.rawValue)
            } else if let (a, b) = measure(chip, part.chip, at: start, slot: UInt8(truncatingIfNeeded: slotOfResponse),
                                           controllerAddress: own, controleeAddress: destinations[k]) {
                mine = a
                theirs = b
                if !part.chip.isAnchor {
                    carryData(from: chip, session.token, to: part.chip, part.session, at: end, &out)
                    carryData(from: part.chip, part.session, to: chip, session.token, at: end, &out)
                }
            } else {
                counters.lostExchanges += 1
                mine = .timeout(destinations[k])
                theirs = .timeout(own)
            }
            mine.slot = UInt8(truncatingIfNeeded: slotOfResponse)
            theirs.slot = mine.slot
            reports.append(mine)
            seen.append((part.chip.id, mine.status, mine.distance))
            if session.isDLTDoA { dlExchanges.append((part.chip, mine)) }
            // The data carried changed its outbox.
            guard var peer = part.chip.sessions[part.session] ?? peerSession, !part.chip.isAnchor else { continue }
            peer.lastController = own
            peer.rangingCount &+= 1
            // DT-anchors range each other for their tags, and report nothing to their hosts.
            if !session.isDLTDoA { report(part.chip, &peer, [theirs], at: end, &out) }
            // The controlee hears the interval and the block stride in the round's control message.
            peer.watchdog = end + (1.5 + Double(session.parsed.blockStride)) * session.interval
            part.chip.sessions[part.session] = peer
        }
        var mineSession = chip.sessions[session.token] ?? session
        if session.isDLTDoA {
            tagsHear(air, of: chip, mineSession, exchanges: dlExchanges, among: others, &out)
        }
        mineSession.rangingCount &+= 1
        expireData(chip, &mineSession, at: end, &out)
        if !session.isDLTDoA { report(chip, &mineSession, reports, at: end, &out) }
        chip.sessions[session.token] = mineSession
        finish(air, of: chip, session, seen: seen, end: end)
    }

    /// What every round does at its end: its frames kept on the air's log (rounds already run, while a later round
    /// may still overlap them), the chips' power tallied, onlookers told.
    func finish(_ air: AirRound, of chip: Chip, _ session: UCISession,
                seen: [(device: Int, status: UInt8, distance: UInt16)], end: Double) {
        airLog.append(air)
        tally(air)
        onRound?(RoundSeen(controller: chip.id, token: session.token, time: end, exchanges: seen))
        // Every later round starts at or after the earliest next round of an active controller.
        let horizon = chips.values.flatMap { c in
            c.sessions.values.filter { $0.isRanging && $0.isController }
                .map { c === chip && $0.token == session.token ? air.start + $0.roundPeriod : $0.nextRound }
        }.min() ?? end
        airLog.removeAll { $0.end <= min(horizon, air.start) }
    }

    /// The radio's measurement of one exchange, as each end reports it; `nil` when the exchange was lost.
    func measure(_ a: Chip, _ b: Chip, at time: Double, slot: UInt8, controllerAddress: UCIAddress,
                         controleeAddress: UCIAddress) -> (TwoWayReport, TwoWayReport)? {
        let key = LinkKey(initiator: a.id, responder: b.id)
        if links[key] == nil {
            do {
                links[key] = try PairRadio(initiator: a.radio, responder: b.radio, stream: (UInt64(a.id), UInt64(b.id)),
                                           runSeed: settings.seed, shared: shared)
            } catch {
                counters.radioFailures += 1
                return nil
            }
        }
        guard var link = links[key] else { return nil }
        let geometry = PairGeometry(a.pose, b.pose)
        let measured = link.exchange(geometry: geometry, at: time, path: .clear)
        links[key] = link
        guard let measured, let distance = measured.distance else { return nil }
        let radio = settings.radio
        let pathLoss = radio.pathLoss(distance: geometry.distance)
        let (gainA, gainB) = link.antennaGains(geometry)
        let extra = measured.lineOfSight ? 0 : radio.bodyLoss
        let level = radio.referenceLevel - pathLoss + gainA + gainB - extra
        let snr = radio.signalToNoise(pathLoss: pathLoss, gainA: gainA, gainB: gainB, extraLoss: extra)
        // A figure of merit from the link's margin: 100 at the reference SNR or more, 0 at the fade's midpoint.
        let fom = UInt8(min(max((snr - radio.fadeSNR) / (radio.referenceSNR - radio.fadeSNR), 0), 1) * 100)
        let rssi = UInt8(min(max(-2 * level, 0), 255).rounded())
        let cm = UInt16(min(max(distance * 100, 0), 65_535).rounded())
        let nlos: UInt8 = measured.lineOfSight ? 0 : 1
        let atA = Angles(measured.angleAtInitiator, fom: fom)
        let atB = Angles(measured.angleAtResponder, fom: fom)
        let mine = TwoWayReport(address: controleeAddress, status: 0, nlos: nlos, distance: cm, own: atA, peer: atB, slot: slot, rssi: rssi)
        let theirs = TwoWayReport(address: controllerAddress, status: 0, nlos: nlos, distance: cm, own: atB, peer: atA, slot: slot, rssi: rssi)
        return (mine, theirs)
    }

    private func timeoutReport(_ session: UCISession) -> TwoWayReport {
        let address = session.lastController ?? session.destinations?.first ?? UCIAddress.zero(session.addressLength)
        return .timeout(address)
    }

    /// A SESSION_INFO_NTF of two-way measurements, unless the host turned them off.
    func report(_ chip: Chip, _ session: inout UCISession, _ reports: [TwoWayReport], at time: Double,
                        _ out: inout [UCIOutgoing]) {
        guard session.parsed.reportsInfo else { return }
        let (near, far) = (session.parsed.near, session.parsed.far)
        let reports = session.parsed.reportsOnlyInProximity
            ? reports.filter { $0.status == 0 && (near...max(near, far)).contains(Int($0.distance)) } : reports
        guard !reports.isEmpty else { return }
        let length = session.addressLength
        sessionInfo(chip, &session, type: 1, count: reports.count, at: time, &out) { w in
            for r in reports { r.encode(&w, addressLength: length) }
        }
    }

    /// A SESSION_INFO_NTF: its header (the session's next sequence number, its token, the interval, the measurement
    /// type, the address indicator) and `count` measurements that `body` writes.
    func sessionInfo(_ chip: Chip, _ session: inout UCISession, type: UInt8, count: Int, at time: Double,
                     _ out: inout [UCIOutgoing], body: (inout UCIByteWriter) -> Void) {
        var w = UCIByteWriter()
        w.u32(session.sequence)
        session.sequence &+= 1
        w.u32(session.token)
        w.u8(0)  // rcr indicator
        w.u32(UInt32(min(session.interval * 1000, Double(UInt32.max)).rounded()))
        w.u8(type)
        w.u8(0)
        w.u8(session.addressLength == 8 ? 1 : 0)
        w.zeros(8)
        w.u8(UInt8(count))
        body(&w)
        notify(chip.id, UCIGroup.sessionControl, UCIOpcode.sessionInfo, w.bytes, time, &out)
    }

    /// Delivers what `from`'s session holds for `to`'s address as DATA_MESSAGE_RCV packets.
    private func carryData(from: Chip, _ fromSession: UInt32, to: Chip, _ toSession: UInt32, at time: Double,
                           _ out: inout [UCIOutgoing]) {
        guard var s = from.sessions[fromSession], !s.outbox.isEmpty,
              let target = to.sessions[toSession]?.deviceAddress?.value,
              let source = s.deviceAddress?.value else { return }
        var kept: [UCISession.OutgoingData] = []
        for item in s.outbox {
            guard item.destination == target else { kept.append(item); continue }
            var w = UCIByteWriter()
            w.u32(toSession)
            w.u8(0)
            w.u64(source)
            w.u16(settings.version.carriesSenderSequence ? item.sequence : 1)
            w.u16(UInt16(truncatingIfNeeded: item.data.count))
            w.append(item.data)
            out.append(UCIOutgoing(device: to.id, message: UCIMessage(type: .data, group: UCIDataFormat.receive, opcode: 0, payload: w.bytes), time: time))
            counters.dataDelivered += 1
            if s.reportsDataTransfer { transferStatus(fromSession, item.sequence, TransferStatus.ok, 1, from.id, time, &out) }
        }
        s.outbox = kept
        from.sessions[fromSession] = s
    }

    /// Messages that waited more rounds than the session allows (MAX_RR_RETRY; 0, the default, waits forever) are
    /// dropped and, when the host asked, reported.
    private func expireData(_ chip: Chip, _ session: inout UCISession, at time: Double, _ out: inout [UCIOutgoing]) {
        guard !session.outbox.isEmpty else { return }
        let limit = session.maxRetry
        var kept: [UCISession.OutgoingData] = []
        for var item in session.outbox {
            item.attempts += 1
            if limit > 0, item.attempts > limit {
                counters.dataDropped += 1
                if session.reportsDataTransfer {
                    transferStatus(session.token, item.sequence, TransferStatus.errorDataTransfer, UInt8(min(item.attempts, 255)), chip.id, time, &out)
                }
            } else {
                kept.append(item)
            }
        }
        session.outbox = kept
    }
}

/// An angle pair as UCI carries it: degrees in Q9.7 and a figure of merit.
struct Angles {
    var azimuth: Int16 = 0
    var azimuthFOM: UInt8 = 0
    var elevation: Int16 = 0
    var elevationFOM: UInt8 = 0

    init() {}

    init(_ m: AngleMeasurement?, fom: UInt8) {
        guard let m else { return }
        azimuth = Self.q97(m.horizontalAngle)
        azimuthFOM = fom
        if let v = m.verticalCosine {
            elevation = Self.q97(asin(min(max(v, -1), 1)))
            elevationFOM = fom
        }
    }

    /// Radians to degrees in Q9.7 (a signed 16-bit number of 1/128 degrees).
    static func q97(_ radians: Double) -> Int16 {
        Int16(min(max((radians * 180 / Double.pi * 128).rounded(), -32_768), 32_767))
    }
}

/// One two-way measurement of a SESSION_INFO_NTF.
struct TwoWayReport {
    var address: UCIAddress
    var status: UInt8
    var nlos: UInt8 = 0
    var distance: UInt16 = 0
    var own = Angles()
    var peer = Angles()
    var slot: UInt8 = 0
    var rssi: UInt8 = 0

    static func timeout(_ a: UCIAddress) -> TwoWayReport { failure(a, status: UCIStatus.rangingRxTimeout.rawValue) }

    static func failure(_ a: UCIAddress, status: UInt8) -> TwoWayReport { TwoWayReport(address: a, status: status) }

    /// The measurement's 31 bytes (short address) or 37 (extended), as UCI lays them out.
    func encode(_ w: inout UCIByteWriter, addressLength: Int) {
        w.append(address.bytes(padded: addressLength))
        w.u8(status)
        w.u8(nlos)
        w.u16(distance)
        w.i16(own.azimuth)
        w.u8(own.azimuthFOM)
        w.i16(own.elevation)
        w.u8(own.elevationFOM)
        w.i16(peer.azimuth)
        w.u8(peer.azimuthFOM)
        w.i16(peer.elevation)
        w.u8(peer.elevationFOM)
        w.u8(slot)
        w.u8(rssi)
        w.zeros(addressLength == 2 ? 11 : 5)
    }
}
