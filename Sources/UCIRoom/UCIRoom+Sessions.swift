import UCI

/// The session groups (GID 1, configuration, and GID 2, control). A session is named in every command and
/// notification by its token: the session id in UCI 1.1, the handle the chip gave at SESSION_INIT in 2.0.
extension UCIRoom {
    func sessionConfig(_ m: UCIMessage, _ chip: Chip, _ time: Double, _ out: inout [UCIOutgoing]) {
        let d = chip.id
        var r = UCIByteReader(m.payload)
        switch m.opcode {
        case UCIOpcode.sessionInit:
            let handles = settings.version.hasSessionHandles
            // A 2.0 response names the handle, 0 when refused.
            let noHandle: [UInt8] = handles ? [0, 0, 0, 0] : []
            guard let id = r.u32(), let type = r.u8(), r.remaining == 0 else {
                return refuse(m, chip, .invalidMessageSize, time, &out, noHandle)
            }
            guard !chip.sessions.values.contains(where: { $0.id == id }) else {
                return refuse(m, chip, .sessionDuplicate, time, &out, noHandle)
            }
            guard chip.sessions.count < settings.sessionsPerDevice else {
                return refuse(m, chip, .maxSessionsExceeded, time, &out, noHandle)
            }
            guard UCISessionType.served.contains(type) else {
                return refuse(m, chip, .invalidParameter, time, &out, noHandle)
            }
            let token = handles ? chip.newHandle() : id
            chip.sessions[token] = UCISession(id: id, token: token, type: type,
                                              servesOneWayRounds: settings.version.servesOneWayRounds)
            var w = UCIByteWriter()
            w.u8(UCIStatus.ok.rawValue)
            if handles { w.u32(token) }
            respond(d, m, w.bytes, time, &out)
            sessionStatus(d, token, .initialized, UCIReason.stateChangeByCommand, time, &out)

        case UCIOpcode.sessionDeinit:
            guard let token = r.u32(), r.remaining == 0 else { return refuse(m, chip, .invalidMessageSize, time, &out) }
            guard let session = chip.sessions[token] else { return refuse(m, chip, .sessionNotExist, time, &out) }
            counters.dataDropped += session.outbox.count
            chip.sessions[token] = nil
            respond(d, m, [UCIStatus.ok.rawValue], time, &out)
            sessionStatus(d, token, .deinitialized, UCIReason.stateChangeByCommand, time, &out)
            if session.state == .active { updateDeviceState(chip, time, &out) }

        case UCIOpcode.setAppConfig:
            guard let token = r.u32(), let n = r.u8() else {
                return refuse(m, chip, .invalidMessageSize, time, &out, [0])
            }
            var tlvs: [(UInt8, [UInt8])] = []
            for _ in 0..<n {
                guard let t = r.u8(), let len = r.u8(), let v = r.take(Int(len)) else {
                    return refuse(m, chip, .invalidMessageSize, time, &out, [0])
                }
                tlvs.append((t, v))
            }
            guard r.remaining == 0 else { return refuse(m, chip, .invalidMessageSize, time, &out, [0]) }
            guard var session = chip.sessions[token] else { return refuse(m, chip, .sessionNotExist, time, &out, [0]) }
            // While ranging, only what may change then; a command naming anything else changes nothing.
            let fixed = session.state == .active
                ? tlvs.map(\.0).filter { !UCISession.changesWhileActive.contains($0) } : []
            guard fixed.isEmpty else {
                return refuse(m, chip, .sessionActive, time, &out,
                              [UInt8(fixed.count)] + fixed.flatMap { [$0, UCIStatus.sessionActive.rawValue] })
            }
            let wasRanging = session.isRanging
            var failed: [(UInt8, UCIStatus)] = []
            for (t, v) in tlvs {
                if let problem = UCISession.check(t, v) { failed.append((t, problem)) } else { session.config[t] = v }
            }
            // A ranging session's new interval must still hold its round.
            if session.state == .active, failed.isEmpty, session.startProblem() != nil {
                return refuse(m, chip, .invalidParameter, time, &out,
                              [UInt8(tlvs.count)] + tlvs.flatMap { [$0.0, UCIStatus.invalidRange.rawValue] })
            }
            if !failed.isEmpty { counters.badCommands += 1 }
            let status: UCIStatus = failed.isEmpty ? .ok : .invalidParameter
            let wasInit = session.state == .initialized
            if failed.isEmpty, wasInit { session.state = .idle }
            if let a = session.deviceAddress { chip.lastAddress = a }
            if session.isRanging && !wasRanging { schedule(&session, from: time) }
            chip.sessions[token] = session
            respond(d, m, [status.rawValue, UInt8(failed.count)] + failed.flatMap { [$0.0, $0.1.rawValue] }, time, &out)
            if failed.isEmpty, wasInit { sessionStatus(d, token, .idle, UCIReason.stateChangeByCommand, time, &out) }

        case UCIOpcode.getAppConfig:
            guard let token = r.u32(), let n = r.u8(), let ids = r.take(Int(n)), r.remaining == 0 else {
                return refuse(m, chip, .invalidMessageSize, time, &out, [0])
            }
            guard let session = chip.sessions[token] else { return refuse(m, chip, .sessionNotExist, time, &out, [0]) }
            // All 256 types may have been set; a count byte holds 255 of them.
            let wanted = ids.isEmpty ? Array(session.config.keys.sorted().prefix(255)) : ids
            var tlvs: [UInt8] = []
            var count = 0
            var missing = false
            for t in wanted {
                guard let v = session.config[t] else { missing = true; continue }
                tlvs += [t, UInt8(v.count)] + v
                count += 1
            }
            // Whatever fits in the largest message; a reply never grows past it.
            guard tlvs.count + 2 <= UCIReassembler.maximumMessage else {
                return refuse(m, chip, .invalidMessageSize, time, &out, [0])
            }
            respond(d, m, [(missing ? UCIStatus.invalidParameter : .ok).rawValue, UInt8(count)] + tlvs, time, &out)

        case UCIOpcode.sessionCount:
            guard m.payload.isEmpty else { return refuse(m, chip, .invalidMessageSize, time, &out, [0]) }
            respond(d, m, [UCIStatus.ok.rawValue, UInt8(chip.sessions.count)], time, &out)

        case UCIOpcode.sessionState:
            guard let token = r.u32(), r.remaining == 0 else {
                return refuse(m, chip, .invalidMessageSize, time, &out, [0])
            }
            guard let session = chip.sessions[token] else { return refuse(m, chip, .sessionNotExist, time, &out, [0]) }
            respond(d, m, [UCIStatus.ok.rawValue, session.state.rawValue], time, &out)

        case UCIOpcode.multicastList:
            multicastList(m, chip, time, &out)

        case UCIOpcode.queryDataSize:
            guard let token = r.u32(), r.remaining == 0 else { return refuse(m, chip, .invalidMessageSize, time, &out) }
            var w = UCIByteWriter()
            w.u32(token)
            guard chip.sessions[token] != nil else {
                counters.badCommands += 1
                w.u8(UCIStatus.sessionNotExist.rawValue)
                w.u16(0)
                return respond(d, m, w.bytes, time, &out)
            }
            w.u8(UCIStatus.ok.rawValue)
            w.u16(UInt16(Self.largestDataPayload))
            respond(d, m, w.bytes, time, &out)

        default:
            refuse(m, chip, .unknownOpcode, time, &out)
        }
    }

