import DeviceInterface
import Foundation
import Geometry
@testable import World

/// Runs a scenario file with the hands' own motion stilled (no tremor, heel strikes or screen taps) until `end`, and
/// gives each phone's largest departure, m/s², over the samples whose time (from the start) lies in `window`, from
/// the mean it read before `rest`: how hard a push reached each phone.
func stilledDepartures(_ text: String, rest: Double, window: Range<Double>, until end: Double) throws
    -> (world: World, departures: [Double]) {
    let file = try ScenarioFile.parse(Data(text.utf8), file: "s.json")
    let world = try World(scenario: .scripted(file), peers: file.peers.count, seed: 1)
    let clocks = file.peers.map { _ in DeviceClock(uptimeAtStart: 100, rate: 0) }
    var quiet = MotionSettings()
    quiet.own = .still
    try world.startSensing(clocks: clocks, seed: 5, motion: quiet)
    _ = world.advance(to: end)
    let departures = world.samples.map { samples -> Double in
        func reading(_ s: AccelerometerSample) -> Vector3 { Vector3(Double(s.x), Double(s.y), Double(s.z)) }
        let still = samples.filter { $0.timestamp - 100 < rest }
        let base = still.reduce(Vector3.zero) { $0 + reading($1) } / Double(still.count)
        return samples.filter { window.contains($0.timestamp - 100) }.map { (reading($0) - base).length }.max() ?? 0
    }
    return (world, departures)
}
