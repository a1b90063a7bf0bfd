import Bump
import DeviceInterface
import Planning
import Sessions

/// The device side of a room, one phone after another: what each phone observes (its accelerometer's samples, the
/// pairs' Bluetooth readings, its sessions' updates, the messages it received) goes in; what it does (the jolts and
/// profiles it sends, the haptic it plays, the taps its ranging service plans by) comes out. Each phone's jolt
/// finding (``PhoneJolts``) runs whenever the phones sample their accelerometers, for its ranging service and its
/// app alike; NearCatch (``ReferenceApp``) runs on every phone unless the apps of a `NearbySimulator` room run their
/// own. Nothing of the world comes in but these observations.
package struct Phones {
    /// The app's bump detector, which each pair's slot runs, and its haptic curve.
    package let bump: BumpConfiguration
    private var jolts: [PhoneJolts]
    /// Each phone's own sense of its holder's walk, from its samples.
    private var pedometers: [Pedometer]
    private var apps: [ReferenceApp]
    /// Each pair's distance by its Bluetooth readings, which the ranging service plans by.
    package private(set) var bluetooth: BluetoothDistances
    /// The jolts that arrive over the data channel, from the transport's threads.
    package let inbox = ImpactInbox()
    /// Jolts sent, one a message.
    package private(set) var joltsSent = 0
    /// Told each phone's samples (its accelerometer's and its gyroscope's, taken at the same instants) once the run's
    /// time has reached them (the apps of the app-testing library read them), and those the world took ahead of it.
    package var sampleTap: ((Int, ArraySlice<AccelerometerSample>, ArraySlice<GyroSample>) -> Void)?
    private var aheadSamples: [[AccelerometerSample]] = []
    private var aheadTurns: [[GyroSample]] = []

    /// The phones of a room.
    ///
    /// - Parameters:
    ///   - interests: each phone's interests, which its profile publishes, when NearCatch runs on the phones; `nil`
    ///     when it does not.
    ///   - sampling: each phone's clock and how far its app's stamps are off the time its pairs agree on, when the
    ///     phones sample their accelerometers and find their own jolts; `nil` when they do not.
    package init(bump: BumpConfiguration, haptics: HapticCurve, interests: [[String]]?,
                sampling: [(clock: DeviceClock, syncOffset: Double)]?, bluetooth: BluetoothDistances) {
        self.bump = bump
        self.bluetooth = bluetooth
        apps = interests.map { all in
            all.indices.map { ReferenceApp(device: $0, interests: all[$0], haptics: haptics) }
        } ?? []
        jolts = sampling.map { $0.map { PhoneJolts(clock: $0.clock, syncOffset: $0.syncOffset) } } ?? []
        pedometers = Array(repeating: Pedometer(), count: jolts.count)
    }

    /// Each phone's speed over the ground as its own accelerometer tells it (``Pedometer``), for its ranging
    /// service; empty when the phones do not sample theirs.
    package var speeds: [Float] { pedometers.map(\.speed) }

    /// Whether NearCatch runs on the phones.
    package var runsApp: Bool { !apps.isEmpty }

    /// Whether the apps send each other their jolts: NearCatch does, with sampled accelerometers and the fused
    /// detector.
    package var sendsJolts: Bool { !apps.isEmpty && !jolts.isEmpty && bump.method == .fused }

    /// Every phone's jolts of the last seconds.
    package var felt: [[Impact]] { jolts.map(\.felt) }

    // MARK: - Observations

    /// Phone `device`'s new accelerometer samples, up to the time `time`: what the app-testing library's app is told
    /// of them by `now` (its clock's reading then), and the jolts the phone finds in them.
    package mutating func take(_ samples: [AccelerometerSample], turns: [GyroSample] = [], by device: Int,
                              upTo time: Double, handingOutTo now: Double) {
        if let sampleTap {
            if aheadSamples.isEmpty {
                aheadSamples = Array(repeating: [], count: jolts.count)
                aheadTurns = aheadSamples.map { _ in [] }
            }
            aheadSamples[device] += samples
            aheadTurns[device] += turns
            let due = jolts[device].clock.reading(at: now)
            let count = aheadSamples[device].firstIndex { $0.timestamp > due } ?? aheadSamples[device].count
            let turned = aheadTurns[device].firstIndex { $0.timestamp > due } ?? aheadTurns[device].count
            if count > 0 || turned > 0 {
                sampleTap(device, aheadSamples[device][..<count], aheadTurns[device][..<turned])
            }
            aheadSamples[device].removeFirst(count)
            aheadTurns[device].removeFirst(turned)
        }
        for sample in samples { pedometers[device].take(sample) }
        let bump = self.bump
        let app = apps.isEmpty ? nil : device
        jolts[device].take(samples, upTo: time) { impact in
            if let app, bump.isKnock(impact) { apps[app].felt(impact) }
        }
    }

    /// The Bluetooth readings of the pairs `first...` (dBm, by pair index; NaN: not heard).
    package mutating func hear(_ readings: [Float], from first: Int) {
        bluetooth.take(readings, from: first)
    }

    /// Phone `device` received `update` from `peer`: the haptic intensity NearCatch plays, if any.
    package mutating func didUpdate(device: Int, peer: Int, _ update: NearbyUpdate) -> Float? {
        apps.isEmpty ? nil : apps[device].didUpdate(from: peer, update)
    }

    // MARK: - Actions

    /// Each phone's latest knock up to `time` among `felt` (its own jolts, or the labelled peaks the world gives
    /// with `--sensors peaks`), for its ranging service; -∞ where none.
    package func taps(_ felt: [[Impact]], upTo time: Double) -> [Float] {
        let bump = self.bump
        return felt.map { peaks in
            peaks.last { $0.known <= time && bump.isKnock($0) }.map { Float($0.time) } ?? -.infinity
        }
    }

    /// What each phone's app has heard of its peers' knocks over the data channel by `time` (what arrived before
    /// the round), for its ranging service: for the phones whose own latest tap (`taps`) came within `window`
    /// seconds, the only ones whose service looks; empty when the apps send none.
    package func peerTaps(upTo time: Double, taps: [Float], within window: Double) -> [[PeerTap]] {
        guard sendsJolts else { return [] }
        return apps.indices.map { d in
            guard d < taps.count, Double(taps[d]) >= time - window else { return [] }
            return apps[d].heard.filter { $0.impact.known <= time }
                .map { PeerTap(peer: $0.from, time: Float($0.impact.time)) }
        }
    }

    /// Each app sends the knocks it has come to know to every peer it holds a session with and believes may be
    /// within reach of a touch, by what its own phone knows (never the oracle's truth): its estimate brought forward
    /// by two walkers' speeds, but no nearer than the pair's Bluetooth signal allows; and takes what has arrived
    /// from its peers.
    ///
    /// - Returns: what each phone holds of its peers' jolts (empty when the apps send none), and each jolt sent, by
    ///   its phone, in the order sent.
    package mutating func shareJolts(
        at time: Double, known: PlanningContext, into messages: inout [AppMessage]
    ) -> (heard: [[HeardImpact]], sent: [(device: Int, time: Double)]) {
        guard sendsJolts else { return ([], []) }
        let peers = apps.count
        let sessions = known.sessions
        let reach = bump.shareReach
        var sent: [(device: Int, time: Double)] = []
        for d in 0..<peers where !apps[d].outbox.isEmpty {
            let due = apps[d].takeDueKnocks(at: time)
            for jolt in due {
                let payload = ImpactMessage.encode(jolt)
                for p in 0..<peers where p != d && sessions.holds(d, p)
                    && max(known.believedDistance(d, p), known.table.index(d, p).map(known.nearestByBluetooth) ?? 0)
                        <= reach {
                    messages.append(AppMessage(from: d, to: p, kind: ImpactMessage.kind, payload: payload))
                    joltsSent += 1
                }
                sent.append((d, jolt.time))
            }
        }
        for (d, arrived) in inbox.take() where d < peers {
            apps[d].received(arrived)
        }
        for d in 0..<peers {
            apps[d].forgetHeard(before: time - PhoneJolts.memory)
        }
        return (apps.map(\.heard), sent)
    }

    /// Whether NearCatch chooses among the bumps a push makes: it runs, with the fused detector.
    package var takesOneBumpAPush: Bool { !apps.isEmpty && bump.method == .fused }

    /// Whether the phones take a bump their pair's detector fired at `time` on `jolts`: not when either phone's jolt
    /// already made a bump (one push, one bump), nor then is it remembered; nor when either phone heard a jolt at
    /// its own jolt's instant (within the coincidence) from another peer it holds a fresh estimate of (within the
    /// confirm window, by the pair estimates `estimates` of `pairs`), nearer than the reading the bump fired on
    /// (`estimate`; 0 for a failed exchange read as "right here"): the push is more likely that peer's. A phone of
    /// a pair tapping beside another pair at the same moment matches the neighbour's push, pushed equally and
    /// oppositely, and may confirm first within its 15 cm; taken, it cost both pairs' touches. On the pose
    /// generator's training seeds 61-200 (100 Hz, the phones' own air): touches from 3 cm/s 4,618 to 4,748 of
    /// 5,289, false bumps 320 to 218; DW3000 boards on Android's sensors, training seeds 1-60: 1,501 to 1,666 of
    /// 2,329, false bumps 458 to 296; the 100-peer mingle (seeds 1-3) unchanged. Bumps with no jolts (the
    /// range-only detector's), and any when NearCatch does not run, are taken.
    package mutating func take(_ jolts: BumpJolts?, initiator: Int, responder: Int, at time: Double,
                               estimate: Float = .nan, estimates: [PairEstimate] = [], pairs: PairTable? = nil)
        -> Bool {
        guard let jolts, !apps.isEmpty else { return true }
        guard !apps[initiator].hasBumped(on: jolts.initiator, at: time),
              !apps[responder].hasBumped(on: jolts.responder, at: time) else { return false }
        if let pairs {
            let bump = self.bump
            /// Whether phone `d` holds a fresh estimate of another peer that felt a jolt at the instant of `d`'s own,
            /// nearer than the bump's reading of `other`: the push is that peer's.
            func nearerFelt(_ d: Int, _ own: Double, _ other: Int) -> Bool {
                apps[d].heard.contains { h in
                    let p = Int(h.from)
                    guard p != other, h.impact.known <= time, abs(h.impact.time - own) <= bump.coincidence,
                          let k = pairs.index(d, p), k < estimates.count else { return false }
                    let e = estimates[k]
                    return e.distance < estimate && time - Double(e.time) <= bump.confirmWindow
                }
            }
            if estimate.isFinite, nearerFelt(initiator, jolts.initiator, responder)
                || nearerFelt(responder, jolts.responder, initiator) {
                return false
            }
        }
        apps[initiator].bumped(on: jolts.initiator, at: time)
        apps[responder].bumped(on: jolts.responder, at: time)
        return true
    }

    /// The pair's detector fired: each side sends its profile to the other.
    package func didBump(initiator: Int, responder: Int) -> [AppMessage] {
        guard !apps.isEmpty else { return [] }
        return [apps[initiator].didBump(with: responder), apps[responder].didBump(with: initiator)]
    }
}
