import CoreMotion
import Foundation
import NearbyInteraction
import NearbySimulator
import Testing

private func room(peers: Int = 2, script: RoomScript? = nil) throws -> SimulatedRoom {
    var configuration = RoomConfiguration()
    configuration.peers = peers
    configuration.policy = .ideal
    if let script { configuration.crowd = .script(script) }
    return try SimulatedRoom(configuration)
}

/// Records where and when the room ran an app's main-queue work.
private final class Log: @unchecked Sendable {
    var entries: [(time: Double, device: Int?)] = []
}

@Suite struct MainQueueTests {
    /// A phone's clocks read the room's time: two readings 20 ms of the machine's apart give the same instant, and
    /// `.now() + 0.5` taken after a stall is 0.5 s of the room's clock exactly.
    @Test func aPhonesClocksReadTheRoomsTime() throws {
        nonisolated(unsafe) let room = try room()
        let log = Log()
        room.advance(by: 1)
        let (dispatch, continuous) = room.devices[0].perform {
            let before = (DispatchTime.now(), ContinuousClock.now)
            Thread.sleep(forTimeInterval: 0.02)
            let after = (DispatchTime.now(), ContinuousClock.now)
            let deadline = DispatchTime.now() + 0.5
            Thread.sleep(forTimeInterval: 0.02)
            DispatchQueue.main.asyncAfter(deadline: deadline) { log.entries.append((room.now, SimulatedDevice.current?.index)) }
            DispatchQueue.main.asyncAfter(deadline: deadline, execute: DispatchWorkItem {
                log.entries.append((room.now, SimulatedDevice.current?.index))
            })
            return (after.0.uptimeNanoseconds - before.0.uptimeNanoseconds, after.1 - before.1)
        }
        #expect(dispatch == 0 && continuous == .zero)
        room.advance(by: 1)
        #expect(log.entries.count == 2 && log.entries.allSatisfy { abs($0.time - 1.5) < 1e-9 && $0.device == 0 },
                "\(log.entries)")
    }

    /// `DispatchQueue.main.async` and `asyncAfter` from a phone's app run as that phone, on the room's clock: at the
    /// call's time and 0.5 s (and 250 ms) later, in order; nothing runs before the room advances.
    @Test func mainQueueWorkRunsOnTheRoomsClockAsThePhone() throws {
        // The room is used on this thread only; the blocks run on it, during its advance.
        nonisolated(unsafe) let room = try room()
        let log = Log()
        let device = room.devices[1]
        room.advance(by: 1)
        device.perform {
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.5) { log.entries.append((room.now, SimulatedDevice.current?.index)) }
            DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(250)) {
                log.entries.append((room.now, SimulatedDevice.current?.index))
            }
            DispatchQueue.main.async { log.entries.append((room.now, SimulatedDevice.current?.index)) }
        }
        #expect(log.entries.isEmpty)
        room.advance(by: 1)
        #expect(log.entries.map(\.device) == [1, 1, 1])
        let times = log.entries.map { $0.time - 1 }
        #expect(times.count == 3 && abs(times[0]) < 1e-9 && abs(times[1] - 0.25) < 1e-9 && abs(times[2] - 0.5) < 1e-9,
                "\(times)")
        #expect(room.appProblems.isEmpty)
    }

    /// The forms Dispatch and Foundation send to the main queue themselves (a `DispatchWorkItem`, `asyncAfter` with
    /// one, `OperationQueue.main`) run as the phone on the room's clock too; `DispatchQueue.main.sync` runs at once,
    /// the room's thread being the phone's main thread.
    @Test func workItemsAndTheMainOperationQueueRunOnTheRoomsClock() throws {
        nonisolated(unsafe) let room = try room()
        let log = Log()
        room.advance(by: 1)
        room.devices[0].perform {
            let item = DispatchWorkItem { log.entries.append((room.now, SimulatedDevice.current?.index)) }
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.3, execute: item)
            DispatchQueue.main.async(execute: DispatchWorkItem { log.entries.append((room.now, SimulatedDevice.current?.index)) })
            OperationQueue.main.addOperation { log.entries.append((room.now, SimulatedDevice.current?.index)) }
            DispatchQueue.main.sync { log.entries.append((-1, SimulatedDevice.current?.index)) }
        }
        #expect(log.entries.count == 1 && log.entries.first?.time == -1 && log.entries.first?.device == 0)
        room.advance(by: 1)
        let times = log.entries.dropFirst().map { $0.time - 1 }
        #expect(log.entries.allSatisfy { $0.device == 0 }, "\(log.entries)")
        #expect(times.count == 3 && abs(times[0]) < 1e-9 && abs(times[1]) < 1e-9 && abs(times[2] - 0.3) < 1e-9,
                "\(times)")
    }

    /// `Task { @MainActor in }` and `Task { }` made in a phone's call run on the room's clock as that phone, at the
    /// call's time, on its main actor for the first; hops between the two (a `Task.yield()`) stay on the room's
    /// thread; nothing runs before the room advances.
    @Test func tasksRunOnTheRoomsClockAsThePhone() throws {
        nonisolated(unsafe) let room = try room()
        let log = Log()
        room.advance(by: 1)
        room.devices[1].perform {
            Task { @MainActor in
                log.entries.append((room.now, SimulatedDevice.current?.index))
                await Task.yield()
                log.entries.append((room.now, SimulatedDevice.current?.index))
                #expect(NISession().discoveryToken != nil)
            }
            Task { log.entries.append((room.now, SimulatedDevice.current?.index)) }
        }
        #expect(log.entries.isEmpty)
        room.advance(by: 0.5)
        #expect(log.entries.count == 3 && log.entries.allSatisfy { $0.device == 1 && abs($0.time - 1) < 1e-9 },
                "\(log.entries)")
        #expect(room.appProblems.isEmpty, "\(room.appProblems)")
    }

    /// Structured concurrency inside a phone's task stays on the room's thread as the phone: `async let` children, a
    /// task group's children and `await MainActor.run { }` all run at the call's time, before the room moves on.
    @Test func childTasksAndMainActorHopsStayOnTheRoomsClock() throws {
        nonisolated(unsafe) let room = try room()
        let log = Log()
        room.advance(by: 1)
        @Sendable func note() -> Int {
            log.entries.append((room.now, SimulatedDevice.current?.index))
            return 1
        }
        _ = room.devices[1].perform {
            Task {
                async let a = note()
                let b = await withTaskGroup(of: Int.self) { group in
                    for _ in 0..<2 { group.addTask { note() } }
                    return await group.reduce(0, +)
                }
                let c = await MainActor.run { note() }
                #expect(await a + b + c == 4)
            }
        }
        room.advance(by: 0.5)
        #expect(log.entries.count == 4 && log.entries.allSatisfy { $0.device == 1 && abs($0.time - 1) < 1e-9 },
                "\(log.entries)")
    }

    /// A phone's task sleeps on the room's clock: `Task.sleep(for: .seconds(2))` wakes when the room has run 2 s,
    /// exactly, however long the machine took before it slept (a stall of 20 ms here, as a busy machine gives).
    @Test func aTaskSleepsOnTheRoomsClock() throws {
        nonisolated(unsafe) let room = try room()
        let log = Log()
        room.advance(by: 1)
        _ = room.devices[1].perform {
            Task { @MainActor in
                usleep(20_000)
                try await Task.sleep(for: .seconds(2))
                log.entries.append((room.now, SimulatedDevice.current?.index))
                try await Task.sleep(nanoseconds: 250_000_000)
                log.entries.append((room.now, SimulatedDevice.current?.index))
            }
        }
        room.advance(by: 1.5)
        #expect(log.entries.isEmpty)
        room.advance(by: 2)
        #expect(log.entries.count == 2 && log.entries.allSatisfy { $0.device == 1 }
                && abs(log.entries[0].time - 3) < 1e-9 && abs(log.entries[1].time - 3.25) < 1e-9, "\(log.entries)")
    }

    /// A task resumed from another thread (a real queue's callback) goes on beside the room: a framework call it
    /// makes then is refused and said, naming the phone; the session it made has no token.
    @Test func aTaskResumedFromAnotherThreadIsRefusedAndSaid() async throws {
        let room = try room()
        let returned = DispatchSemaphore(value: 0)
        let task = room.devices[0].perform {
            Task {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    // The callback comes once the app's call has returned: on a busy machine the task could
                    // otherwise run to its end while the call is still open, and be the call's own work.
                    DispatchQueue.global().async {
                        returned.wait()
                        done.resume()
                    }
                }
                return NISession().discoveryToken == nil
            }
        }
        returned.signal()
        room.advance(by: 0.1)
        #expect(await task.value)
        let problems = room.appProblems
        #expect(problems.count == 1 && problems.first?.kind == .workOutsideTheRoom && problems.first?.device == 0,
                "\(problems)")
        #expect(problems.first?.message.contains("NISession()") == true)
    }

    /// An NISession made on no phone while the room advances (as a block on the real main queue would be) is said.
    @Test func aSessionMadeOffPhoneWhileTheRoomRunsIsSaid() throws {
        let room = try room()
        let done = DispatchSemaphore(value: 0)
        room.devices[0].schedule(after: 0.5) {
            Thread {
                _ = NISession()
                done.signal()
            }.start()
            done.wait()
        }
        room.advance(by: 1)
        let said = SimulatedRoom.problemsOnNoPhone.filter { $0.kind == .sessionOffPhone }
        #expect(said.count >= 1 && said.allSatisfy { $0.message.contains("NISession()") }, "\(said)")
        #expect(room.appProblems.isEmpty)
        // Made between advances, as a test may on purpose: nothing said (unless another test's room advances).
    }

    /// A `Timer` scheduled on the room's thread's run loop is said once, after the advance that saw it.
    @Test func aRunLoopTimerIsSaid() throws {
        let room = try room()
        let timer = room.devices[0].perform { Timer.scheduledTimer(withTimeInterval: 60, repeats: false) { _ in } }
        defer { timer.invalidate() }
        room.advance(by: 0.5)
        room.advance(by: 0.5)
        #expect(room.appProblems.map(\.kind) == [.runLoopTimer], "\(room.appProblems)")
    }

    /// Inside the room's call to a phone, the room's thread counts as the phone's main actor; outside, it does not.
    @Test func thePhonesCallsAreOnItsMainActor() throws {
        let room = try room()
        #expect(room.devices[0].perform { MainActor.assumeIsolated { true } })
    }
}

