import ArgumentParser
import Discovery
import Foundation

/// Where the group key comes from, for the commands that join a discovery group: `--group-key`, `--group-key-file`,
/// or the environment's `NEARCATCH_GROUP_KEY`, in that order; without any, the built-in development key, which every
/// copy of the program knows and which is therefore refused off loopback.
struct GroupKeyOptions: ParsableArguments, Sendable {
    static let environmentVariable = "NEARCATCH_GROUP_KEY"
    /// The most a key file may hold: a key is 64 characters, a line end and some white space.
    static let maximumFileBytes = 1024

    @Option(name: .customLong("group-key"),
            help: "The group's key, 64 hexadecimal digits (visible to other users in the process list: prefer --group-key-file or NEARCATCH_GROUP_KEY).")
    var hex: String?

    @Option(name: .customLong("group-key-file"),
            help: "A file holding the group's key: 64 hexadecimal digits, or 32 raw bytes.")
    var file: String?

    init() {}

    /// The key to use.
    ///
    /// - Parameters:
    ///   - loopbackOnly: whether every datagram stays on this machine (the memory transport, or the loopback interface).
    ///   - environment: the process's environment.
    /// - Throws: `ValidationError` naming the option (or the variable) and what is wrong, never repeating the key.
    func resolve(loopbackOnly: Bool, interface: String,
                 environment: [String: String] = ProcessInfo.processInfo.environment) throws -> GroupKey {
        if hex != nil, file != nil {
            throw ValidationError("--group-key and --group-key-file cannot both be given")
        }
        if let hex {
            do { return try GroupKey(hex: hex) } catch { throw ValidationError("--group-key: \(error)") }
        }
        if let file { return try Self.read(file) }
        if let value = environment[Self.environmentVariable] {
            do { return try GroupKey(hex: value) } catch { throw ValidationError("\(Self.environmentVariable): \(error)") }
        }
        guard loopbackOnly else {
            throw ValidationError("--group-key: the development key is for loopback only; on interface \(interface) give "
                + "--group-key, --group-key-file or \(Self.environmentVariable)")
        }
        return .development
    }

    private static func read(_ path: String) throws -> GroupKey {
        func fail(_ problem: String) -> ValidationError { ValidationError("--group-key-file: \(path) \(problem)") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw fail("does not exist") }
        guard !isDirectory.boolValue else { throw fail("is a folder") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= maximumFileBytes else { throw fail("is \(size) bytes; a key file holds at most \(maximumFileBytes)") }
        guard let data = FileManager.default.contents(atPath: path) else { throw fail("cannot be read") }
        let bytes = [UInt8](data)
        if bytes.count == GroupKey.size, let key = try? GroupKey(bytes: bytes) { return key }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw fail("holds neither 64 hexadecimal digits nor 32 bytes")
        }
        do { return try GroupKey(hex: text) } catch { throw fail("does not hold a key: \(error)") }
    }
}