    func sessionControl(_ m: UCIMessage, _ chip: Chip, _ time: Double, _ out: inout [UCIOutgoing]) {
        let d = chip.id
        var r = UCIByteReader(m.payload)
        switch m.opcode {
        case UCIOpcode.sessionStart:
            guard let token = r.u32(), r.remaining == 0 else { return refuse(m, chip, .invalidMessageSize, time, &out) }
            guard var session = chip.sessions[token] else { return refuse(m, chip, .sessionNotExist, time, &out) }
            switch session.state {
            case .active: return refuse(m, chip, .sessionActive, time, &out)
            case .initialized, .deinitialized: return refuse(m, chip, .sessionNotConfigured, time, &out)
            case .idle: break
            }
            if let reason = session.startProblem() {
                counters.badCommands += 1
                respond(d, m, [UCIStatus.ok.rawValue], time, &out)
                return sessionStatus(d, token, .idle, reason, time, &out)
            }
            session.state = .active
            schedule(&session, from: time)
            chip.sessions[token] = session
            respond(d, m, [UCIStatus.ok.rawValue], time, &out)
            sessionStatus(d, token, .active, UCIReason.stateChangeByCommand, time, &out)
            updateDeviceState(chip, time, &out)

        case UCIOpcode.sessionStop:
            guard let token = r.u32(), r.remaining == 0 else { return refuse(m, chip, .invalidMessageSize, time, &out) }
            guard var session = chip.sessions[token] else { return refuse(m, chip, .sessionNotExist, time, &out) }
            guard session.state == .active else { return refuse(m, chip, .rejected, time, &out) }
            session.state = .idle
            chip.sessions[token] = session
            respond(d, m, [UCIStatus.ok.rawValue], time, &out)
            sessionStatus(d, token, .idle, UCIReason.stateChangeByCommand, time, &out)
            updateDeviceState(chip, time, &out)

        case UCIOpcode.rangingCount:
            guard let token = r.u32(), r.remaining == 0 else {
                return refuse(m, chip, .invalidMessageSize, time, &out, [0, 0, 0, 0])
            }
            guard let session = chip.sessions[token] else {
                return refuse(m, chip, .sessionNotExist, time, &out, [0, 0, 0, 0])
            }
            var w = UCIByteWriter()
            w.u8(UCIStatus.ok.rawValue)
            w.u32(session.rangingCount)
            respond(d, m, w.bytes, time, &out)

        default:
            refuse(m, chip, .unknownOpcode, time, &out)
        }
    }

