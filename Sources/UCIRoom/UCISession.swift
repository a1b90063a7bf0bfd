import UCI

/// One session of one simulated chip, as the host configured it: its stored TLVs and what the ranging reads of them.
struct UCISession {
    let id: UInt32
    let type: UInt8
    var state: UCISessionState = .initialized
    /// Every TLV the host set, by type, as given.
    var config: [UInt8: [UInt8]] = [:]
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

    init(id: UInt32, type: UInt8) {
        self.id = id
        self.type = type
    }

    /// A message the host gave to send in a round, with the rounds it has waited.
    struct OutgoingData {
        var destination: UInt64
        var sequence: UInt16
        var data: [UInt8]
        var attempts = 0
    }

    var isController: Bool { byte(UCIAppConfigID.deviceType, default: 1) == 1 }
    var macAddressMode: UInt8 { byte(UCIAppConfigID.macAddressMode, default: 0) }
    var addressLength: Int { macAddressMode == 0 ? 2 : 8 }
    var deviceAddress: UCIAddress? { config[UCIAppConfigID.deviceMACAddress].flatMap(UCIAddress.init) }
    var channel: UInt8 { byte(UCIAppConfigID.channelNumber, default: 9) }
    var multiNode: UInt8 { byte(UCIAppConfigID.multiNodeMode, default: 0) }
    var maxRetry: Int { Int(u16(UCIAppConfigID.maxRoundRetry, default: 0)) }
    var reportsDataTransfer: Bool { byte(UCIAppConfigID.dataTransferStatusNotificationConfig, default: 0) == 1 }

    /// The destinations, cut by the session's address length; `nil` when the list does not divide into them.
    var destinations: [UCIAddress]? {
        guard let raw = config[UCIAppConfigID.destinationMACAddress] else { return [] }
        let n = addressLength
        guard raw.count % n == 0 else { return nil }
        return stride(from: 0, to: raw.count, by: n).compactMap { UCIAddress(Array(raw[$0..<($0 + n)])) }
    }

    /// The ranging interval, seconds (RANGING_DURATION, ms; 200 by default).
    var interval: Double { Double(u32(UCIAppConfigID.rangingDuration, default: 200)) / 1000 }
    /// One slot, seconds (SLOT_DURATION in RSTU of 416 / 499.2 MHz; 2,400 by default, 2 ms).
    var slot: Double { Double(u16(UCIAppConfigID.slotDuration, default: 2400)) * UCISession.rstu }
    var slotsPerRound: Int { Int(byte(UCIAppConfigID.slotsPerRound, default: 25)) }
    var roundDuration: Double { Double(slotsPerRound) * slot }

    /// The ranging scheduling time unit.
    static let rstu = 416 / 499.2e6

    private func byte(_ id: UInt8, default d: UInt8) -> UInt8 {
        guard let v = config[id], v.count == 1 else { return d }
        return v[0]
    }

    private func u16(_ id: UInt8, default d: UInt16) -> UInt16 {
        guard let v = config[id], v.count == 2 else { return d }
        return UInt16(v[0]) | UInt16(v[1]) << 8
    }

    private func u32(_ id: UInt8, default d: UInt32) -> UInt32 {
        guard let v = config[id], v.count == 4 else { return d }
        return v.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

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
        default: return v.count <= 255 ? nil : .invalidParameter
        }
    }

    /// Why the session cannot start as configured: a SESSION_STATUS_NTF reason code, or `nil` when it can.
    func startProblem() -> UInt8? {
        guard let own = deviceAddress, own.bytes.count == addressLength else { return UCIReason.macAddressModeNotSupported }
        guard let dst = destinations else { return UCIReason.invalidDestinationList }
        if isController {
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
