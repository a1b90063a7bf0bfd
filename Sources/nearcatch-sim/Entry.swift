import Dispatch
import Foundation
import NearcatchCommand
import ParentWatch
import ProcessMemory

/// The executable's entry point. A synchronous `main` that runs the command's asynchronous one on the global
/// executor and waits for it: the program needs no main actor, and an asynchronous `main` would hand the main thread
/// to the dispatch main queue for good, which valgrind 3.19 (Debian 12's, which tools/bench-machine counts
/// instructions with) cannot follow.
@main
enum Entry {
    static func main() {
        // One malloc arena for every thread: a crowd's tables are made and grown on the network's and the world's
        // worker threads, and glibc's arena per thread kept what one freed out of another's reach (1,000 peers:
        // 501 to 509 MB peak resident with an arena per thread, 462 MB with one, and no slower).
        _ = nearcatch_one_malloc_arena()
        // A sweep's run ends with the sweep: SIGTERM, which ends a run as Ctrl-C does, when the sweep's process ends.
        if let parent = ProcessInfo.processInfo.environment["NEARCATCH_SWEEP_PARENT"].flatMap(Int32.init),
           nearcatch_end_with_parent(SIGTERM, parent) == 1 {
            FileHandle.standardError.write(Data("the sweep that started this run has ended\n".utf8))
            exit(143)
        }
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await NearcatchSim.main()
            done.signal()
        }
        done.wait()
    }
}
