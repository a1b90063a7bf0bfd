import Foundation
import Synchronization

/// Something an app did that the room cannot run as a phone would, on Linux (docs/app-testing.md, "The main queue,
/// timers and tasks"): said on standard error the first time each kind happens in a process, and kept, every time,
/// in ``SimulatedRoom/appProblems`` for a test to check.
public struct AppProblem: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// A framework call from a task resumed from another thread (a real queue's callback): it runs at real time
        /// on another thread, beside the room; it is refused.
        case workOutsideTheRoom
        /// A `Timer` scheduled on the run loop of the thread that advances the room (`Timer.scheduledTimer`,
        /// `RunLoop.current.add`): it would fire on the wall clock, never on the room's.
        case runLoopTimer
        /// An `NISession` made outside any phone while a room advances: work on another queue, or sent to the main
        /// thread by a means the room cannot reach (`RunLoop.main.perform`), runs there, on no phone.
        case sessionOffPhone
    }

    /// What kind of thing.
    public let kind: Kind
    /// The device whose app did it (its index), when known.
    public let device: Int?
    /// What happened and what to write instead.
    public let message: String

    public var description: String {
        (device.map { "device \($0): " } ?? "") + message
    }
}

/// The problems of every room in the process, and which kinds were already said on standard error.
@_spi(Faces)
public enum AppProblems {
    private static let said = Mutex<Set<AppProblem.Kind>>([])
    /// How many rooms are advancing now, on any thread.
    private static let advancing = Atomic<Int>(0)

    static func began() { advancing.add(1, ordering: .relaxed) }
    static func ended() { advancing.subtract(1, ordering: .relaxed) }
    static var roomsAdvancing: Int { advancing.load(ordering: .relaxed) }

    /// What happened on no phone, beside whichever rooms advanced then.
    static let onNoPhone = Mutex<[AppProblem]>([])

    /// Tells `problem`: on standard error if its kind is new in this process, and to its device's room (with none,
    /// to ``SimulatedRoom/problemsOnNoPhone``: no room can tell it was its own).
    public static func report(_ problem: AppProblem, in room: SimulatedRoom?) {
        if let room {
            room.record(problem)
        } else {
            onNoPhone.withLock { $0.append(problem) }
        }
        let first = said.withLock { $0.insert(problem.kind).inserted }
        guard first else { return }
        FileHandle.standardError.write(Data("nearcatch-sim: \(problem)\n".utf8))
    }
}

extension SimulatedDevice {
    /// Reports that the app of this device did something the room cannot run (``AppProblem``).
    @_spi(Faces)
    public func report(_ kind: AppProblem.Kind, _ message: String) {
        AppProblems.report(AppProblem(kind: kind, device: index, message: message), in: room)
    }

    /// Whether a face may act for the work running now; if not (the work outlived the app's call), says so and
    /// returns false. `what` names the call, as the app wrote it.
    @_spi(Faces)
    public static func admits(_ what: String) -> Bool {
        guard let device = outlivedCall else { return true }
        device.report(.workOutsideTheRoom, "\(what) was called from a task the app started that was resumed from "
            + "another thread (a real queue's callback): it runs at real time on that thread, beside the room, which "
            + "cannot run it on its clock; the call is refused. Resume it from the main queue, or from the room's "
            + "calls (docs/app-testing.md, \"The main queue, timers and tasks\")")
        return false
    }

    /// Says, when a room is advancing, that an `NISession` or a peer was made on no phone (`what` names it); a
    /// test that makes one outside ``perform(_:)`` on purpose, between advances, hears nothing.
    @_spi(Faces)
    public static func madeOffPhone(_ what: String) {
        guard current == nil else { return }
        guard admits(what) else { return }
        let rooms = AppProblems.roomsAdvancing
        guard rooms > 0 else { return }
        AppProblems.report(AppProblem(kind: .sessionOffPhone, device: nil, message: "\(what) was made on no "
            + "phone while a room advanced: work on a queue other than the main one, or sent to the main thread by "
            + "a means the room cannot reach (RunLoop.main.perform, a DispatchSource), runs on another thread, "
            + "outside every phone; it has no hardware. Send it with DispatchQueue.main.async { } (the room runs the "
            + "block as the phone that sent it) or make it in the delegate method (docs/app-testing.md, \"The main "
            + "queue, timers and tasks\")"), in: nil)
    }
}
