import ArgumentParser
import Discovery
import Foundation
@testable import NearcatchCommand
import Testing

@Suite struct GroupKeyOptionTests {
    static let hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

    @Test(arguments: [
        (["discover", "--group-key", "abc"], "--group-key: a group key is 64 hexadecimal digits, not 3 characters"),
        (["discover", "--group-key", GroupKeyOptionTests.hex, "--group-key-file", "/tmp/k"],
         "--group-key and --group-key-file cannot both be given"),
        (["discover", "--interface", "eth0"],
         "--group-key: the development key is for loopback only; on interface eth0 give --group-key, --group-key-file or NEARCATCH_GROUP_KEY"),
        (["--interface", "eth0"],
         "--group-key: the development key is for loopback only; on interface eth0 give --group-key, --group-key-file or NEARCATCH_GROUP_KEY"),
        (["discover", "--group-key-file", "/nonexistent/key"], "--group-key-file: /nonexistent/key does not exist"),
        (["discover", "--group-key-file", "/tmp"], "--group-key-file: /tmp is a folder"),
    ])
    func badKeysAreNamedWithoutRepeatingThem(_ arguments: [String], _ expected: String) {
        #expect(parseError(arguments) == expected)
    }

    @Test func theKeyComesFromTheFlagTheFileOrTheEnvironmentAndTheDevelopmentKeyOnlyOnLoopback() throws {
        let key = try GroupKey(hex: Self.hex)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let text = folder + "/key.hex"
        try Data((Self.hex + "\n").utf8).write(to: URL(fileURLWithPath: text))
        let raw = folder + "/key.bin"
        try Data((0..<32).map { UInt8($0 % 16 * 0x11) }).write(to: URL(fileURLWithPath: raw))
        let big = folder + "/big"
        try Data(repeating: 0x41, count: 2000).write(to: URL(fileURLWithPath: big))

        func resolve(_ arguments: [String], environment: [String: String] = [:], loopback: Bool = true) throws -> GroupKey {
            try GroupKeyOptions.parse(arguments).resolve(loopbackOnly: loopback, interface: "eth0", environment: environment)
        }
        #expect(try resolve(["--group-key", Self.hex], loopback: false) == key)
        #expect(try resolve(["--group-key-file", text], loopback: false) == key)
        #expect(try resolve(["--group-key-file", raw], loopback: false) == key)
        #expect(try resolve([], environment: ["NEARCATCH_GROUP_KEY": Self.hex], loopback: false) == key)
        // A flag wins over the environment.
        let other = String(repeating: "7", count: 64)
        #expect(try resolve(["--group-key", other], environment: ["NEARCATCH_GROUP_KEY": Self.hex]) != key)
        #expect(try resolve([]) == .development)
        #expect(throws: ValidationError.self) { try resolve([], loopback: false) }
        #expect(throws: ValidationError.self) { try resolve([], environment: ["NEARCATCH_GROUP_KEY": "zz"]) }
        do {
            _ = try resolve(["--group-key-file", big])
            Issue.record("a 2,000-byte key file was accepted")
        } catch {
            #expect("\(error)".contains("is 2000 bytes; a key file holds at most 1024"))
        }
    }

    @Test func summariesSayWhichKey() async throws {
        let command = try #require(try NearcatchSim.parseAsRoot(
            ["--peers", "4", "--transport", "memory", "--duration", "3", "--group-key", Self.hex]) as? RunCommand)
        let summary = try await command.execute()
        #expect(summary.run.groupKey == (try GroupKey(hex: Self.hex)).name)
        let plain = try #require(try NearcatchSim.parseAsRoot(["--peers", "4", "--transport", "memory", "--duration", "3"])
            as? RunCommand)
        let text = try plain.render(try await plain.execute())
        #expect(text.contains("development key (loopback only)"))
        #expect(try await plain.execute().discovery.sessions == 12)
    }
}
