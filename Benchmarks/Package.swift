// swift-tools-version:6.1
import PackageDescription

// A package of its own, so that the main package and its tests never build the benchmark dependency. What it
// measures sits in the main package's RangingBench module behind a few public entry points, so that the simulator's
// internals stay `package` there.
let package = Package(
    name: "nearcatch-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "nearcatch-sim", path: ".."),
        .package(name: "session-manager", path: "../examples/session-manager"),
        .package(name: "nearcatch-app", path: "../examples/nearcatch-app"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "NearcatchBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "RangingBench", package: "nearcatch-sim"),
                .product(name: "NearbySimulator", package: "nearcatch-sim"),
                .product(name: "SessionManager", package: "session-manager"),
                .product(name: "NearCatchApp", package: "nearcatch-app"),
            ],
            path: "Benchmarks/NearcatchBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
