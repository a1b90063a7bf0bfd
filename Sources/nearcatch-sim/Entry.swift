import Dispatch
import NearcatchCommand

/// The executable's entry point. A synchronous `main` that runs the command's asynchronous one on the global
/// executor and waits for it: the program needs no main actor, and an asynchronous `main` would hand the main thread
/// to the dispatch main queue for good, which valgrind 3.19 (Debian 12's, which tools/bench-machine counts
/// instructions with) cannot follow.
@main
enum Entry {
    static func main() {
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await NearcatchSim.main()
            done.signal()
        }
        done.wait()
    }
}
