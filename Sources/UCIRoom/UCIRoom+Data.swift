import UCI

/// In-band data: DATA_MESSAGE_SND packets the host sends are answered with a credit each, joined, queued on their
/// session, and carried to the peer by the session's next round that reaches it (UCIRoom+Ranging.swift).
extension UCIRoom {
    /// The most messages a session holds waiting for a round.
    static let outboxLimit = 64

    /// DataTransferNtfStatusCode values.
    enum TransferStatus {
        static let ok: UInt8 = 0x01
        static let errorDataTransfer: UInt8 = 0x02
        static let errorNoCredit: UInt8 = 0x03
        static let errorRejected: UInt8 = 0x04
        static let sessionTypeNotSupported: UInt8 = 0x05
        static let invalidFormat: UInt8 = 0x07
    }

    func data(_ m: UCIMessage, _ chip: Chip, _ time: Double, _ out: inout [UCIOutgoing]) {
        guard m.group == UCIDataFormat.send else {
            counters.badDataPackets += 1
            return notify(chip.id, UCIGroup.core, UCIOpcode.genericError, [UCIStatus.syntaxError.rawValue], time, &out)
        }
        var r = UCIByteReader(m.payload)
        if var join = chip.dataJoin {
            if join.headerInEachSegment {
                guard let handle = r.u32(), let dst = r.u64(), r.u16() != nil, let size = r.u16(),
                      handle == join.session, dst == join.destination, r.remaining == Int(size) else {
                    chip.dataJoin = nil
                    return refuseData(join.session, join.sequence, TransferStatus.invalidFormat, chip, time, &out)
                }
                join.data += r.rest()
            } else {
                join.data += m.payload
            }
            credit(join.session, chip, time, &out)
            guard join.data.count <= UCIReassembler.maximumMessage else {
                chip.dataJoin = nil
                return refuseData(join.session, join.sequence, TransferStatus.invalidFormat, chip, time, &out)
            }
            if m.more {
                chip.dataJoin = join
            } else {
                chip.dataJoin = nil
                guard join.headerInEachSegment || join.data.count == join.declared else {
                    return refuseData(join.session, join.sequence, TransferStatus.invalidFormat, chip, time, &out)
                }
                queue(join.session, join.destination, join.sequence, join.data, chip, time, &out)
            }
            return
        }
        guard let handle = r.u32(), let dst = r.u64(), let sequence = r.u16(), let size = r.u16() else {
            counters.badDataPackets += 1
            return notify(chip.id, UCIGroup.core, UCIOpcode.genericError, [UCIStatus.syntaxError.rawValue], time, &out)
        }
        let rest = r.rest()
        credit(handle, chip, time, &out)
        if !m.more {
            guard rest.count == Int(size) else {
                return refuseData(handle, sequence, TransferStatus.invalidFormat, chip, time, &out)
            }
            return queue(handle, dst, sequence, rest, chip, time, &out)
        }
        guard rest.count <= Int(size) else {
            return refuseData(handle, sequence, TransferStatus.invalidFormat, chip, time, &out)
        }
        chip.dataJoin = DataJoin(session: handle, destination: dst, sequence: sequence, declared: Int(size), data: rest,
                                 headerInEachSegment: rest.count == Int(size))
    }

    private func credit(_ session: UInt32, _ chip: Chip, _ time: Double, _ out: inout [UCIOutgoing]) {
        var w = UCIByteWriter()
        w.u32(session)
        w.u8(1)  // CREDIT_AVAILABLE: the chip buffers what its sessions hold.
        notify(chip.id, UCIGroup.sessionControl, UCIOpcode.dataCredit, w.bytes, time, &out)
    }

    func transferStatus(_ session: UInt32, _ sequence: UInt16, _ status: UInt8, _ count: UInt8, _ device: Int, _ time: Double,
                        _ out: inout [UCIOutgoing]) {
        var w = UCIByteWriter()
        w.u32(session)
        w.u8(UInt8(truncatingIfNeeded: sequence))
        w.u8(status)
        w.u8(count)
        notify(device, UCIGroup.sessionControl, UCIOpcode.dataTransferStatus, w.bytes, time, &out)
    }

    /// A message refused on arrival: counted, and told whether or not the session asked for transfer reports.
    private func refuseData(_ session: UInt32, _ sequence: UInt16, _ status: UInt8, _ chip: Chip, _ time: Double,
                            _ out: inout [UCIOutgoing]) {
        counters.badDataPackets += 1
        transferStatus(session, sequence, status, 0, chip.id, time, &out)
    }

    private func queue(_ handle: UInt32, _ dst: UInt64, _ sequence: UInt16, _ data: [UInt8], _ chip: Chip, _ time: Double,
                       _ out: inout [UCIOutgoing]) {
        guard var session = chip.sessions[handle] else {
            return refuseData(handle, sequence, TransferStatus.errorRejected, chip, time, &out)
        }
        guard session.type == UCISessionType.rangingAndInBandData || session.type == UCISessionType.dataTransfer
            || session.type == UCISessionType.rangingWithDataPhase else {
            return refuseData(handle, sequence, TransferStatus.sessionTypeNotSupported, chip, time, &out)
        }
        guard session.state == .idle || session.state == .active else {
            return refuseData(handle, sequence, TransferStatus.errorRejected, chip, time, &out)
        }
        guard session.outbox.count < Self.outboxLimit else {
            return refuseData(handle, sequence, TransferStatus.errorNoCredit, chip, time, &out)
        }
        // A session's peers are its destinations (a controlee's, its controller). A session of one peer can send
        // to no other, so a message it addresses elsewhere goes to that peer, counted (pica's hosts write the
        // address big-endian, and pica ignores it); with several, an address that names none is refused at once.
        let peers = session.destinations ?? []
        let destination: UInt64
        if peers.contains(where: { $0.value == dst }) {
            destination = dst
        } else if peers.count == 1 {
            destination = peers[0].value
            counters.dataMisaddressed += 1
        } else {
            return refuseData(handle, sequence, TransferStatus.errorRejected, chip, time, &out)
        }
        session.outbox.append(UCISession.OutgoingData(destination: destination, sequence: sequence, data: data))
        chip.sessions[handle] = session
    }
}
