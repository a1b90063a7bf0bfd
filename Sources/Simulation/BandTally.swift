import Geometry
import Planning
import Ranging

/// Pair-seconds of running pairs by distance band, counted once a simulated second, with the estimates' ages, and
/// the exchanges received in each band since the last count.
struct BandTally {
    private(set) var pairSeconds = [Double](repeating: 0, count: RoundEngine.bandLimits.count)
    private(set) var sample = RoundEngine.BandSample()
    private var lastCount = 0.0
    private var lastReceived = [Int](repeating: 0, count: RoundEngine.bandLimits.count)

    /// Whether a second has passed since the last count at `time`.
    func isDue(at time: Double) -> Bool { time - lastCount >= 1 - 1e-9 }

    /// Counts the running pairs by band at `time` and returns the exchanges received in each band since the last
    /// count.
    mutating func count(
        at time: Double, poses: [Pose], sessions: RunningSessions.Snapshot, engine: RoundEngine
    ) -> [Int] {
        let inBands = engine.sampleBands(at: time, poses: poses, sessions: sessions, into: &sample)
        for b in inBands.indices { pairSeconds[b] += Double(inBands[b]) * (time - lastCount) }
        lastCount = time
        let received = engine.receivedByBand
        defer { lastReceived = received }
        return zip(received, lastReceived).map { $0 - $1 }
    }
}
