import Foundation

// `MCSessionState` (`.notConnected`, `.connecting`, `.connected`), `MCSessionSendDataMode` (`.reliable`: arrives
// once, whole and in order, while the peers stay connected, sent again over the lossy network until acknowledged;
// `.unreliable`: one datagram, lost when the network loses it, at most about 1,000 bytes) and
// `MCEncryptionPreference` (accepted for the API's sake: the simulated network neither encrypts nor refuses) are
// declared in C as Apple declares them (module FrameworkEnums), so that Swift treats them as non-frozen.
@_exported import FrameworkEnums

// The case's name where an app prints a state (a C enum prints as its raw value).
extension MCSessionState: @retroactive CustomStringConvertible {
    public var description: String {
        switch self {
        case .notConnected: "notConnected"
        case .connecting: "connecting"
        case .connected: "connected"
        @unknown default: "MCSessionState(rawValue: \(rawValue))"
        }
    }
}

extension MCSessionSendDataMode: @retroactive CustomStringConvertible {
    public var description: String {
        switch self {
        case .reliable: "reliable"
        case .unreliable: "unreliable"
        @unknown default: "MCSessionSendDataMode(rawValue: \(rawValue))"
        }
    }
}

extension MCEncryptionPreference: @retroactive CustomStringConvertible {
    public var description: String {
        switch self {
        case .optional: "optional"
        case .required: "required"
        case .none: "none"
        @unknown default: "MCEncryptionPreference(rawValue: \(rawValue))"
        }
    }
}

/// The smallest and largest number of peers in a session, the local one included, as Apple's framework allows.
public let kMCSessionMinimumNumberOfPeers = 2
public let kMCSessionMaximumNumberOfPeers = 8

/// The domain of ``MCError``.
public let MCErrorDomain = "MCErrorDomain"

/// What went wrong, shaped like Apple's: a code, compared as `error.code == .notConnected`.
public struct MCError: Error, Sendable, Equatable, Hashable, CustomNSError, CustomStringConvertible {
    /// Apple's codes, with Apple's values.
    public enum Code: Int, Sendable, Equatable, Hashable {
        case unknown = 0
        case notConnected = 1
        case invalidParameter = 2
        case unsupported = 3
        case timedOut = 4
        case cancelled = 5
        case unavailable = 6
    }

    public let code: Code
    /// What happened, for people.
    public let detail: String

    public init(_ code: Code, detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public static var errorDomain: String { MCErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }
    public var description: String { "MCError \(code) (\(code.rawValue)): \(detail)" }

    public static var notConnected: Code { .notConnected }
    public static var invalidParameter: Code { .invalidParameter }
    public static var unsupported: Code { .unsupported }
    public static var timedOut: Code { .timedOut }
    public static var cancelled: Code { .cancelled }
    public static var unavailable: Code { .unavailable }

}

/// The rules Apple's framework sets on a service type: 1 to 15 characters, lowercase ASCII letters, digits and
/// hyphens, at least one letter, no hyphen first, last or beside another.
func serviceTypeProblem(_ type: String) -> String? {
    let chars = Array(type.utf8)
    guard (1...15).contains(chars.count) else { return "a service type is 1 to 15 characters, got \(chars.count)" }
    let allowed = chars.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    guard allowed else { return "a service type holds lowercase ASCII letters, digits and hyphens only: \"\(type)\"" }
    guard chars.contains(where: { (0x61...0x7A).contains($0) }) else { return "a service type needs a letter: \"\(type)\"" }
    guard chars.first != 0x2D, chars.last != 0x2D, !type.contains("--") else {
        return "a service type's hyphens stand between other characters: \"\(type)\""
    }
    return nil
}

extension MCError.Code {
    /// `catch MCError.notConnected` matches an error with that code.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? MCError)?.code == code
    }
}
