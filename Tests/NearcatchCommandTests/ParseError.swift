import NearcatchCommand

/// The message the command line prints for `arguments`, or `nil` when they parse and validate.
func parseError(_ arguments: [String]) -> String? {
    do {
        _ = try NearcatchSim.parseAsRoot(arguments)
        return nil
    } catch {
        return NearcatchSim.message(for: error)
    }
}
