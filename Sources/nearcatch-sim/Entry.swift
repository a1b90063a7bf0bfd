import NearcatchCommand

/// The executable's entry point: an `@main` type, so that the asynchronous `main` of the command runs (top-level code
/// in main.swift would pick the synchronous one).
@main
enum Entry {
    static func main() async {
        await NearcatchSim.main()
    }
}
