import Foundation
import GSL
import Geometry
import Radio
import UCI

/// What the room sends: one message to one chip's host.
package struct UCIOutgoing: Sendable, Equatable {
    package let device: Int
    package let message: UCIMessage
    /// Room time at which it is due, seconds.
    package let time: Double
}

/// What the room counted of its hosts' input and of its air.
package struct UCICounters: Sendable, Equatable {
    package var packetsReceived = 0
    /// Packets that could not be read as UCI (a reserved type, an oversized or mismatched segment).
    package var malformedPackets = 0
    /// Commands refused for a bad group, opcode, size or value.
    package var badCommands = 0
    /// Commands refused for the state they came in.
    package var commandsInWrongState = 0
    /// Data packets refused (no session, a bad header).
    package var badDataPackets = 0
    package var notifications = 0
    package var rounds = 0
    /// Exchanges measured, lost to the link, lost to another round on the air.
    package var exchanges = 0
    package var lostExchanges = 0
    package var collidedExchanges = 0
    package var dataDelivered = 0
    package var dataDropped = 0

    package init() {}
}

/// The room's settings: its seed, its radio, and how far a frame disturbs another receiver.
package struct UCIRoomSettings: Sendable {
    package var seed: UInt64 = 1
    package var radio = RadioConfiguration()
    /// Metres; the medium's (docs/airtime.md).
    package var interferenceRange = 20.0
    /// How long one ranging frame is on the air, seconds: a BPRF frame's 64-symbol preamble (65 µs), its SFD, one
    /// 64-symbol STS segment (65 µs), its PHR and a short payload at 6.8 Mb/s come to about 0.2 ms, well inside the
    /// slot it is sent in. Frames of two rounds collide only where they overlap, not wherever their slots do.
    package var frameDuration = 0.0002
    /// Sessions one chip holds at once.
    package var sessionsPerDevice = 8
    /// Spacing of the default row, metres.
    package var spacing = 1.0
    /// Height of the default row above the floor, metres.
    package var height = 1.0

    package init() {}
}

