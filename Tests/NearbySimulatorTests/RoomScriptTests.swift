import Foundation
import NearbySimulator
import Testing

@Suite struct RoomScriptTests {
    /// Two devices placed a metre apart in code; one walks to half a metre by 5 s; at 8 s they touch (a scripted
    /// gentle touch, aimed through the other phone: the backs meet): the truth follows the script, and the apps
    /// range with it.
    @Test func devicesPlacedAndMovedFromCode() throws {
        var script = RoomScript()
        script.place("ana", x: 0, y: 0, heading: 0, interests: ["film"])
        script.place("ben", x: 1, y: 0, facing: "ana")
        script.move("ana", toX: 0.5, y: 0, at: 5)
        script.encounter(.gentleTouch, "ana", "ben", at: 8, closingSpeed: 0.3, minimumDistance: 0)
        var configuration = RoomConfiguration()
        configuration.crowd = .script(script)
        configuration.policy = .ideal
        let room = try SimulatedRoom(configuration)
        #expect(room.devices.count == 2 && room.devices[0].discoveryInfo["interests"] == "film")
        let apps = room.devices.map(App.init)
        room.advance(by: 1)
        // Walking at 0.1 m/s, ana is 0.9 m away, give or take her phone's sway with her steps (a few centimetres).
        #expect(abs(room.trueDistance(room.devices[0], room.devices[1]) - 0.9) < 0.04)
        room.advance(by: 5)
        #expect(abs(room.trueDistance(room.devices[0], room.devices[1]) - 0.5) < 0.01)
        room.advance(by: 6)
        #expect(room.trueTouches.count == 1)
        let estimate = try #require(apps[0].latest[room.devices[1].peerID]?.distance)
        #expect(abs(Double(estimate) - room.trueDistance(room.devices[0], room.devices[1])) < 0.3)
    }

    /// A script that breaks the scenario rules is refused with an error naming the field.
    @Test func aBadScriptIsRefusedByName() {
        var script = RoomScript()
        script.place("ana", x: 0, y: 0)
        script.place("ben", x: 1, y: 0, facing: "nobody")
        var configuration = RoomConfiguration()
        configuration.crowd = .script(script)
        do {
            _ = try SimulatedRoom(configuration)
            Issue.record("a script facing no one was accepted")
        } catch {
            #expect(error.message.contains("facing") && error.message.contains("nobody"), "\(error.message)")
        }
        var lonely = RoomScript()
        lonely.place("ana", x: 0, y: 0)
        configuration.crowd = .script(lonely)
        #expect(throws: SimulatorError.self) { _ = try SimulatedRoom(configuration) }
    }

    /// A test's hook hears the run's events as the trace's lines: each of 4 devices finds the 3 others once,
    /// every pair's sessions begin, and updates come with distances.
    @Test func theEventHookHearsTheRun() throws {
        var configuration = RoomConfiguration()
        configuration.peers = 4
        configuration.policy = .ideal
        let room = try SimulatedRoom(configuration)
        let apps = room.devices.map(App.init)
        var types: [String: Int] = [:]
        var times: [Double] = []
        room.observe { event in
            guard let object = try? JSONSerialization.jsonObject(with: Data(event.line.utf8)) as? [String: Any],
                  let type = object["type"] as? String else { return }
            types[type, default: 0] += 1
            times.append(event.time)
        }
        room.advance(by: 5)
        #expect(types["found"] == 12)
        #expect((types["update"] ?? 0) > 100)
        #expect(types["session"] ?? 0 >= 12)
        #expect(times == times.sorted() && (times.last ?? 0) <= 5)
        #expect(apps.allSatisfy { $0.updates > 0 })
    }
}
