import CoreMotion
import Foundation
import MultipeerConnectivity
import NearbyInteraction
import NearbySimulator
import Testing

/// The NIPeekaboo-style file (PeekabooStyleApp.swift), as docs/app-testing.md's worked example runs it. Its
/// controller is isolated to the main actor, as a view controller is, so the tests are too.
@MainActor @Suite struct PeekabooStyleTests {
    private func room(peers: Int) throws -> SimulatedRoom {
        var configuration = RoomConfiguration()
        configuration.peers = peers
        configuration.policy = .ideal
        return try SimulatedRoom(configuration)
    }

    /// Puts the app on a phone, made and started as that phone's app.
    private func install(on device: SimulatedDevice) -> PeekabooController {
        device.perform {
            let app = PeekabooController(name: "phone-\(device.index)")
            app.startup()
            return app
        }
    }

    /// Eight phones: every one connects to the seven others, makes one NISession per peer, swaps tokens through its
    /// main-queue hops, ranges with all seven and reads its device motion; the room reports no problem.
    @Test func eightPhonesRangeWithEveryPeer() throws {
        let room = try room(peers: 8)
        let apps = room.devices.map(install)
        room.advance(by: 20)
        for (k, app) in apps.enumerated() {
            let others = Set((0..<8).filter { $0 != k }.map { "phone-\($0)" })
            let (sessions, tokens, updates, gravity) = (Set(app.sessions.keys.map(\.displayName)),
                                                        app.peerByToken.count, app.motionUpdates, app.gravity)
            let distances = app.distances.values.filter { $0 > 0 && $0 < 10 }.count
            #expect(sessions == others, "phone-\(k): sessions with \(sessions.sorted())")
            #expect(tokens == 7, "phone-\(k): \(tokens) tokens")
            #expect(distances == 7, "phone-\(k): \(distances) peers measured")
            // 30 updates a second asked for, over 20 s.
            #expect(abs(updates - 600) <= 6, "phone-\(k): \(updates) device-motion updates")
            let g = try #require(gravity)
            #expect(abs((g.x * g.x + g.y * g.y + g.z * g.z).squareRoot() - 1) < 1e-6)
        }
        #expect(room.appProblems.isEmpty, "\(room.appProblems)")
    }

    /// A phone restarted (a new life, its app started afresh): every other phone's app replaces its sessions with
    /// it and ranges with it again, as with the seven others.
    @Test func aRestartedPhoneIsFoundAndRangedAgain() throws {
        let room = try room(peers: 8)
        var apps = room.devices.map(install)
        room.advance(by: 15)
        let life = try room.restart(room.devices[3])
        apps[3] = install(on: life)
        room.advance(by: 25)
        for (k, app) in apps.enumerated() {
            let (sessions, measured) = (app.sessions.count, app.distances.values.filter { $0 > 0 && $0 < 10 }.count)
            #expect(sessions == 7 && measured == 7, "phone-\(k): \(sessions) sessions, \(measured) measured")
        }
        #expect(room.appProblems.isEmpty, "\(room.appProblems)")
    }
}

/// The file in today's style (ModernStyleApp.swift): its `Task { @MainActor in }` hops run on the room's clock.
@MainActor @Suite struct ModernStyleTests {
    @Test func eightPhonesRangeThroughTaskHops() throws {
        var configuration = RoomConfiguration()
        configuration.peers = 8
        configuration.policy = .ideal
        let room = try SimulatedRoom(configuration)
        let models = room.devices.map { device in
            device.perform {
                let model = NearbyModel()
                model.start(name: "phone-\(device.index)")
                return model
            }
        }
        room.advance(by: 20)
        for (k, model) in models.enumerated() {
            let others = Set((0..<8).filter { $0 != k }.map { "phone-\($0)" })
            #expect(Set(model.distances.keys) == others, "phone-\(k): \(model.distances.keys.sorted())")
            #expect(model.tokensReceived == 7)
            // 20 updates a second asked for, over 20 s.
            #expect(abs(model.accelerometerSamples - 400) <= 4, "phone-\(k): \(model.accelerometerSamples)")
        }
        #expect(room.appProblems.isEmpty, "\(room.appProblems)")
    }
}