    /// MulticastUpdateStatus values.
    private enum ListStatus {
        static let ok: UInt8 = 0x00
        static let full: UInt8 = 0x01
        static let keyNotApplicable: UInt8 = 0x05
        static let addressNotFound: UInt8 = 0x07
        static let addressAlreadyPresent: UInt8 = 0x08
    }

    /// The most controlees a one-to-many session holds.
    static let largestMulticastList = 8

    /// SESSION_UPDATE_CONTROLLER_MULTICAST_LIST: adds or removes short-address controlees of a one-to-many session,
    /// answered and notified in the version's layouts. A list emptied while ranging stops the session, as the
    /// specification has it.
    func multicastList(_ m: UCIMessage, _ chip: Chip, _ time: Double, _ out: inout [UCIOutgoing]) {
        let version = settings.version
        let refusedTail: [UInt8] = version.hasMulticastStatusLists ? [0] : []
        var r = UCIByteReader(m.payload)
        guard let token = r.u32(), let action = r.u8(), let n = r.u8() else {
            return refuse(m, chip, .invalidMessageSize, time, &out, refusedTail)
        }
        guard version.multicastActions.contains(action) else {
            return refuse(m, chip, .invalidParameter, time, &out, refusedTail)
        }
        let keyLength = [0, 0, 16, 32][Int(action)]
        var entries: [(address: UCIAddress, subSession: UInt32)] = []
        for _ in 0..<n {
            guard let a = r.take(2).flatMap(UCIAddress.init), let sub = r.u32(), r.take(keyLength) != nil else {
                return refuse(m, chip, .invalidMessageSize, time, &out, refusedTail)
            }
            entries.append((a, sub))
        }
        guard r.remaining == 0 else { return refuse(m, chip, .invalidMessageSize, time, &out, refusedTail) }
        guard var session = chip.sessions[token] else {
            return refuse(m, chip, .sessionNotExist, time, &out, refusedTail)
        }
        guard session.isController, session.multiNode == 1, session.addressLength == 2 else {
            return refuse(m, chip, .rejected, time, &out, refusedTail)
        }
        let keyed = action >= 2
        let providesKeys = session.config[UCIAppConfigID.stsConfig] == [0x04]
        var list = session.destinations ?? []
        var statuses: [UInt8] = []
        for e in entries {
            if action == 1 {
                if let k = list.firstIndex(of: e.address) {
                    list.remove(at: k)
                    statuses.append(ListStatus.ok)
                } else {
                    statuses.append(ListStatus.addressNotFound)
                }
            } else if keyed && !providesKeys {
                statuses.append(ListStatus.keyNotApplicable)
            } else if list.contains(e.address) {
                statuses.append(ListStatus.addressAlreadyPresent)
            } else if list.count >= Self.largestMulticastList {
                statuses.append(ListStatus.full)
            } else {
                list.append(e.address)
                statuses.append(ListStatus.ok)
            }
        }
        session.config[UCIAppConfigID.destinationMACAddress] = list.flatMap(\.bytes)
        session.config[UCIAppConfigID.numberOfControlees] = [UInt8(list.count)]
        let emptied = list.isEmpty && session.state == .active
        if emptied { session.state = .idle }
        chip.sessions[token] = session

        var response = UCIByteWriter()
        response.u8(UCIStatus.ok.rawValue)
        var notification = UCIByteWriter()
        notification.u32(token)
        if version.hasMulticastStatusLists {
            let failed = zip(entries, statuses).filter { $0.1 != ListStatus.ok }
            response.u8(UInt8(failed.count))
            for (e, status) in failed {
                response.append(e.address.bytes)
                response.u8(status)
            }
            notification.u8(UInt8(entries.count))
            for (e, status) in zip(entries, statuses) {
                notification.append(e.address.bytes)
                notification.u8(status)
            }
        } else {
            notification.u8(UInt8(Self.largestMulticastList - list.count))
            notification.u8(UInt8(entries.count))
            for (e, status) in zip(entries, statuses) {
                notification.append(e.address.bytes)
                notification.u32(e.subSession)
                notification.u8(status)
            }
        }
        if statuses.contains(where: { $0 != ListStatus.ok }) { counters.badCommands += 1 }
        respond(chip.id, m, response.bytes, time, &out)
        notify(chip.id, UCIGroup.sessionConfig, UCIOpcode.multicastList, notification.bytes, time, &out)
        if emptied {
            sessionStatus(chip.id, token, .idle, UCIReason.invalidNumberOfControlees, time, &out)
            updateDeviceState(chip, time, &out)
        }
    }

    /// A session that starts ranging (started, or resumed): pica's hosts wait for a first report within two seconds
    /// of starting, so the first round is one interval on, when the peer has started too, as a chip's first round is
    /// scheduled; a controlee that hears none by one and a half intervals past it reports a timeout.
    func schedule(_ session: inout UCISession, from time: Double) {
        session.nextRound = time + session.interval
        session.watchdog = time + 1.5 * session.interval + session.roundDuration
    }
}
