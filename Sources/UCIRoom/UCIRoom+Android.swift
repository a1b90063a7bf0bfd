import UCI

// Android's vendor group (GID 0x0C), which Android's UWB service sends at start beside FiRa's commands: the
// country's code (it refuses to enable the adapter without an answer) and the power statistics it logs. The layouts
// are those of AOSP's UCI packet description (packages/modules/Uwb, uci_packets.pdl).
extension UCIRoom {
    func android(_ m: UCIMessage, _ chip: Chip, _ time: Double, _ out: inout [UCIOutgoing]) {
        switch m.opcode {
        case UCIOpcode.androidSetCountryCode:
            // Two ASCII letters (ISO 3166-1 alpha-2), or "00" for none known.
            let code = m.payload
            guard code.count == 2 else {
                counters.badCommands += 1
                return respond(chip.id, m, [UCIStatus.invalidMessageSize.rawValue], time, &out)
            }
            let letters = code.allSatisfy { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
            guard letters || code == [0x30, 0x30] else {
                counters.badCommands += 1
                return respond(chip.id, m, [UCIStatus.invalidParameter.rawValue], time, &out)
            }
            chip.countryCode = code
            respond(chip.id, m, [UCIStatus.ok.rawValue], time, &out)

        case UCIOpcode.androidGetPowerStats:
            guard m.payload.isEmpty else {
                counters.badCommands += 1
                return respond(chip.id, m, [UCIStatus.invalidMessageSize.rawValue] + [UInt8](repeating: 0, count: 16),
                               time, &out)
            }
            let up = Int(chip.microseconds(at: time))
            let tx = min(chip.transmitting, up), rx = min(chip.receiving, up - tx)
            var w = UCIByteWriter()
            w.u8(UCIStatus.ok.rawValue)
            w.u32(Self.milliseconds(up - tx - rx))
            w.u32(Self.milliseconds(tx))
            w.u32(Self.milliseconds(rx))
            w.u32(UInt32(clamping: chip.wakes))
            respond(chip.id, m, w.bytes, time, &out)

        default:
            counters.badCommands += 1
            respond(chip.id, m, [UCIStatus.unknownOpcode.rawValue], time, &out)
        }
    }

    /// Whole milliseconds of `microseconds`, as the statistics count them.
    static func milliseconds(_ microseconds: Int) -> UInt32 {
        UInt32(clamping: max(microseconds, 0) / 1_000)
    }

    /// The frames of a round as each chip's radio spent them: a sender transmits, every receiver listens; each chip
    /// in the round wakes for it once. Counted in whole microseconds, so that many frames add up exactly.
    func tally(_ round: AirRound) {
        var woken = Set<Int>()
        for frame in round.frames {
            let length = Int(((frame.end - frame.start) * 1e6).rounded())
            chips[frame.sender]?.transmitting += length
            woken.insert(frame.sender)
            for receiver in frame.receivers {
                chips[receiver]?.receiving += length
                woken.insert(receiver)
            }
        }
        for id in woken { chips[id]?.wakes += 1 }
    }
}

extension UCIRoom.Chip {
    /// The chip's own clock, microseconds since its host connected.
    func microseconds(at time: Double) -> UInt64 {
        UInt64(max(time - since, 0) * 1e6)
    }
}
