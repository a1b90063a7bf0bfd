/// The numbers of the UCI subset this endpoint serves (FiRa UCI 2.0 with the 1.1 forms pica answers in:
/// docs/uci.md lists them).
public enum UCIGroup {
    public static let core: UInt8 = 0
    public static let sessionConfig: UInt8 = 1
    public static let sessionControl: UInt8 = 2
    public static let dataControl: UInt8 = 3
}

public enum UCIOpcode {
    // Core.
    public static let deviceReset: UInt8 = 0
    public static let deviceStatus: UInt8 = 1
    public static let deviceInfo: UInt8 = 2
    public static let capsInfo: UInt8 = 3
    public static let setConfig: UInt8 = 4
    public static let getConfig: UInt8 = 5
    public static let genericError: UInt8 = 7
    // Session configuration.
    public static let sessionInit: UInt8 = 0
    public static let sessionDeinit: UInt8 = 1
    public static let sessionStatus: UInt8 = 2
    public static let setAppConfig: UInt8 = 3
    public static let getAppConfig: UInt8 = 4
    public static let sessionCount: UInt8 = 5
    public static let sessionState: UInt8 = 6
    public static let multicastList: UInt8 = 7
    // Session control.
    public static let sessionStart: UInt8 = 0
    public static let sessionInfo: UInt8 = 0
    public static let sessionStop: UInt8 = 1
    public static let rangingCount: UInt8 = 3
    public static let dataCredit: UInt8 = 4
    public static let dataTransferStatus: UInt8 = 5
}

/// The data packet formats (the low four bits of a data packet's first byte).
public enum UCIDataFormat {
    public static let send: UInt8 = 1
    public static let receive: UInt8 = 2
}

/// Status codes, as responses and measurements carry them.
public enum UCIStatus: UInt8, Sendable {
    case ok = 0x00
    case rejected = 0x01
    case failed = 0x02
    case syntaxError = 0x03
    case invalidParameter = 0x04
    case invalidRange = 0x05
    case invalidMessageSize = 0x06
    case unknownGroup = 0x07
    case unknownOpcode = 0x08
    case readOnly = 0x09
    case sessionNotExist = 0x11
    case sessionDuplicate = 0x12
    case sessionActive = 0x13
    case maxSessionsExceeded = 0x14
    case sessionNotConfigured = 0x15
    case activeSessionsOngoing = 0x16
    case multicastListFull = 0x17
    case addressNotFound = 0x18
    case addressAlreadyPresent = 0x19
    case rangingRxTimeout = 0x21
    case rangingRxPhyDecodeFailed = 0x22
    case dataMaxTxPSDUSizeExceeded = 0x30
}

public enum UCIDeviceState: UInt8, Sendable {
    case ready = 0x01
    case active = 0x02
    case error = 0xFF
}

public enum UCISessionState: UInt8, Sendable {
    case initialized = 0x00
    case deinitialized = 0x01
    case active = 0x02
    case idle = 0x03
}

/// Reason codes of SESSION_STATUS_NTF that this endpoint sends.
public enum UCIReason {
    public static let stateChangeByCommand: UInt8 = 0x00
    public static let macAddressModeNotSupported: UInt8 = 0x22
    public static let invalidRangingDuration: UInt8 = 0x23
    public static let insufficientSlotsPerRound: UInt8 = 0x21
    public static let invalidNumberOfControlees: UInt8 = 0x33
    public static let invalidDestinationList: UInt8 = 0x35
}

/// The application configuration parameters (TLV types of SESSION_SET_APP_CONFIG) this endpoint reads; every other
/// type is accepted and stored as given.
public enum UCIAppConfigID {
    public static let deviceType: UInt8 = 0x00
    public static let rangingRoundUsage: UInt8 = 0x01
    public static let stsConfig: UInt8 = 0x02
    public static let multiNodeMode: UInt8 = 0x03
    public static let channelNumber: UInt8 = 0x04
    public static let numberOfControlees: UInt8 = 0x05
    public static let deviceMACAddress: UInt8 = 0x06
    public static let destinationMACAddress: UInt8 = 0x07
    public static let slotDuration: UInt8 = 0x08
    public static let rangingDuration: UInt8 = 0x09
    public static let aoaResultRequest: UInt8 = 0x0D
    public static let sessionInfoNotificationConfig: UInt8 = 0x0E
    public static let deviceRole: UInt8 = 0x11
    public static let rssiReporting: UInt8 = 0x13
    public static let slotsPerRound: UInt8 = 0x1B
    public static let scheduleMode: UInt8 = 0x22
    public static let macAddressMode: UInt8 = 0x26
    public static let maxRoundRetry: UInt8 = 0x2A
    public static let dataTransferStatusNotificationConfig: UInt8 = 0x47
}

/// Session types of SESSION_INIT.
public enum UCISessionType {
    public static let ranging: UInt8 = 0x00
    public static let rangingAndInBandData: UInt8 = 0x01
    public static let dataTransfer: UInt8 = 0x02
    public static let rangingOnlyPhase: UInt8 = 0x03
    public static let inBandDataPhase: UInt8 = 0x04
    public static let rangingWithDataPhase: UInt8 = 0x05

    /// The types a session of this endpoint may have.
    public static let served: Set<UInt8> = [0, 1, 2, 3, 4, 5]
}