/// The simulated UWB chips behind a UCI endpoint: each host connection is one chip. The room answers each chip's
/// commands as a UCI device does and ranges the active sessions through the simulator's radio and air: the chips'
/// code (this file) keeps their sessions and answers; the world's side (UCIRoom+Ranging.swift) reads the true
/// positions to measure and to decide which frames collide.
///
/// Not thread-safe: one caller (the endpoint's event loop, or a test) drives it, with the room's own time.
package final class UCIRoom {
    package let settings: UCIRoomSettings
    package internal(set) var counters = UCICounters()
    var chips: [Int: Chip] = [:]
    private var nextChip = 0
    var links: [LinkKey: PairRadio] = [:]
    /// Rounds already run, kept a second so that later rounds see what shared their air.
    var airLog: [AirRound] = []
    var controlees: [ControleeKey: [Participant]] = [:]
    /// Every active session, by chip, indexed with the controlees.
    var active: [(Chip, UInt32)] = []
    /// Set by every command and disconnection, which may start, stop or change a session.
    var controleesDirty = true
    /// One more each time the controlees are indexed again: planned rounds made before then are stale.
    var controleesGeneration = 0
    /// The next round of each active controller as last planned, by chip and session, with the generation it was
    /// planned in: a round overlaps many others, and is planned once rather than once for each of them.
    var planned: [LinkKey: (round: AirRound, generation: Int)] = [:]

    struct ControleeKey: Hashable {
        let session: UInt32
        let address: UCIAddress
    }

    /// Where the world has the chips at a time, for a moving room (`--scenario`): chip i takes pose i, chips past the
    /// list stay where they stand. Asked before each round, with times that never go back.
    package var moves: ((Double) -> [Pose])?
    private var movedAt = -Double.infinity

    /// Brings the chips to where the world has them at `time`.
    func move(to time: Double) {
        guard let moves, time > movedAt else { return }
        movedAt = time
        for (i, pose) in moves(time).enumerated() {
            chips[i]?.pose = pose
        }
    }

    package init(settings: UCIRoomSettings = UCIRoomSettings()) throws {
        try settings.radio.validate()
        self.settings = settings
    }

    struct LinkKey: Hashable {
        let initiator: Int
        let responder: Int
    }

    final class Chip {
        let id: Int
        var reassembler = UCIReassembler(joiningData: false)
        var state: UCIDeviceState = .ready
        var sessions: [UInt32: UCISession] = [:]
        var lowPowerMode: UInt8 = 0
        var pose: Pose
        let radio: DeviceRadio
        var dataJoin: DataJoin?
        /// The address of the session configured last, which the web API names the chip by.
        var lastAddress: UCIAddress?
        /// When its host connected, seconds on the room's clock: the chip's own clock counts from there.
        let since: Double
        /// Microseconds it sent and received frames, and the rounds it woke for (Android's power statistics).
        var transmitting = 0
        var receiving = 0
        var wakes = 0
        /// The country its host set (Android's vendor command), two ASCII letters.
        var countryCode: [UInt8]?

        init(id: Int, pose: Pose, radio: DeviceRadio, since: Double) {
            self.id = id
            self.pose = pose
            self.radio = radio
            self.since = since
        }

        /// The default address, before any session gave one: the chip's number from 1, two bytes.
        var defaultAddress: UCIAddress { UCIAddress([UInt8((id + 1) >> 8 & 0xFF), UInt8((id + 1) & 0xFF)])! }
        var address: UCIAddress { lastAddress ?? defaultAddress }
    }

    /// A data message arriving in segments.
    struct DataJoin {
        var session: UInt32
        var destination: UInt64
        var sequence: UInt16
        var declared: Int
        var data: [UInt8]
        /// pica's hosts repeat the header in every segment; the specification's put it in the first only.
        var headerInEachSegment: Bool
    }

    // MARK: Chips

    /// Where a chip no one placed stands: in a row along x, `spacing` apart, even chips facing +x and odd ones -x,
    /// so that chips 0 and 1, 2 and 3, ... face each other.
    package func defaultPose(_ device: Int) -> Pose {
        let position = Vector3(Double(device) * settings.spacing, 0, settings.height)
        return Pose(position: position, orientation: Orientation(heading: device % 2 == 0 ? 0 : Double.pi))
    }

    /// A host connected: a new chip, which says it is ready.
    package func connect(at time: Double) throws -> (device: Int, out: [UCIOutgoing]) {
        let id = nextChip
        nextChip += 1
        let radio = try DeviceRadio(id: UInt64(id), runSeed: settings.seed, configuration: settings.radio)
        chips[id] = Chip(id: id, pose: defaultPose(id), radio: radio, since: time)
        var out: [UCIOutgoing] = []
        notify(id, UCIGroup.core, UCIOpcode.deviceStatus, [UCIDeviceState.ready.rawValue], time, &out)
        return (id, out)
    }

    /// A host went away: its chip and its sessions with it.
    package func disconnect(_ device: Int) {
        chips[device] = nil
        controleesDirty = true
        planned = planned.filter { $0.key.initiator != device }
    }

    package var devices: [Int] { chips.keys.sorted() }

    package func pose(of device: Int) -> Pose? { chips[device]?.pose }

    package func setPose(_ pose: Pose, of device: Int) -> Bool {
        guard let chip = chips[device] else { return false }
        chip.pose = pose
        return true
    }

    /// The chip's address as the web API shows it.
    package func address(of device: Int) -> UCIAddress? { chips[device]?.address }

    /// The chip that an address names: the last configured address of a chip, or its default one.
    package func device(named address: UCIAddress) -> Int? {
        chips.values.filter { $0.address == address }.map(\.id).min()
    }

    // MARK: Input

    /// Bytes from a chip's host, in any chunks.
    package func receive(_ bytes: [UInt8], from device: Int, at time: Double) -> [UCIOutgoing] {
        guard let chip = chips[device] else { return [] }
        var out: [UCIOutgoing] = []
        for result in chip.reassembler.take(bytes) {
            counters.packetsReceived += 1
            switch result {
            case .failure:
                counters.malformedPackets += 1
                notify(device, UCIGroup.core, UCIOpcode.genericError, [UCIStatus.syntaxError.rawValue], time, &out)
            case .success(let message):
                switch message.type {
                case .command: command(message, chip, time, &out)
                case .data: data(message, chip, time, &out)
                case .response, .notification:
                    // Only the chip sends these.
                    counters.malformedPackets += 1
                    notify(device, UCIGroup.core, UCIOpcode.genericError, [UCIStatus.syntaxError.rawValue], time, &out)
                }
            }
        }
        return out
    }

    func notify(_ device: Int, _ group: UInt8, _ opcode: UInt8, _ payload: [UInt8], _ time: Double, _ out: inout [UCIOutgoing]) {
        counters.notifications += 1
        out.append(UCIOutgoing(device: device, message: UCIMessage(type: .notification, group: group, opcode: opcode, payload: payload), time: time))
    }

    func respond(_ device: Int, _ command: UCIMessage, _ payload: [UInt8], _ time: Double, _ out: inout [UCIOutgoing]) {
        out.append(UCIOutgoing(device: device, message: UCIMessage(type: .response, group: command.group, opcode: command.opcode, payload: payload), time: time))
    }

    // MARK: Commands

    private func command(_ m: UCIMessage, _ chip: Chip, _ time: Double, _ out: inout [UCIOutgoing]) {
        controleesDirty = true
        let d = chip.id
        var r = UCIByteReader(m.payload)
        func refuse(_ status: UCIStatus, _ extra: [UInt8] = []) {
            if status == .sessionActive || status == .rejected || status == .sessionNotConfigured {
                counters.commandsInWrongState += 1
            } else {
                counters.badCommands += 1
            }
            respond(d, m, [status.rawValue] + extra, time, &out)
        }
        switch (m.group, m.opcode) {
        case (UCIGroup.core, UCIOpcode.deviceReset):
            guard m.payload.count == 1 else { return refuse(.invalidMessageSize) }
            guard m.payload[0] == 0 else { return refuse(.invalidParameter) }
            chip.sessions = [:]
            chip.state = .ready
            chip.dataJoin = nil
            respond(d, m, [UCIStatus.ok.rawValue], time, &out)
            notify(d, UCIGroup.core, UCIOpcode.deviceStatus, [UCIDeviceState.ready.rawValue], time, &out)

        case (UCIGroup.core, UCIOpcode.deviceInfo):
            guard m.payload.isEmpty else { return refuse(.invalidMessageSize, [UInt8](repeating: 0, count: 9)) }
            var w = UCIByteWriter()
            w.u8(UCIStatus.ok.rawValue)
            w.append([0x02, 0x00])  // UCI 2.0
            w.append([0x01, 0x30])  // MAC 1.3
            w.append([0x01, 0x30])  // PHY 1.3
            w.append([0x01, 0x00])  // UCI test 1.0
            w.u8(0)
            respond(d, m, w.bytes, time, &out)

        case (UCIGroup.core, UCIOpcode.capsInfo):
            guard m.payload.isEmpty else { return refuse(.invalidMessageSize, [0]) }
            respond(d, m, [UCIStatus.ok.rawValue] + Self.capabilities, time, &out)

        case (UCIGroup.core, UCIOpcode.setConfig):
            guard let n = r.u8() else { return refuse(.invalidMessageSize, [0]) }
            var failed: [(UInt8, UCIStatus)] = []
            var pending: [(UInt8, [UInt8])] = []
            for _ in 0..<n {
                guard let id = r.u8(), let len = r.u8(), let v = r.take(Int(len)) else { return refuse(.invalidMessageSize, [0]) }
                switch id {
                case 0: failed.append((id, .readOnly))
                case 1 where v.count == 1 && v[0] <= 1: pending.append((id, v))
                case 1: failed.append((id, .invalidRange))
                default: failed.append((id, .invalidParameter))
                }
            }
            guard r.remaining == 0 else { return refuse(.invalidMessageSize, [0]) }
            if failed.isEmpty { for (_, v) in pending { chip.lowPowerMode = v[0] } }
            if !failed.isEmpty { counters.badCommands += 1 }
            let status: UCIStatus = failed.isEmpty ? .ok : (failed.allSatisfy { $0.1 == .readOnly } ? .readOnly : .invalidParameter)
            respond(d, m, [status.rawValue, UInt8(failed.count)] + failed.flatMap { [$0.0, $0.1.rawValue] }, time, &out)

        case (UCIGroup.core, UCIOpcode.getConfig):
            guard let n = r.u8(), let ids = r.take(Int(n)), r.remaining == 0 else { return refuse(.invalidMessageSize, [0]) }
            var tlvs: [UInt8] = []
            for id in ids {
                switch id {
                case 0: tlvs += [0, 1, chip.state.rawValue]
                case 1: tlvs += [1, 1, chip.lowPowerMode]
                default:
                    counters.badCommands += 1
                    return respond(d, m, [UCIStatus.invalidParameter.rawValue, 0], time, &out)
                }
            }
            respond(d, m, [UCIStatus.ok.rawValue, UInt8(ids.count)] + tlvs, time, &out)

        case (UCIGroup.sessionConfig, UCIOpcode.sessionInit):
            guard let id = r.u32(), let type = r.u8(), r.remaining == 0 else { return refuse(.invalidMessageSize) }
            guard chip.sessions[id] == nil else { return refuse(.sessionDuplicate) }
            guard chip.sessions.count < settings.sessionsPerDevice else { return refuse(.maxSessionsExceeded) }
            guard UCISessionType.served.contains(type) else { return refuse(.invalidParameter) }
            chip.sessions[id] = UCISession(id: id, type: type)
            // The 1.1 response, without a handle: the session is named by its id, as pica's hosts expect.
            respond(d, m, [UCIStatus.ok.rawValue], time, &out)
            sessionStatus(d, id, .initialized, UCIReason.stateChangeByCommand, time, &out)

        case (UCIGroup.sessionConfig, UCIOpcode.sessionDeinit):
            guard let id = r.u32(), r.remaining == 0 else { return refuse(.invalidMessageSize) }
            guard let session = chip.sessions[id] else { return refuse(.sessionNotExist) }
            counters.dataDropped += session.outbox.count
            chip.sessions[id] = nil
            respond(d, m, [UCIStatus.ok.rawValue], time, &out)
            sessionStatus(d, id, .deinitialized, UCIReason.stateChangeByCommand, time, &out)
            if session.state == .active { updateDeviceState(chip, time, &out) }

        case (UCIGroup.sessionConfig, UCIOpcode.setAppConfig):
            guard let id = r.u32(), let n = r.u8() else { return refuse(.invalidMessageSize, [0]) }
            var tlvs: [(UInt8, [UInt8])] = []
            for _ in 0..<n {
                guard let t = r.u8(), let len = r.u8(), let v = r.take(Int(len)) else { return refuse(.invalidMessageSize, [0]) }
                tlvs.append((t, v))
            }
            guard r.remaining == 0 else { return refuse(.invalidMessageSize, [0]) }
            guard var session = chip.sessions[id] else { return refuse(.sessionNotExist, [0]) }
            guard session.state != .active else { return refuse(.sessionActive, [0]) }
            var failed: [(UInt8, UCIStatus)] = []
            for (t, v) in tlvs {
                if let problem = UCISession.check(t, v) { failed.append((t, problem)) } else { session.config[t] = v }
            }
            if !failed.isEmpty { counters.badCommands += 1 }
            let status: UCIStatus = failed.isEmpty ? .ok : .invalidParameter
            let wasInit = session.state == .initialized
            if failed.isEmpty, wasInit { session.state = .idle }
            if let a = session.deviceAddress { chip.lastAddress = a }
            chip.sessions[id] = session
            respond(d, m, [status.rawValue, UInt8(failed.count)] + failed.flatMap { [$0.0, $0.1.rawValue] }, time, &out)
            if failed.isEmpty, wasInit { sessionStatus(d, id, .idle, UCIReason.stateChangeByCommand, time, &out) }

        case (UCIGroup.sessionConfig, UCIOpcode.getAppConfig):
            guard let id = r.u32(), let n = r.u8(), let ids = r.take(Int(n)), r.remaining == 0 else {
                return refuse(.invalidMessageSize, [0])
            }
            guard let session = chip.sessions[id] else { return refuse(.sessionNotExist, [0]) }
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
            guard tlvs.count + 2 <= UCIReassembler.maximumMessage else { return refuse(.invalidMessageSize, [0]) }
            respond(d, m, [(missing ? UCIStatus.invalidParameter : .ok).rawValue, UInt8(count)] + tlvs, time, &out)

        case (UCIGroup.sessionConfig, UCIOpcode.sessionCount):
            guard m.payload.isEmpty else { return refuse(.invalidMessageSize, [0]) }
            respond(d, m, [UCIStatus.ok.rawValue, UInt8(chip.sessions.count)], time, &out)

        case (UCIGroup.sessionConfig, UCIOpcode.sessionState):
            guard let id = r.u32(), r.remaining == 0 else { return refuse(.invalidMessageSize, [0]) }
            guard let session = chip.sessions[id] else { return refuse(.sessionNotExist, [0]) }
            respond(d, m, [UCIStatus.ok.rawValue, session.state.rawValue], time, &out)

        case (UCIGroup.sessionConfig, UCIOpcode.multicastList):
            multicastList(m, chip, time, &out)

        case (UCIGroup.sessionControl, UCIOpcode.sessionStart):
            guard let id = r.u32(), r.remaining == 0 else { return refuse(.invalidMessageSize) }
            guard var session = chip.sessions[id] else { return refuse(.sessionNotExist) }
            switch session.state {
            case .active: return refuse(.sessionActive)
            case .initialized, .deinitialized: return refuse(.sessionNotConfigured)
            case .idle: break
            }
            if let reason = session.startProblem() {
                counters.badCommands += 1
                respond(d, m, [UCIStatus.ok.rawValue], time, &out)
                return sessionStatus(d, id, .idle, reason, time, &out)
            }
            session.state = .active
            // pica's hosts wait for a first report within two seconds of starting: the first round is one interval
            // on, when the peer has started too, as a chip's first round is scheduled.
            session.nextRound = time + session.interval
            session.watchdog = time + 1.5 * session.interval + session.roundDuration
            chip.sessions[id] = session
            respond(d, m, [UCIStatus.ok.rawValue], time, &out)
            sessionStatus(d, id, .active, UCIReason.stateChangeByCommand, time, &out)
            updateDeviceState(chip, time, &out)

        case (UCIGroup.sessionControl, UCIOpcode.sessionStop):
            guard let id = r.u32(), r.remaining == 0 else { return refuse(.invalidMessageSize) }
            guard var session = chip.sessions[id] else { return refuse(.sessionNotExist) }
            guard session.state == .active else { return refuse(.rejected) }
            session.state = .idle
            chip.sessions[id] = session
            respond(d, m, [UCIStatus.ok.rawValue], time, &out)
            sessionStatus(d, id, .idle, UCIReason.stateChangeByCommand, time, &out)
            updateDeviceState(chip, time, &out)

        case (UCIGroup.sessionControl, UCIOpcode.rangingCount):
            guard let id = r.u32(), r.remaining == 0 else { return refuse(.invalidMessageSize, [0, 0, 0, 0]) }
            guard let session = chip.sessions[id] else { return refuse(.sessionNotExist, [0, 0, 0, 0]) }
            var w = UCIByteWriter()
            w.u8(UCIStatus.ok.rawValue)
            w.u32(session.rangingCount)
            respond(d, m, w.bytes, time, &out)

        case (UCIGroup.core, UCIOpcode.queryTimestamp):
            guard m.payload.isEmpty else { return refuse(.invalidMessageSize, [UInt8](repeating: 0, count: 8)) }
            var w = UCIByteWriter()
            w.u8(UCIStatus.ok.rawValue)
            w.u64(chip.microseconds(at: time))
            respond(d, m, w.bytes, time, &out)

        case (UCIGroup.sessionConfig, UCIOpcode.queryDataSize):
            guard let id = r.u32(), r.remaining == 0 else { return refuse(.invalidMessageSize) }
            var w = UCIByteWriter()
            w.u32(id)
            guard chip.sessions[id] != nil else {
                counters.badCommands += 1
                w.u8(UCIStatus.sessionNotExist.rawValue)
                w.u16(0)
                return respond(d, m, w.bytes, time, &out)
            }
            w.u8(UCIStatus.ok.rawValue)
            w.u16(UInt16(Self.largestDataPayload))
            respond(d, m, w.bytes, time, &out)

        case (UCIGroup.android, _):
            android(m, chip, time, &out)

        case (UCIGroup.core, _), (UCIGroup.sessionConfig, _), (UCIGroup.sessionControl, _), (UCIGroup.dataControl, _):
            refuse(.unknownOpcode)
        default:
            refuse(.unknownGroup)
        }
    }

    func sessionStatus(_ device: Int, _ id: UInt32, _ state: UCISessionState, _ reason: UInt8, _ time: Double, _ out: inout [UCIOutgoing]) {
        var w = UCIByteWriter()
        w.u32(id)
        w.u8(state.rawValue)
        w.u8(reason)
        notify(device, UCIGroup.sessionConfig, UCIOpcode.sessionStatus, w.bytes, time, &out)
    }

    /// ACTIVE while any session ranges, READY otherwise; a change is notified.
    private func updateDeviceState(_ chip: Chip, _ time: Double, _ out: inout [UCIOutgoing]) {
        let state: UCIDeviceState = chip.sessions.values.contains { $0.state == .active } ? .active : .ready
        guard state != chip.state else { return }
        chip.state = state
        notify(chip.id, UCIGroup.core, UCIOpcode.deviceStatus, [state.rawValue], time, &out)
    }

    /// SESSION_UPDATE_CONTROLLER_MULTICAST_LIST: adds or removes short-address controlees of a one-to-many session.
    private func multicastList(_ m: UCIMessage, _ chip: Chip, _ time: Double, _ out: inout [UCIOutgoing]) {
        var r = UCIByteReader(m.payload)
        func refuse(_ status: UCIStatus) {
            counters.badCommands += 1
            respond(chip.id, m, [status.rawValue], time, &out)
        }
        guard let id = r.u32(), let action = r.u8(), let n = r.u8() else { return refuse(.invalidMessageSize) }
        let keyLength: Int
        switch action {
        case 0, 1: keyLength = 0
        case 2: keyLength = 16
        case 3: keyLength = 32
        default: return refuse(.invalidParameter)
        }
        var entries: [(address: [UInt8], subSession: UInt32)] = []
        for _ in 0..<n {
            guard let a = r.take(2), let sub = r.u32(), r.take(keyLength) != nil else { return refuse(.invalidMessageSize) }
            entries.append((a, sub))
        }
        guard r.remaining == 0 else { return refuse(.invalidMessageSize) }
        guard var session = chip.sessions[id] else { return refuse(.sessionNotExist) }
        guard session.isController, session.multiNode == 1, session.addressLength == 2 else { return refuse(.rejected) }
        var list = session.destinations ?? []
        var statuses: [UInt8] = []
        for e in entries {
            let address = UCIAddress(e.address)!
            if action == 1 {
                if let k = list.firstIndex(of: address) { list.remove(at: k); statuses.append(0) } else { statuses.append(0x03) }
            } else if list.contains(address) {
                statuses.append(0x08)
            } else if list.count >= 8 {
                statuses.append(0x01)
            } else {
                list.append(address)
                statuses.append(0)
            }
        }
        session.config[UCIAppConfigID.destinationMACAddress] = list.flatMap(\.bytes)
        session.config[UCIAppConfigID.numberOfControlees] = [UInt8(list.count)]
        chip.sessions[id] = session
        respond(chip.id, m, [UCIStatus.ok.rawValue], time, &out)
        var w = UCIByteWriter()
        w.u32(id)
        w.u8(UInt8(8 - list.count))
        w.u8(UInt8(entries.count))
        for (e, s) in zip(entries, statuses) {
            w.append(e.address)
            w.u32(e.subSession)
            w.u8(s)
        }
        notify(chip.id, UCIGroup.sessionConfig, UCIOpcode.multicastList, w.bytes, time, &out)
    }

    /// CORE_GET_CAPS_INFO's TLVs.
    /// The largest application data a data packet, or a ranging round, carries, bytes.
    static let largestDataPayload = 1_024

    static let capabilities: [UInt8] = {
        var tlvs: [[UInt8]] = []
        tlvs.append([0x02, 1, 0x03])  // device roles: responder, initiator
        tlvs.append([0x03, 1, 0x0F])  // ranging methods: SS and DS two-way, deferred and not
        tlvs.append([0x05, 1, 0x03])  // multi-node modes: one-to-one, one-to-many
        tlvs.append([0x0B, 1, 0xFF])  // channels 5, 6, 8, 9, 10, 12, 13, 14
        tlvs.append([0x10, 1, 0x01])  // angle of arrival
        tlvs.append([0x11, 1, 0x01])  // extended MAC addresses
        tlvs.append([0x12, 2, 0xFF, 0x00])  // largest control payload, 255
        tlvs.append([0x13, 2, UInt8(largestDataPayload & 0xFF), UInt8(largestDataPayload >> 8)])  // data packet payload
        return [UInt8(tlvs.count)] + tlvs.joined()
    }()
}
