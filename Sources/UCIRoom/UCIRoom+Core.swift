import UCI

/// The core group (GID 0): the chip itself, its configuration, its capabilities and its clock.
extension UCIRoom {
    func core(_ m: UCIMessage, _ chip: Chip, _ time: Double, _ out: inout [UCIOutgoing]) {
        let d = chip.id
        var r = UCIByteReader(m.payload)
        switch m.opcode {
        case UCIOpcode.deviceReset:
            guard m.payload.count == 1 else { return refuse(m, chip, .invalidMessageSize, time, &out) }
            guard m.payload[0] == 0 else { return refuse(m, chip, .invalidParameter, time, &out) }
            chip.sessions = [:]
            chip.state = .ready
            chip.dataJoin = nil
            respond(d, m, [UCIStatus.ok.rawValue], time, &out)
            notify(d, UCIGroup.core, UCIOpcode.deviceStatus, [UCIDeviceState.ready.rawValue], time, &out)

        case UCIOpcode.deviceInfo:
            guard m.payload.isEmpty else {
                return refuse(m, chip, .invalidMessageSize, time, &out, [UInt8](repeating: 0, count: 9))
            }
            let version = settings.version
            var w = UCIByteWriter()
            w.u8(UCIStatus.ok.rawValue)
            w.append(version.deviceInfoVersion)
            w.append(version.deviceInfoFiRaVersion)  // MAC
            w.append(version.deviceInfoFiRaVersion)  // PHY
            w.append([0x01, 0x00])  // UCI test 1.0
            w.u8(0)
            respond(d, m, w.bytes, time, &out)

        case UCIOpcode.capsInfo:
            guard m.payload.isEmpty else { return refuse(m, chip, .invalidMessageSize, time, &out, [0]) }
            respond(d, m, [UCIStatus.ok.rawValue] + Self.capabilities(settings.version), time, &out)

        case UCIOpcode.setConfig:
            guard let n = r.u8() else { return refuse(m, chip, .invalidMessageSize, time, &out, [0]) }
            var failed: [(UInt8, UCIStatus)] = []
            var pending: [(UInt8, [UInt8])] = []
            for _ in 0..<n {
                guard let id = r.u8(), let len = r.u8(), let v = r.take(Int(len)) else {
                    return refuse(m, chip, .invalidMessageSize, time, &out, [0])
                }
                switch id {
                case 0: failed.append((id, .readOnly))
                case 1 where v.count == 1 && v[0] <= 1: pending.append((id, v))
                case 1: failed.append((id, .invalidRange))
                default: failed.append((id, .invalidParameter))
                }
            }
            guard r.remaining == 0 else { return refuse(m, chip, .invalidMessageSize, time, &out, [0]) }
            if failed.isEmpty { for (_, v) in pending { chip.lowPowerMode = v[0] } }
            if !failed.isEmpty { counters.badCommands += 1 }
            let status: UCIStatus = failed.isEmpty ? .ok
                : (failed.allSatisfy { $0.1 == .readOnly } ? .readOnly : .invalidParameter)
            respond(d, m, [status.rawValue, UInt8(failed.count)] + failed.flatMap { [$0.0, $0.1.rawValue] }, time, &out)

        case UCIOpcode.getConfig:
            guard let n = r.u8(), let ids = r.take(Int(n)), r.remaining == 0 else {
                return refuse(m, chip, .invalidMessageSize, time, &out, [0])
            }
            var tlvs: [UInt8] = []
            for id in ids {
                switch id {
                case 0: tlvs += [0, 1, chip.state.rawValue]
                case 1: tlvs += [1, 1, chip.lowPowerMode]
                default: return refuse(m, chip, .invalidParameter, time, &out, [0])
                }
            }
            respond(d, m, [UCIStatus.ok.rawValue, UInt8(ids.count)] + tlvs, time, &out)

        case UCIOpcode.queryTimestamp:
            guard m.payload.isEmpty else {
                return refuse(m, chip, .invalidMessageSize, time, &out, [UInt8](repeating: 0, count: 8))
            }
            var w = UCIByteWriter()
            w.u8(UCIStatus.ok.rawValue)
            w.u64(chip.microseconds(at: time))
            respond(d, m, w.bytes, time, &out)

        default:
            refuse(m, chip, .unknownOpcode, time, &out)
        }
    }