/// A phone lying flat (pitch −90°) and one held upright, screen toward the user.
private func poseScript() -> RoomScript {
    var script = RoomScript()
    script.devices.append(.init(name: "flat", waypoints: [.init(t: 0, x: 0, y: 0, z: 0.8, pitch: -90)]))
    script.devices.append(.init(name: "upright", waypoints: [.init(t: 0, x: 3, y: 0, z: 1.2)]))
    return script
}

@Suite struct CoreMotionFaceTests {
    /// Apple's units and signs: a phone lying screen-up reads z ≈ −1 g, one upright y ≈ −1 g; updates come at the
    /// interval asked for (30 Hz), and no faster than the hardware (100 Hz when asked for 1 kHz).
    @Test func accelerometerInAppleUnitsAtTheClampedInterval() throws {
        let room = try room(script: poseScript())
        var flat: [CMAcceleration] = [], upright: [CMAcceleration] = []
        var stamps: [Double] = []
        let managers = [0, 1].map { k in room.devices[k].perform { CMMotionManager() } }
        room.devices[0].perform {
            managers[0].accelerometerUpdateInterval = 1.0 / 30
            managers[0].startAccelerometerUpdates(to: .main) { data, _ in
                if let data { flat.append(data.acceleration); stamps.append(data.timestamp) }
            }
        }
        room.devices[1].perform {
            managers[1].accelerometerUpdateInterval = 0.001
            managers[1].startAccelerometerUpdates(to: .main) { data, _ in if let data { upright.append(data.acceleration) } }
        }
        room.advance(by: 10)
        #expect(abs(flat.count - 300) <= 3, "\(flat.count) updates at 30 Hz in 10 s")
        #expect(abs(upright.count - 1000) <= 10, "\(upright.count) updates asked at 1 kHz in 10 s")
        let meanFlat = flat.reduce(0) { $0 + $1.z } / Double(flat.count)
        let meanUpright = upright.reduce(0) { $0 + $1.y } / Double(upright.count)
        // Each chip has its own zero-g offset, 50 mg one standard deviation per axis (docs/sensors.md): 4 of them.
        #expect(abs(meanFlat + 1) < 0.2 && abs(meanUpright + 1) < 0.2, "\(meanFlat) \(meanUpright)")
        // Stamped on the phone's own clock, which is not the room's.
        let uptime = try #require(room.devices[0].uptime)
        #expect(stamps.last.map { uptime - $0 } ?? -1 >= 0 && uptime - stamps.last! < 0.1)
        #expect(abs(uptime - room.now) > 1)
        #expect(managers[0].accelerometerData?.timestamp == stamps.last)
    }

