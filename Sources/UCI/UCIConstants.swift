/// The numbers of the UCI subset this endpoint serves (FiRa UCI 2.0 with the 1.1 forms pica answers in:
/// docs/uci.md lists them).
package enum UCIGroup {
    package static let core: UInt8 = 0
    package static let sessionConfig: UInt8 = 1
    package static let sessionControl: UInt8 = 2
    package static let dataControl: UInt8 = 3
    /// Android's vendor group: what Android's UWB service sends beside FiRa's commands.
    package static let android: UInt8 = 0x0C
}

package enum UCIOpcode {
    // Core.
    package static let deviceReset: UInt8 = 0
    package static let deviceStatus: UInt8 = 1
    package static let deviceInfo: UInt8 = 2
    package static let capsInfo: UInt8 = 3
    package static let setConfig: UInt8 = 4
    package static let getConfig: UInt8 = 5
    package static let genericError: UInt8 = 7
    package static let queryTimestamp: UInt8 = 8
    // Session configuration.
    package static let sessionInit: UInt8 = 0
    package static let sessionDeinit: UInt8 = 1
    package static let sessionStatus: UInt8 = 2
    package static let setAppConfig: UInt8 = 3
    package static let getAppConfig: UInt8 = 4
    package static let sessionCount: UInt8 = 5
    package static let sessionState: UInt8 = 6
    package static let multicastList: UInt8 = 7
    package static let queryDataSize: UInt8 = 0x0B
    // Session control.
    package static let sessionStart: UInt8 = 0
    package static let sessionInfo: UInt8 = 0
    package static let sessionStop: UInt8 = 1
    package static let rangingCount: UInt8 = 3
    package static let dataCredit: UInt8 = 4
    package static let dataTransferStatus: UInt8 = 5
    // Android's vendor group.
    package static let androidGetPowerStats: UInt8 = 0
    package static let androidSetCountryCode: UInt8 = 1
}

/// The data packet formats (the low four bits of a data packet's first byte).
package enum UCIDataFormat {
    package static let send: UInt8 = 1
    package static let receive: UInt8 = 2
}

/// Status codes, as responses and measurements carry them.
package enum UCIStatus: UInt8, Sendable {
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

package enum UCIDeviceState: UInt8, Sendable {
    case ready = 0x01
    case active = 0x02
    case error = 0xFF
}

package enum UCISessionState: UInt8, Sendable {
    case initialized = 0x00
    case deinitialized = 0x01
    case active = 0x02
    case idle = 0x03
}

/// Reason codes of SESSION_STATUS_NTF that this endpoint sends.
package enum UCIReason {
    package static let stateChangeByCommand: UInt8 = 0x00
    package static let macAddressModeNotSupported: UInt8 = 0x22
    package static let invalidRangingDuration: UInt8 = 0x23
    package static let insufficientSlotsPerRound: UInt8 = 0x21
    package static let invalidNumberOfControlees: UInt8 = 0x33
    package static let invalidDestinationList: UInt8 = 0x35
}

/// The application configuration parameters (TLV types of SESSION_SET_APP_CONFIG) this endpoint reads; every other
/// type is accepted and stored as given.
package enum UCIAppConfigID {
    package static let deviceType: UInt8 = 0x00
    package static let rangingRoundUsage: UInt8 = 0x01
    package static let stsConfig: UInt8 = 0x02
    package static let multiNodeMode: UInt8 = 0x03
    package static let channelNumber: UInt8 = 0x04
    package static let numberOfControlees: UInt8 = 0x05
    package static let deviceMACAddress: UInt8 = 0x06
    package static let destinationMACAddress: UInt8 = 0x07
    package static let slotDuration: UInt8 = 0x08
    package static let rangingDuration: UInt8 = 0x09
    package static let aoaResultRequest: UInt8 = 0x0D
    package static let sessionInfoNotificationConfig: UInt8 = 0x0E
    package static let proximityNear: UInt8 = 0x0F
    package static let proximityFar: UInt8 = 0x10
    package static let deviceRole: UInt8 = 0x11
    package static let rssiReporting: UInt8 = 0x13
    package static let aoaBound: UInt8 = 0x1D
    package static let slotsPerRound: UInt8 = 0x1B
    package static let scheduleMode: UInt8 = 0x22
    package static let macAddressMode: UInt8 = 0x26
    package static let maxRoundRetry: UInt8 = 0x2A
    package static let blockStrideLength: UInt8 = 0x2D
    package static let suspendRangingRounds: UInt8 = 0x36
    package static let dataTransferStatusNotificationConfig: UInt8 = 0x47
}

/// RANGING_ROUND_USAGE values that change what a round is.
package enum UCIRangingUsage {
    /// One-way ranging for angle of arrival: an advertiser's blinks, each observer's angle.
    package static let owrAoA: UInt8 = 0x06
    /// Downlink TDoA: anchors range each other, tags listen to their messages.
    package static let dlTDoA: UInt8 = 0x05
}

/// Session types of SESSION_INIT.
package enum UCISessionType {
    package static let ranging: UInt8 = 0x00
    package static let rangingAndInBandData: UInt8 = 0x01
    package static let dataTransfer: UInt8 = 0x02
    package static let rangingOnlyPhase: UInt8 = 0x03
    package static let inBandDataPhase: UInt8 = 0x04
    package static let rangingWithDataPhase: UInt8 = 0x05

    /// The types a session of this endpoint may have.
    package static let served: Set<UInt8> = [0, 1, 2, 3, 4, 5]
}
