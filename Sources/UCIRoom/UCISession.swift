import UCI

/// One session of one simulated chip, as the host configured it: its stored TLVs and what the ranging reads of them.
struct UCISession {
    /// The session id the host gave, which pairs a controller's session with its controlees'.
    let id: UInt32
    /// What the host names it by in later commands, and the chip in its notifications: the id in UCI 1.1, the handle
    /// the chip gave in 2.0.
    let token: UInt32
    let type: UInt8
    /// Whether OWR-AoA and DL-TDoA usages run their own rounds (UCIVersion.servesOneWayRounds).
    let servesOneWayRounds: Bool
    var state: UCISessionState = .initialized
    /// Every TLV the host set, by type, as given.
    var config: [UInt8: [UInt8]] = [:] {
        didSet { parsed = Parsed(config) }
    }
    /// What the ranging reads of the configuration, parsed once per change: rounds read it hundreds of times a
    /// second.
    private(set) var parsed = Parsed([:])
    /// SESSION_INFO_NTF's sequence number: one more for each notification.
    var sequence: UInt32 = 0
    /// Rounds this session took part in since it was initialised.
    var rangingCount: UInt32 = 0
    /// When a controller's next round starts, seconds of room time.
    var nextRound = 0.0
    /// When a controlee that heard no round reports a timeout.
    var watchdog = 0.0
    /// Data the host gave to send, oldest first.
    var outbox: [OutgoingData] = []
    /// Who this session's controller is, for a controlee, as the last round found it.
    var lastController: UCIAddress?

    init(id: UInt32, token: UInt32, type: UInt8, servesOneWayRounds: Bool = true) {
        self.id = id
        self.token = token
        self.type = type
        self.servesOneWayRounds = servesOneWayRounds
    }

    /// A message the host gave to send in a round, with the rounds it has waited.
    struct OutgoingData {
        var destination: UInt64
        var sequence: UInt16
        var data: [UInt8]
        var attempts = 0
    }

    var isController: Bool { parsed.isController }
    var macAddressMode: UInt8 { parsed.macAddressMode }
    var addressLength: Int { macAddressMode == 0 ? 2 : 8 }
    var deviceAddress: UCIAddress? { parsed.deviceAddress }
    var channel: UInt8 { parsed.channel }
    var multiNode: UInt8 { parsed.multiNode }
    var maxRetry: Int { parsed.maxRetry }
    var reportsDataTransfer: Bool { parsed.reportsDataTransfer }
    /// The destinations, cut by the session's address length; `nil` when the list does not divide into them.
    var destinations: [UCIAddress]? { parsed.destinations }
    var interval: Double { parsed.interval }
    /// From one round to the next, seconds: the interval, and the blocks skipped after it.
    var roundPeriod: Double { parsed.interval * Double(parsed.blockStride + 1) }
    /// OWR-AoA: a controller's rounds are one advertisement each, which its observers hear and take the angle of.
    var isOneWayAoA: Bool { servesOneWayRounds && parsed.usage == UCIRangingUsage.owrAoA }
    /// DL-TDoA: a controller's rounds are DT-anchors ranging each other, which its tags hear.
    var isDLTDoA: Bool { servesOneWayRounds && parsed.usage == UCIRangingUsage.dlTDoA }
    /// A DT-tag (DEVICE_ROLE 8) hears the anchors' messages and answers none.
    var isTag: Bool { isDLTDoA && parsed.role == 8 }
    /// An observer or a tag answers nothing and reports only what it hears, so it keeps no watchdog.
    var listensOnly: Bool { !isController && (isOneWayAoA || isTag) }
    /// Active and not suspended: it runs its rounds, or answers its controller's.
    var isRanging: Bool { state == .active && !parsed.suspended }
    var slot: Double { parsed.slot }
    var slotsPerRound: Int { parsed.slotsPerRound }
    var roundDuration: Double { Double(slotsPerRound) * slot }