    /// Device motion: gravity of unit length pointing down the phone's −z when flat and −y when upright, little
    /// user acceleration, pitch 0° and 90°; a handler on another queue runs as the phone. The bounds are four of the
    /// chip's offsets (50 mg, or 2.9°, one standard deviation per axis), which the phone cannot tell from a tilt.
    @Test func deviceMotionFusedOnThePhone() throws {
        let room = try room(script: poseScript())
        let queue = OperationQueue()
        var motions: [[CMDeviceMotion]] = [[], []]
        var onPhone = true
        let managers = [0, 1].map { k in room.devices[k].perform { CMMotionManager() } }
        for k in 0..<2 {
            room.devices[k].perform {
                managers[k].startDeviceMotionUpdates(to: k == 0 ? .main : queue) { motion, _ in
                    onPhone = onPhone && SimulatedDevice.current === room.devices[k]
                    if let motion { motions[k].append(motion) }
                }
            }
        }
        room.advance(by: 5)
        #expect(onPhone)
        let settled = motions.map { $0.suffix(200) }
        for (k, expected) in [(0, (0.0, 0.0, -1.0)), (1, (0.0, -1.0, 0.0))] {
            let n = Double(settled[k].count)
            let g = settled[k].reduce((0.0, 0.0, 0.0)) { ($0.0 + $1.gravity.x, $0.1 + $1.gravity.y, $0.2 + $1.gravity.z) }
            let user = settled[k].reduce(0.0) { $0 + abs($1.userAcceleration.x) + abs($1.userAcceleration.y)
                + abs($1.userAcceleration.z) } / n
            #expect(abs(g.0 / n - expected.0) < 0.2 && abs(g.1 / n - expected.1) < 0.2
                    && abs(g.2 / n - expected.2) < 0.2, "device \(k): gravity \(g.0 / n), \(g.1 / n), \(g.2 / n)")
            #expect(user < 0.2, "device \(k): mean |user acceleration| \(user) g")
        }
        let pitches = settled.map { $0.reduce(0.0) { $0 + $1.attitude.pitch } / Double($0.count) * 180 / .pi }
        #expect(abs(pitches[0]) < 12 && abs(pitches[1] - 90) < 12, "\(pitches)")
        let attitude = try #require(settled[1].last?.attitude.copy() as? CMAttitude)
        attitude.multiply(byInverseOf: attitude)
        #expect(abs(attitude.quaternion.w - 1) < 1e-9)
    }

    /// No magnetometer: a frame that needs one is told `CMErrorNotAvailable` once; made off a phone, nothing is
    /// available and nothing comes.
    @Test func whatThePhonesDoNotHave() throws {
        let room = try room()
        let manager = room.devices[0].perform { CMMotionManager() }
        var errors: [Int] = [], updates = 0
        room.devices[0].perform {
            manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: .main) { motion, error in
                if motion != nil { updates += 1 }
                if let error = error as NSError? { errors.append(error.code) }
            }
        }
        let offPhone = CMMotionManager()
        var offUpdates = 0
        offPhone.startAccelerometerUpdates(to: .main) { _, _ in offUpdates += 1 }
        room.advance(by: 2)
        #expect(errors == [CMErrorNotAvailable] && updates == 0 && !manager.isMagnetometerAvailable)
        #expect(!offPhone.isAccelerometerAvailable && offUpdates == 0)
    }
}
