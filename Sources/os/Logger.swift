import Foundation

// Apple's unified logging, shaped enough for an app's file to compile on Linux: `Logger`, `OSLog`, `os_log` and the
// privacy options of their messages. Nothing is recorded unless the environment variable NEARBY_SIMULATOR_LOG is
// set; then each message goes to standard error with its level and category (private values included: a test's own
// log has no one to hide them from).

/// How much a message's value is hidden in Apple's logs; here only declared.
public struct OSLogPrivacy: Sendable, Equatable {
    public enum Mask: Sendable, Equatable {
        case hash
        case none
    }

    let name: String
    public static let `public` = OSLogPrivacy(name: "public")
    public static let `private` = OSLogPrivacy(name: "private")
    public static let sensitive = OSLogPrivacy(name: "sensitive")
    public static let auto = OSLogPrivacy(name: "auto")
    public static func `private`(mask: Mask) -> OSLogPrivacy { .private }
    public static func sensitive(mask: Mask) -> OSLogPrivacy { .sensitive }
    public static func auto(mask: Mask) -> OSLogPrivacy { .auto }
}

/// A log message with interpolated values, as `Logger`'s methods take it.
public struct OSLogMessage: ExpressibleByStringInterpolation, Sendable {
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        var text = ""

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) { text += literal }

        public mutating func appendInterpolation<T>(_ value: @autoclosure () -> T, privacy: OSLogPrivacy = .auto) {
            text += String(describing: value())
        }

        public mutating func appendInterpolation<T>(_ value: @autoclosure () -> T, format: OSLogFloatFormatting,
                                                    privacy: OSLogPrivacy = .auto) {
            text += String(describing: value())
        }
    }

    let text: String

    public init(stringLiteral value: String) { text = value }

    public init(stringInterpolation: StringInterpolation) { text = stringInterpolation.text }
}

/// How a floating-point value is written; declared only.
public struct OSLogFloatFormatting: Sendable {
    public static let fixed = OSLogFloatFormatting()
    public static let exponential = OSLogFloatFormatting()
    public static let hybrid = OSLogFloatFormatting()
    public static func fixed(precision: Int, explicitPositiveSign: Bool = false, uppercase: Bool = false) -> Self { Self() }
}

/// A message's level.
public struct OSLogType: Sendable, Equatable {
    let name: String
    public static let `default` = OSLogType(name: "default")
    public static let info = OSLogType(name: "info")
    public static let debug = OSLogType(name: "debug")
    public static let error = OSLogType(name: "error")
    public static let fault = OSLogType(name: "fault")
}

/// A log's subsystem and category.
public final class OSLog: @unchecked Sendable {
    let subsystem: String
    let category: String

    public init(subsystem: String, category: String) {
        self.subsystem = subsystem
        self.category = category
    }

    public static let `default` = OSLog(subsystem: "", category: "default")
    public static let disabled = OSLog(subsystem: "", category: "disabled")
}

/// Writes a message when NEARBY_SIMULATOR_LOG is set.
func record(_ level: OSLogType, _ log: OSLog, _ text: String) {
    guard log !== OSLog.disabled, ProcessInfo.processInfo.environment["NEARBY_SIMULATOR_LOG"] != nil else { return }
    FileHandle.standardError.write(Data("[\(level.name)] \(log.category): \(text)\n".utf8))
}

/// Apple's `Logger`.
public struct Logger: Sendable {
    let log: OSLog

    public init(subsystem: String, category: String) { log = OSLog(subsystem: subsystem, category: category) }
    public init(_ log: OSLog) { self.log = log }
    public init() { log = .default }

    public func log(_ message: OSLogMessage) { record(.default, log, message.text) }
    public func log(level: OSLogType, _ message: OSLogMessage) { record(level, log, message.text) }
    public func trace(_ message: OSLogMessage) { record(.debug, log, message.text) }
    public func debug(_ message: OSLogMessage) { record(.debug, log, message.text) }
    public func info(_ message: OSLogMessage) { record(.info, log, message.text) }
    public func notice(_ message: OSLogMessage) { record(.default, log, message.text) }
    public func warning(_ message: OSLogMessage) { record(.error, log, message.text) }
    public func error(_ message: OSLogMessage) { record(.error, log, message.text) }
    public func critical(_ message: OSLogMessage) { record(.fault, log, message.text) }
    public func fault(_ message: OSLogMessage) { record(.fault, log, message.text) }
}

/// Apple's C-style `os_log`: the format with its arguments, as `String(format:)` writes them.
public func os_log(_ message: StaticString, log: OSLog = .default, type: OSLogType = .default, _ args: any CVarArg...) {
    record(type, log, String(format: "\(message)".replacingOccurrences(of: "{public}", with: "")
        .replacingOccurrences(of: "{private}", with: ""), arguments: args))
}

/// Apple's `os_log` taking a message.
public func os_log(_ type: OSLogType = .default, log: OSLog = .default, _ message: OSLogMessage) {
    record(type, log, message.text)
}