    struct Parsed {
        let isController: Bool
        let macAddressMode: UInt8
        let deviceAddress: UCIAddress?
        let channel: UInt8
        let multiNode: UInt8
        let maxRetry: Int
        let reportsDataTransfer: Bool
        let destinations: [UCIAddress]?
        /// The ranging interval, seconds (RANGING_DURATION, ms; 200 by default).
        let interval: Double
        /// One slot, seconds (SLOT_DURATION in RSTU of 416 / 499.2 MHz; 2,400 by default, 2 ms).
        let slot: Double
        let slotsPerRound: Int
        let reportsInfo: Bool
        /// RANGING_ROUND_USAGE; DS-TWR deferred (2) by default.
        let usage: UInt8
        /// DEVICE_ROLE; 0xFF when not set.
        let role: UInt8
        /// RNG_DATA_NTF 2: only measurements from `near` to `far` centimetres are reported.
        let reportsOnlyInProximity: Bool
        let near: Int
        let far: Int
        /// Ranging blocks skipped after each round (BLOCK_STRIDE_LENGTH).
        let blockStride: Int
        /// SUSPEND_RANGING_ROUNDS 1: an active session that runs no round and hears none until resumed.
        let suspended: Bool

        init(_ config: [UInt8: [UInt8]]) {
            func byte(_ id: UInt8, _ d: UInt8) -> UInt8 {
                guard let v = config[id], v.count == 1 else { return d }
                return v[0]
            }
            func number(_ id: UInt8, _ size: Int, _ d: Int) -> Int {
                guard let v = config[id], v.count == size else { return d }
                return v.reversed().reduce(0) { $0 << 8 | Int($1) }
            }
            isController = byte(UCIAppConfigID.deviceType, 1) == 1
            macAddressMode = byte(UCIAppConfigID.macAddressMode, 0)
            deviceAddress = config[UCIAppConfigID.deviceMACAddress].flatMap(UCIAddress.init)
            channel = byte(UCIAppConfigID.channelNumber, 9)
            multiNode = byte(UCIAppConfigID.multiNodeMode, 0)
            maxRetry = number(UCIAppConfigID.maxRoundRetry, 2, 0)
            reportsDataTransfer = byte(UCIAppConfigID.dataTransferStatusNotificationConfig, 0) == 1
            reportsInfo = byte(UCIAppConfigID.sessionInfoNotificationConfig, 1) != 0
            usage = byte(UCIAppConfigID.rangingRoundUsage, 2)
            role = byte(UCIAppConfigID.deviceRole, 0xFF)
            reportsOnlyInProximity = byte(UCIAppConfigID.sessionInfoNotificationConfig, 1) == 2
            near = number(UCIAppConfigID.proximityNear, 2, 0)
            far = number(UCIAppConfigID.proximityFar, 2, 20_000)
            blockStride = Int(byte(UCIAppConfigID.blockStrideLength, 0))
            suspended = byte(UCIAppConfigID.suspendRangingRounds, 0) == 1
            interval = Double(number(UCIAppConfigID.rangingDuration, 4, 200)) / 1000
            slot = Double(number(UCIAppConfigID.slotDuration, 2, 2400)) * UCISession.rstu
            slotsPerRound = Int(byte(UCIAppConfigID.slotsPerRound, 25))
            if let raw = config[UCIAppConfigID.destinationMACAddress] {
                let n = macAddressMode == 0 ? 2 : 8
                destinations = raw.count % n == 0
                    ? stride(from: 0, to: raw.count, by: n).compactMap { UCIAddress(Array(raw[$0..<($0 + n)])) } : nil
            } else {
                destinations = []
            }
        }
    }

    /// The ranging scheduling time unit.
    static let rstu = 416 / 499.2e6

    /// What a host may change while the session ranges (what Android's reconfiguration sets, AOSP's `uwb_core`): the
    /// interval, the reports and their bounds, the block stride, suspension. Everything else waits for the session to
    /// stop.
    static let changesWhileActive: Set<UInt8> = [
        UCIAppConfigID.rangingDuration, UCIAppConfigID.sessionInfoNotificationConfig, UCIAppConfigID.proximityNear, UCIAppConfigID.proximityFar,
        UCIAppConfigID.aoaBound, UCIAppConfigID.blockStrideLength, UCIAppConfigID.suspendRangingRounds,
    ]

