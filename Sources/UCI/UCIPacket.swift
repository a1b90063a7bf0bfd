/// The FiRa UWB Command Interface's packets as they cross the transport (docs/uci.md, to come with issue 25): a
/// 4-byte header and a payload. A control packet (a command, response or notification) carries its group and
/// opcode and at most 255 bytes; a data packet carries its format and at most 1,024 bytes here. A message longer than
/// one packet is split into segments, each but the last with the packet boundary flag set; the receiver joins them.
package enum UCIMessageType: UInt8, Sendable, CaseIterable {
    case data = 0
    case command = 1
    case response = 2
    case notification = 3
}

/// One whole UCI message: its header's fields and its payload, segments joined.
package struct UCIMessage: Sendable, Equatable {
    package var type: UCIMessageType
    /// For a control message, its group (4 bits); for a data message, its packet format (DATA_SND 1, DATA_RCV 2).
    package var group: UInt8
    /// For a control message, its opcode (6 bits); 0 for data.
    package var opcode: UInt8
    package var payload: [UInt8]
    /// For a data packet read by a reassembler that leaves data unjoined, whether more segments of its message follow.
    package var more = false

    package init(type: UCIMessageType, group: UInt8, opcode: UInt8, payload: [UInt8]) {
        self.type = type
        self.group = group & 0x0F
        self.opcode = type == .data ? 0 : opcode & 0x3F
        self.payload = payload
    }

    /// The largest payload of one control packet and of one data packet.
    package static let controlSegment = 255
    package static let dataSegment = 1024
    /// The largest data packet payload taken from a host: more than the 1,024 announced, as pica's hosts put a
    /// 16-byte message header in front of every 1,024-byte segment.
    package static let largestDataPacketTaken = 4096

    /// The message as packets on the transport: segments of at most ``controlSegment`` or ``dataSegment`` bytes,
    /// the packet boundary flag on all but the last. An empty payload is one packet.
    package var packets: [[UInt8]] {
        let limit = type == .data ? Self.dataSegment : Self.controlSegment
        var packets: [[UInt8]] = []
        var start = 0
        repeat {
            let end = min(start + limit, payload.count)
            let more: UInt8 = end < payload.count ? 0x10 : 0
            let length = end - start
            var packet: [UInt8] = [type.rawValue << 5 | more | group]
            if type == .data {
                packet += [0, UInt8(length & 0xFF), UInt8(length >> 8)]
            } else {
                packet += [opcode, 0, UInt8(length)]
            }
            packet += payload[start..<end]
            packets.append(packet)
            start = end
        } while start < payload.count
        return packets
    }
}

/// What is wrong with bytes received as UCI packets.
package enum UCIFramingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The message type field holds a value UCI reserves (4 to 7).
    case reservedMessageType(UInt8)
    /// A data packet longer than the largest this endpoint takes.
    case oversizedDataPacket(Int)
    /// A segment whose type, group or opcode differs from the first segment's.
    case segmentMismatch
    /// The segments of one message add up to more than the largest message this endpoint takes.
    case oversizedMessage(Int)

    package var description: String {
        switch self {
        case .reservedMessageType(let t): "a packet of reserved message type \(t)"
        case .oversizedDataPacket(let n): "a data packet of \(n) bytes, over the \(UCIMessage.largestDataPacketTaken) taken"
        case .segmentMismatch: "a segment whose type, group or opcode differs from its message's first"
        case .oversizedMessage(let n): "a segmented message of \(n) bytes, over the \(UCIReassembler.maximumMessage) taken"
        }
    }
}

/// Turns a byte stream (a TCP connection's, in any chunks) into whole messages: packets are cut out by their
/// header's length and a message's segments joined. A malformed packet is skipped whole and reported; the stream
/// goes on at the next packet.
package struct UCIReassembler: Sendable {
    /// The largest message taken, segments joined: 64 KiB, far over any message of the commands served.
    package static let maximumMessage = 64 << 10

    private var buffer: [UInt8] = []
    private var start = 0
    private var pending: UCIMessage?
    private var pendingTooLong = false

    /// Whether data segments are joined here; when not, each data packet is a message of its own with ``UCIMessage/more``
    /// set as its flag was, so that a device can answer each packet (its credit) and join them itself.
    private let joinsData: Bool

    package init(joiningData: Bool = true) {
        joinsData = joiningData
    }

    /// Bytes waiting for the rest of their packet.
    package var buffered: Int { buffer.count - start }

    /// Takes the next bytes of the stream.
    ///
    /// - Returns: each whole message completed, or the error of each malformed packet, in stream order.
    package mutating func take(_ bytes: some Sequence<UInt8>) -> [Result<UCIMessage, UCIFramingError>] {
        buffer.append(contentsOf: bytes)
        var out: [Result<UCIMessage, UCIFramingError>] = []
        while buffer.count - start >= 4 {
            let b0 = buffer[start], b1 = buffer[start + 1]
            let rawType = b0 >> 5
            let isData = rawType == 0
            let length = isData ? Int(buffer[start + 2]) | Int(buffer[start + 3]) << 8 : Int(buffer[start + 3])
            guard buffer.count - start >= 4 + length else { break }
            let payload = buffer[(start + 4)..<(start + 4 + length)]
            start += 4 + length
            guard let type = UCIMessageType(rawValue: rawType) else {
                out.append(.failure(.reservedMessageType(rawType)))
                continue
            }
            if isData, length > UCIMessage.largestDataPacketTaken {
                out.append(.failure(.oversizedDataPacket(length)))
                continue
            }
            let more = b0 & 0x10 != 0
            if isData, !joinsData {
                var message = UCIMessage(type: .data, group: b0 & 0x0F, opcode: 0, payload: Array(payload))
                message.more = more
                out.append(.success(message))
                continue
            }
            let segment = UCIMessage(type: type, group: b0 & 0x0F, opcode: b1 & 0x3F, payload: [])
            if var message = pending {
                guard message.type == segment.type, message.group == segment.group, message.opcode == segment.opcode else {
                    pending = nil
                    pendingTooLong = false
                    out.append(.failure(.segmentMismatch))
                    continue
                }
                if !pendingTooLong { message.payload += payload }
                pendingTooLong = pendingTooLong || message.payload.count > Self.maximumMessage
                pending = more ? message : nil
                if !more {
                    out.append(pendingTooLong ? .failure(.oversizedMessage(message.payload.count)) : .success(message))
                    pendingTooLong = false
                }
            } else {
                var message = segment
                message.payload = Array(payload)
                if more { pending = message } else { out.append(.success(message)) }
            }
        }
        // Keep the buffer from growing without bound: drop what was read once it is most of it.
        if start > 4096, start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return out
    }
}
