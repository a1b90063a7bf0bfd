import Foundation
import Testing
import UCI
@testable import UCIServer
import TestSupport

/// The captures are pcapng as its specification lays it out: a section header, one interface of link type 299,
/// then one enhanced packet block per packet, with its direction.
@Suite struct UCICaptureTests {
    @Test func packetsAreWrittenAsPcapngBlocks() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let capture = UCICapture(directory: folder, epoch: 1_000)
        capture.open(3)
        let long = UCIMessage(type: .notification, group: 2, opcode: 0, payload: [UInt8](repeating: 9, count: 300))
        capture.record(3, long, outbound: true, at: 0.5)
        // A command split across two reads is captured whole, once.
        let command = UCIMessage(type: .command, group: 1, opcode: 0, payload: [1, 0, 0, 0, 0]).packets[0]
        capture.recordInbound(3, Array(command.prefix(3)), at: 0.6)
        capture.recordInbound(3, Array(command.dropFirst(3)), at: 0.7)
        capture.closeAll()
        let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent("device-3.pcapng")))
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
        var blocks: [(type: UInt32, at: Int, length: Int)] = []
        var at = 0
        while at < bytes.count {
            let length = Int(u32(at + 4))
            #expect(length % 4 == 0 && u32(at + length - 4) == UInt32(length))
            blocks.append((u32(at), at, length))
            at += length
        }
        #expect(at == bytes.count)
        #expect(blocks.map(\.type) == [0x0A0D_0D0A, 1, 6, 6, 6])
        #expect(u32(8) == 0x1A2B_3C4D && bytes[blocks[1].at + 8] == 43 && bytes[blocks[1].at + 9] == 1)
        // The segments of the notification (255 + 45 bytes of payload), then the command, with their directions.
        let lengths = blocks.dropFirst(2).map { Int(u32($0.at + 20)) }
        #expect(lengths == [259, 49, command.count])
        let flags = blocks.dropFirst(2).map { u32($0.at + $0.length - 12) }
        #expect(flags == [2, 2, 1])
        let micros = UInt64(u32(blocks[2].at + 12)) << 32 | UInt64(u32(blocks[2].at + 16))
        #expect(micros == 1_000_500_000)
    }
}

/// Issue 49: a capture on a full disk said Foundation's raw error (its domain, code and user info).
@Suite struct UCICaptureFailureTests {
    @Test func aFullDiskIsSaidInTheSystemsWords() throws {
        let small = try ScratchFileSystem(bytes: 8_192)
        defer { small.remove() }
        let capture = UCICapture(directory: URL(fileURLWithPath: small.folder), epoch: 1_000)
        capture.open(0)
        let message = UCIMessage(type: .notification, group: 2, opcode: 0, payload: [UInt8](repeating: 9, count: 200))
        var sent = 0
        while capture.problems.isEmpty, sent < 1_000 {
            capture.record(0, message, outbound: true, at: Double(sent))
            sent += 1
        }
        #expect(capture.problems == ["cannot write the capture of device 0: No space left on device"])
    }
}