    /// Checks one TLV the host sets: `nil` when taken, else the status its entry in the response carries.
    static func check(_ id: UInt8, _ v: [UInt8]) -> UCIStatus? {
        func oneOf(_ allowed: ClosedRange<UInt8>) -> UCIStatus? {
            guard v.count == 1 else { return .invalidParameter }
            return allowed.contains(v[0]) ? nil : .invalidRange
        }
        switch id {
        case UCIAppConfigID.deviceType: return oneOf(0...1)
        case UCIAppConfigID.rangingRoundUsage: return oneOf(1...8)
        case UCIAppConfigID.multiNodeMode: return oneOf(0...1)
        case UCIAppConfigID.channelNumber:
            guard v.count == 1 else { return .invalidParameter }
            return [5, 6, 8, 9, 10, 12, 13, 14].contains(v[0]) ? nil : .invalidRange
        case UCIAppConfigID.numberOfControlees: return oneOf(1...8)
        case UCIAppConfigID.deviceMACAddress: return v.count == 2 || v.count == 8 ? nil : .invalidParameter
        case UCIAppConfigID.destinationMACAddress:
            return !v.isEmpty && v.count <= 64 && (v.count % 2 == 0) ? nil : .invalidParameter
        case UCIAppConfigID.slotDuration:
            guard v.count == 2 else { return .invalidParameter }
            // From a quarter of a millisecond to 40 ms.
            let rstu = Int(v[0]) | Int(v[1]) << 8
            return (300...48_000).contains(rstu) ? nil : .invalidRange
        case UCIAppConfigID.rangingDuration:
            guard v.count == 4 else { return .invalidParameter }
            let ms = v.reversed().reduce(0) { $0 << 8 | Int($1) }
            return (1...60_000).contains(ms) ? nil : .invalidRange
        case UCIAppConfigID.deviceRole: return oneOf(0...8)
        case UCIAppConfigID.slotsPerRound: return oneOf(3...255)
        case UCIAppConfigID.scheduleMode: return oneOf(0...1)
        case UCIAppConfigID.macAddressMode: return oneOf(0...2)
        case UCIAppConfigID.dataTransferStatusNotificationConfig: return oneOf(0...1)
        // Off, on, or within the proximity bounds; 2.0's triggers on angle bounds and on edges are not served.
        case UCIAppConfigID.sessionInfoNotificationConfig: return oneOf(0...2)
        case UCIAppConfigID.proximityNear, UCIAppConfigID.proximityFar: return v.count == 2 ? nil : .invalidParameter
        case UCIAppConfigID.blockStrideLength: return v.count == 1 ? nil : .invalidParameter
        case UCIAppConfigID.suspendRangingRounds: return oneOf(0...1)
        default: return v.count <= 255 ? nil : .invalidParameter
        }
    }

    /// Why the session cannot start as configured: a SESSION_STATUS_NTF reason code, or `nil` when it can.
    func startProblem() -> UInt8? {
        guard let own = deviceAddress, own.bytes.count == addressLength else { return UCIReason.macAddressModeNotSupported }
        guard let dst = destinations else { return UCIReason.invalidDestinationList }
        if isController && isOneWayAoA {
            // An advertiser names no one: every observer of its session that names it (or no one) hears it.
            guard slotsPerRound >= 1 else { return UCIReason.insufficientSlotsPerRound }
        } else if isController {
            guard (1...8).contains(dst.count) else { return UCIReason.invalidNumberOfControlees }
            if let n = config[UCIAppConfigID.numberOfControlees], n.count == 1, Int(n[0]) != dst.count {
                return UCIReason.invalidNumberOfControlees
            }
            if multiNode == 0, dst.count != 1 { return UCIReason.invalidNumberOfControlees }
            guard slotsPerRound >= dst.count + 2 else { return UCIReason.insufficientSlotsPerRound }
        }
        guard roundDuration <= interval + 1e-9 else { return UCIReason.invalidRangingDuration }
        return nil
    }
}
