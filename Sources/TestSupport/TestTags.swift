import Testing

/// What decides which of tools/test's passes runs a test (tools/tests-by-tag reads them from the test binary): a
/// test with any of these runs in the one-at-a-time pass, every other test in the parallel pass. Plain `swift test`
/// runs every test at once; each of these must pass there too (a loaded machine may make them slow, not wrong).
extension Tag {
    /// Opens real sockets, paces a run on the wall clock or holds processes of its own to time limits: CPU-heavy
    /// tests beside it starve its event loops and timers.
    @Tag package static var realTime: Self
    /// Needs Dask's environment (.build/dask-venv), which the test makes with tools/ensure-dask when it is missing.
    @Tag package static var dask: Self
}
