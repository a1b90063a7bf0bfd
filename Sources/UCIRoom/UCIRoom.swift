import Air
import DeviceInterface
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
    /// Data messages addressed to no peer of a session that has one, carried to that peer.
    package var dataMisaddressed = 0
    /// Links whose random generator could not be made (GSL out of memory): their exchanges are reported lost.
    package var radioFailures = 0

    package init() {}
}

/// The room's settings: its seed, its radio and its air.
package struct UCIRoomSettings: Sendable {
    package var seed: UInt64 = 1
    package var radio = RadioConfiguration()
    /// The simulation's own medium: how long a frame is on the air, how far it disturbs another receiver, the
    /// capture threshold (docs/airtime.md). Frames of two rounds collide only where they overlap in time, by the rule
    /// a run's exchanges follow (`FrameReception`).
    package var medium = Medium()
    /// Sessions one chip holds at once.
    package var sessionsPerDevice = 8
    /// The UCI the chips speak; 2.0, as current Android's stack expects.
    package var version = UCIVersion.v2_0
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
    /// The radio configuration every link shares, checked once.
    let shared: SharedRadioConfiguration
    let reception: FrameReception
    /// Rounds already run, kept a second so that later rounds see what shared their air.
    var airLog: [AirRound] = []
    var controlees: [ControleeKey: [Participant]] = [:]
    /// The ranging sessions that only listen (OWR-AoA observers), by session id, lowest chip first.
    var listeners: [UInt32: [Participant]] = [:]
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

    /// A round as an onlooker sees it (the web page): who ranged whom, and what each exchange measured.
    package struct RoundSeen: Sendable {
        package let controller: Int
        package let token: UInt32
        package let time: Double
        /// Each controlee (or anchor) that took part: its chip, the report's status (0 OK), the distance in cm.
        package let exchanges: [(device: Int, status: UInt8, distance: UInt16)]
    }

    /// Called after each round, on the room's caller, for onlookers; `nil` by default.
    package var onRound: ((RoundSeen) -> Void)?

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
        try settings.medium.validate()
        self.settings = settings
        shared = try SharedRadioConfiguration(settings.radio)
        reception = FrameReception(medium: settings.medium, pathLossExponent: settings.radio.pathLossExponent,
                                   nearestDistance: settings.radio.nearestPathDistance)
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
        /// An anchor has no host: placed by the web API, it answers every round that names its address.
        let isAnchor: Bool
        /// pica names a chip by its number from 0 and never renames it.
        let namedAsPica: Bool
        /// The last session handle given (UCI 2.0); handles start at 1 on each chip and are never reused.
        private var lastHandle: UInt32 = 0

        func newHandle() -> UInt32 {
            lastHandle &+= 1
            return lastHandle
        }

        init(id: Int, pose: Pose, radio: DeviceRadio, since: Double, isAnchor: Bool = false, namedAsPica: Bool = false) {
            self.id = id
            self.pose = pose
            self.radio = radio
            self.since = since
            self.isAnchor = isAnchor
            self.namedAsPica = namedAsPica
        }

        /// The default address, before any session gave one: the chip's number from 1 (pica: from 0), two bytes.
        var defaultAddress: UCIAddress {
            let n = namedAsPica ? id : id + 1
            return UCIAddress.short(UInt16(truncatingIfNeeded: n))
        }
        var address: UCIAddress { namedAsPica ? defaultAddress : lastAddress ?? defaultAddress }
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
        chips[id] = Chip(id: id, pose: defaultPose(id), radio: radio, since: time, namedAsPica: settings.version == .pica)
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

    /// Whether `device` is an anchor rather than a host's chip.
    package func isAnchor(_ device: Int) -> Bool { chips[device]?.isAnchor ?? false }

    /// Anchors are numbered apart from the hosts' chips, which keep their numbers in connection order.
    static let firstAnchor = 1_000_000
    private var nextAnchor = UCIRoom.firstAnchor

    /// Places an anchor named `address` (pica's `/create-anchor`): a responder without a host, which answers the
    /// rounds of every controller that names it. `nil` when a chip or an anchor already has that name.
    package func createAnchor(_ address: UCIAddress, at pose: Pose, time: Double) throws -> Int? {
        guard device(named: address) == nil else { return nil }
        let id = nextAnchor
        nextAnchor += 1
        let radio = try DeviceRadio(id: UInt64(id), runSeed: settings.seed, configuration: settings.radio)
        let anchor = Chip(id: id, pose: pose, radio: radio, since: time, isAnchor: true)
        anchor.lastAddress = address
        chips[id] = anchor
        controleesDirty = true
        return id
    }

    /// Takes the anchor named `address` away; `nil` when no anchor has that name.
    package func destroyAnchor(_ address: UCIAddress) -> Int? {
        guard let id = device(named: address), chips[id]?.isAnchor == true else { return nil }
        disconnect(id)
        return id
    }

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

    /// The anchor a round's destination names, if one does.
    func anchor(named address: UCIAddress) -> Chip? {
        chips.values.filter { $0.isAnchor && $0.address == address }.min { $0.id < $1.id }
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

    /// Each group's commands are answered in its own file: UCIRoom+Core, UCIRoom+Sessions, UCIRoom+Android.
    private func command(_ m: UCIMessage, _ chip: Chip, _ time: Double, _ out: inout [UCIOutgoing]) {
        controleesDirty = true
        switch m.group {
        case UCIGroup.core: core(m, chip, time, &out)
        case UCIGroup.sessionConfig: sessionConfig(m, chip, time, &out)
        case UCIGroup.sessionControl: sessionControl(m, chip, time, &out)
        case UCIGroup.android: android(m, chip, time, &out)
        case UCIGroup.dataControl: refuse(m, chip, .unknownOpcode, time, &out)
        default: refuse(m, chip, .unknownGroup, time, &out)
        }
    }

    /// A command answered with a failure `status` (and the rest of its response's fields, zeroed, in `extra`),
    /// counted as a refusal for its state or for its content.
    func refuse(_ m: UCIMessage, _ chip: Chip, _ status: UCIStatus, _ time: Double, _ out: inout [UCIOutgoing],
                _ extra: [UInt8] = []) {
        if status == .sessionActive || status == .rejected || status == .sessionNotConfigured {
            counters.commandsInWrongState += 1
        } else {
            counters.badCommands += 1
        }
        respond(chip.id, m, [status.rawValue] + extra, time, &out)
    }

    func sessionStatus(_ device: Int, _ id: UInt32, _ state: UCISessionState, _ reason: UInt8, _ time: Double, _ out: inout [UCIOutgoing]) {
        var w = UCIByteWriter()
        w.u32(id)
        w.u8(state.rawValue)
        w.u8(reason)
        notify(device, UCIGroup.sessionConfig, UCIOpcode.sessionStatus, w.bytes, time, &out)
    }

    /// ACTIVE while any session ranges, READY otherwise; a change is notified.
    func updateDeviceState(_ chip: Chip, _ time: Double, _ out: inout [UCIOutgoing]) {
        let state: UCIDeviceState = chip.sessions.values.contains { $0.state == .active } ? .active : .ready
        guard state != chip.state else { return }
        chip.state = state
        notify(chip.id, UCIGroup.core, UCIOpcode.deviceStatus, [state.rawValue], time, &out)
    }
}
