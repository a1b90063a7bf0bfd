import UCI

/// One-way rounds (RANGING_ROUND_USAGE 6, OWR-AoA): an advertiser's session sends one advertisement a round; every
/// observer of its session that names it (or no one) and hears it through the air reports its angle of arrival
/// (SESSION_INFO_NTF of type 3), nothing for one it missed. The advertiser's host is told nothing.
extension UCIRoom {
    func oneWayRound(_ chip: Chip, _ session: UCISession, _ out: inout [UCIOutgoing]) {
        guard let own = session.deviceAddress else { return }
        let start = session.nextRound
        move(to: start)
        let observers = participants(chip, session).compactMap { $0 }
        let air = airRound(chip, session, observers, start: start)
        let others = neighbours(of: air)
        // The advertisement is heard as it ends.
        let end = air.frames[0].end
        counters.rounds += 1
        var advertiser = chip.sessions[session.token] ?? session
        // The advertisement's number and the ranging block it opens.
        let frameNumber = UInt8(truncatingIfNeeded: advertiser.rangingCount)
        let block = UInt16(truncatingIfNeeded: advertiser.rangingCount)
        advertiser.rangingCount &+= 1
        chip.sessions[session.token] = advertiser
        var seen: [(device: Int, status: UInt8, distance: UInt16)] = []
        for part in observers {
            guard var observer = part.chip.sessions[part.session] else { continue }
            counters.exchanges += 1
            guard hears(part.chip.id, air.frames[0], among: others) else {
                counters.collidedExchanges += 1
                seen.append((part.chip.id, UCIStatus.rangingRxPhyDecodeFailed.rawValue, 0))
                continue
            }
            // The radio's link decides whether the frame is heard and the angle it arrives at.
            guard let (_, heard) = measure(chip, part.chip, at: start, slot: 0, controllerAddress: own,
                                           controleeAddress: observer.deviceAddress ?? own) else {
                counters.lostExchanges += 1
                seen.append((part.chip.id, UCIStatus.rangingRxTimeout.rawValue, 0))
                continue
            }
            seen.append((part.chip.id, 0, heard.distance))
            observer.rangingCount &+= 1
            observer.lastController = own
            if observer.parsed.reportsInfo {
                let length = observer.addressLength
                sessionInfo(part.chip, &observer, type: 3, count: 1, at: end, &out) { w in
                    var address = own.bytes
                    if address.count != length { address = Array((address + [UInt8](repeating: 0, count: 8)).prefix(length)) }
                    w.append(address)
                    w.u8(0)
                    w.u8(heard.nlos)
                    w.u8(frameNumber)
                    w.u16(block)
                    w.i16(heard.own.azimuth)
                    w.u8(heard.own.azimuthFOM)
                    w.i16(heard.own.elevation)
                    w.u8(heard.own.elevationFOM)
                }
            }
            part.chip.sessions[part.session] = observer
        }
        finish(air, of: chip, session, seen: seen, end: end)
    }
}
