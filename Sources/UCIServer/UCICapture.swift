import Foundation
import UCI

/// Captures of each chip's UCI traffic as pcapng files, one per chip (`device-N.pcapng`, N from 0 in connection
/// order), as pica's `--pcapng-dir` writes them: link type 299 (FiRa UCI), one enhanced packet block per packet with
/// its direction (inbound: host to chip), timestamps in microseconds. Wireshark's UCI dissector reads them.
package final class UCICapture {
    private let directory: URL
    private let epoch: Double
    private var files: [Int: FileHandle] = [:]
    /// Each chip's inbound stream, read apart from the room's so that packets split across reads are whole here.
    private var inbound: [Int: UCIReassembler] = [:]
    /// Why a capture stopped, when writing failed; the endpoint goes on without it.
    private(set) var problems: [String] = []

    /// LINKTYPE_FIRA_UCI in the tcpdump.org list.
    static let linkType: UInt16 = 299

    init(directory: URL, epoch: Double) {
        self.directory = directory
        self.epoch = epoch
    }

    func open(_ device: Int) {
        let url = directory.appendingPathComponent("device-\(device).pcapng")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            problems.append("cannot create \(url.path)")
            return
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: url)
        } catch {
            problems.append("cannot open \(url.path): \(Self.reason(error))")
            return
        }
        var header = Block(type: 0x0A0D_0D0A)
        header.u32(0x1A2B_3C4D)
        header.u16(1)
        header.u16(0)
        header.u64(UInt64.max)  // section length unknown
        var interface = Block(type: 1)
        interface.u16(Self.linkType)
        interface.u16(0)
        interface.u32(0)  // no snapshot limit
        files[device] = handle
        write(device, header.bytes + interface.bytes)
    }

    func close(_ device: Int) {
        do {
            try files[device]?.close()
        } catch {
            problems.append("cannot close device-\(device).pcapng: \(Self.reason(error))")
        }
        files[device] = nil
        inbound[device] = nil
    }

    /// Bytes from a chip's host: each well-formed packet is written (malformed bytes are the room's to count).
    func recordInbound(_ device: Int, _ bytes: [UInt8], at time: Double) {
        guard files[device] != nil else { return }
        var r = inbound[device] ?? UCIReassembler(joiningData: false)
        for case .success(let m) in r.take(bytes) { record(device, m, outbound: false, at: time) }
        inbound[device] = r
    }

    func closeAll() {
        for d in Array(files.keys) { close(d) }
    }

    /// Writes each packet of `message`, sent at room time `time`.
    func record(_ device: Int, _ message: UCIMessage, outbound: Bool, at time: Double) {
        guard files[device] != nil else { return }
        let micros = UInt64(max(0, (epoch + time) * 1e6))
        var bytes: [UInt8] = []
        for packet in message.packets {
            var block = Block(type: 6)
            block.u32(0)
            block.u32(UInt32(truncatingIfNeeded: micros >> 32))
            block.u32(UInt32(truncatingIfNeeded: micros))
            block.u32(UInt32(packet.count))
            block.u32(UInt32(packet.count))
            block.append(packet)
            block.pad()
            // epb_flags: the direction in its two low bits (1 inbound, 2 outbound), then the end of the options.
            block.u16(2)
            block.u16(4)
            block.u32(outbound ? 2 : 1)
            block.u32(0)
            bytes += block.bytes
        }
        write(device, bytes)
    }

    private func write(_ device: Int, _ bytes: [UInt8]) {
        guard let handle = files[device] else { return }
        do {
            try handle.write(contentsOf: Data(bytes))
        } catch {
            problems.append("cannot write the capture of device \(device): \(Self.reason(error))")
            close(device)
        }
    }

    /// What went wrong with a file, in the system's words ("No space left on device"): Foundation's errors print as
    /// a dump of their domain, code and user info.
    package static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return ns.localizedDescription
    }

    /// One block: its type, its body, its total length before and after.
    struct Block {
        let type: UInt32
        var body: [UInt8] = []

        init(type: UInt32) { self.type = type }

        mutating func u16(_ v: UInt16) { body += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        mutating func u32(_ v: UInt32) { for k in 0..<4 { body.append(UInt8(truncatingIfNeeded: v >> (8 * k))) } }
        mutating func u64(_ v: UInt64) { for k in 0..<8 { body.append(UInt8(truncatingIfNeeded: v >> (8 * k))) } }
        mutating func append(_ b: [UInt8]) { body += b }
        mutating func pad() { while body.count % 4 != 0 { body.append(0) } }

        var bytes: [UInt8] {
            let total = UInt32(12 + body.count)
            var b = Block(type: 0)
            b.u32(type)
            b.u32(total)
            b.append(body)
            b.u32(total)
            return b.body
        }
    }
}