    /// The largest application data a data packet, or a ranging round, carries, bytes.
    static let largestDataPayload = 1_024

    /// CORE_GET_CAPS_INFO's count and TLVs, numbered as the version numbers them: what this chip does, with the
    /// version ranges and every TLV Android's FiRa decoder requires (it throws on a missing one).
    static func capabilities(_ version: UCIVersion) -> [UInt8] {
        let sizes: [UInt8] = [0xFF, 0x00]  // largest control message, 255
        let dataSize = [UInt8(largestDataPayload & 0xFF), UInt8(largestDataPayload >> 8)]
        // What the chip does, by name; the numbering follows.
        let range = version.fiRaVersionRange
        let roles: [UInt8] = [0x03]  // responder, initiator
        let methods: [UInt8] = [0x0F]  // SS and DS two-way, deferred and not
        let sts: [UInt8] = [0x1F]  // every STS configuration is accepted; the room models no key, so all range alike
        let multiNode: [UInt8] = [0x03]  // one-to-one, one-to-many
        let timeStructure: [UInt8] = [0x01]  // block-based
        let scheduled: [UInt8] = [0x01]  // contention-based and time-scheduled rounds are run alike
        let hopping: [UInt8] = [0x00]
        let striding: [UInt8] = [0x00]
        let initiationTime: [UInt8] = [0x00]
        let channels: [UInt8] = [0xFF]  // 5, 6, 8, 9, 10, 12, 13, 14
        let rframe: [UInt8] = [0x0B]  // SP0, SP1, SP3: the room measures the exchange whatever the frames carry
        let constraint: [UInt8] = [0x01]  // K3
        let bprf: [UInt8] = [0x01]  // BPRF set 1 (SP0-SP3 at 6.8 Mb/s)
        let hprf: [UInt8] = [0, 0, 0, 0, 0]
        let aoa: [UInt8] = [0x0F]  // azimuth ±90°, full azimuth, elevation, figure of merit
        let extendedMAC: [UInt8] = [0x01]
        let interleaving: [UInt8] = [0x00]
        var tlvs: [(UInt8, [UInt8])]
        if version.numbersCapsAs2_0 {
            let deviceTypes: [UInt8] = [0x03]  // controller, controlee
            tlvs = [(0x00, sizes), (0x01, dataSize), (0x02, range), (0x03, range), (0x04, deviceTypes),
                    (0x05, roles), (0x06, methods), (0x07, sts), (0x08, multiNode), (0x09, timeStructure),
                    (0x0A, scheduled), (0x0B, hopping), (0x0C, striding), (0x0D, initiationTime), (0x0E, channels),
                    (0x0F, rframe), (0x10, constraint), (0x11, bprf), (0x12, hprf), (0x13, aoa), (0x14, extendedMAC)]
        } else {
            tlvs = [(0x00, range), (0x01, range), (0x02, roles), (0x03, methods), (0x04, sts), (0x05, multiNode),
                    (0x06, timeStructure), (0x07, scheduled), (0x08, hopping), (0x09, striding), (0x0A, initiationTime),
                    (0x0B, channels), (0x0C, rframe), (0x0D, constraint), (0x0E, bprf), (0x0F, hprf), (0x10, aoa),
                    (0x11, extendedMAC), (0x12, sizes), (0x13, dataSize)]
        }
        tlvs.append((0xE3, interleaving))
        return [UInt8(tlvs.count)] + tlvs.flatMap { [$0.0, UInt8($0.1.count)] + $0.1 }
    }
}
