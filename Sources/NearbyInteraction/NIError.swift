import Foundation
import NearbySimulator

/// The domain of ``NIError``.
public let NIErrorDomain = "com.apple.NearbyInteraction"

/// Why a session was invalidated, shaped like Apple's: a code, compared as `error.code == .sessionFailed` or
/// matched as `catch NIError.sessionFailed`.
public struct NIError: Error, Sendable, Equatable, Hashable, CustomNSError, CustomStringConvertible {
    /// Apple's codes, with Apple's values.
    public enum Code: Int, Sendable, Equatable, Hashable {
        case unsupportedPlatform = -5889
        case invalidConfiguration = -5888
        case sessionFailed = -5887
        case resourceUsageTimeout = -5886
        case activeSessionsLimitExceeded = -5885
        case userDidNotAllow = -5884
        case invalidARConfiguration = -5883
        case accessoryPeerDeviceUnavailable = -5882
        case incompatiblePeerDevice = -5881
        case activeExtendedDistanceSessionsLimitExceeded = -5880
    }

    public let code: Code
    /// What happened, for people.
    public let detail: String

    public init(_ code: Code, detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public static var errorDomain: String { NIErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }
    public var description: String { "NIError \(code) (\(code.rawValue)): \(detail)" }

    public static var unsupportedPlatform: Code { .unsupportedPlatform }
    public static var invalidConfiguration: Code { .invalidConfiguration }
    public static var sessionFailed: Code { .sessionFailed }
    public static var resourceUsageTimeout: Code { .resourceUsageTimeout }
    public static var activeSessionsLimitExceeded: Code { .activeSessionsLimitExceeded }
    public static var userDidNotAllow: Code { .userDidNotAllow }


    /// The simulator's session error as Apple's framework would report it.
    init(_ error: SessionError) {
        switch error.code {
        case .invalidConfiguration: self.init(.invalidConfiguration, detail: error.detail)
        case .activeSessionsLimitExceeded: self.init(.activeSessionsLimitExceeded, detail: error.detail)
        case .sessionFailed, .invitationTimedOut, .peerReplaced: self.init(.sessionFailed, detail: error.detail)
        }
    }
}

extension NIError.Code {
    /// `catch NIError.sessionFailed` and `case NIError.sessionFailed` match an error with that code.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? NIError)?.code == code
    }
}
