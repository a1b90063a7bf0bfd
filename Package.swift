// swift-tools-version:6.0
import PackageDescription

// The module graph follows the data flow of docs/architecture.md: geometry is the truth, the radio turns
// truth into raw measurements, the estimator turns raw measurements into what an app receives. Only `GSL` imports
// the C module, so every other module stays free of C types and of GSL's global state.
let package = Package(
    name: "nearcatch-sim",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "nearcatch-sim", targets: ["nearcatch-sim"]),
        // For app developers: their own session code and tests against a simulated room (docs/app-testing.md). Its
        // declarations, and the few of other modules it names, are the package's public API; everything else is
        // `package`, for this package's own modules.
        .library(name: "NearbySimulator", targets: ["NearbySimulator"]),
        // For the benchmark package (Benchmarks/) alone, which depends on this one by path: the rooms and runs it
        // measures, behind a few public entry points (RangingBench); everything they reach inside stays `package`.
        .library(name: "RangingBench", targets: ["RangingBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CGSL",
            pkgConfig: "gsl",
            providers: [.apt(["libgsl-dev"]), .brew(["gsl"])]
        ),
        .target(name: "GSL", dependencies: ["CGSL"]),
        .target(name: "Geometry"),
        // The vocabulary both sides share: what a device observes (measurements, samples, jolts, messages) and what
        // it does (ranging plans, messages), with their units. World and device modules import it, never the reverse.
        .target(name: "DeviceInterface", dependencies: ["Geometry"]),
        .target(name: "Radio", dependencies: ["DeviceInterface", "GSL", "Geometry"]),
        .target(name: "Estimation", dependencies: ["DeviceInterface", "Geometry", "Sessions"]),
        .target(name: "Sessions"),
        .target(name: "World", dependencies: ["DeviceInterface", "GSL", "Geometry", "Radio"]),
        .target(name: "Bump", dependencies: ["DeviceInterface"]),
        // Device side: the ranging service's planning (who ranges when, from what the devices know), the session
        // view it plans over, the air's layout; no truth comes in.
        .target(name: "Planning", dependencies: ["DeviceInterface", "GSL", "Geometry"]),
        // The round step: the world's radio measures each planned exchange, the devices' estimators and detector
        // take it (pair slots, the round engine).
        .target(name: "Ranging", dependencies: ["Bump", "DeviceInterface", "Estimation", "GSL", "Geometry", "Planning", "Radio", "Sessions"]),
        // Device side: the phones of a room as the command line runs them: each phone's jolt finding, and NearCatch's
        // own logic (jolts and profiles sent, haptics, its detector's settings).
        .target(name: "ReferenceApp", dependencies: ["Bump", "DeviceInterface", "Planning", "Sessions"]),
        // The world's side of the air: which of the exchanges the devices asked for collide.
        .target(name: "Air", dependencies: ["DeviceInterface", "Geometry"]),
        .target(
            name: "Simulation",
            dependencies: [
                "Air", "Bump", "DeviceInterface", "Discovery", "DiscoveryRun", "Estimation", "GSL", "Geometry", "Planning",
                "Radio", "Ranging", "ReferenceApp", "Sessions", "SimulatedNetwork", "World",
            ]
        ),
        // The benchmarks' fixtures: standing rooms ranged round after round, the naive design and the compute floor
        // to compare with, whole runs, discovery set-ups, the flood's memory (public entry points for Benchmarks/).
        .target(
            name: "RangingBench",
            dependencies: [
                "Adversaries", "Air", "Bump", "DeviceInterface", "DiscoveryRun", "Estimation", "Geometry", "Planning",
                "Radio", "Ranging", "Sessions", "SimulatedNetwork", "Simulation", "World",
            ]
        ),
        // What lets the room's thread stand for a phone's main thread, to Swift's run-time isolation checks.
        .target(name: "MainActorHook"),
        .target(
            name: "NearbySimulator",
            dependencies: [
                "Bump", "DeviceInterface", "Discovery", "DiscoveryRun", "GSL", "MainActorHook", "Planning", "Ranging",
                "Sessions", "Simulation",
                "SimulatedNetwork", "TransportCore", "World",
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // What a discovery node needs of a network: the transport protocol, endpoints and datagrams, a node's clock.
        .target(name: "TransportCore"),
        // The world's network in memory: delivery with loss, delay and duplication, discovery's radio reach (the
        // devices' positions), the virtual clock.
        .target(
            name: "SimulatedNetwork",
            dependencies: ["GSL", "TransportCore", .product(name: "HeapModule", package: "swift-collections")]
        ),
        .target(
            name: "MulticastTransport",
            dependencies: [
                "TransportCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "Discovery",
            dependencies: [
                "Sessions", "GSL", "TransportCore", .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Discovery runs without a network library: the cluster interface, the pacing loop, the in-memory cluster.
        .target(name: "DiscoveryRun", dependencies: ["Discovery", "Sessions", "GSL", "SimulatedNetwork", "TransportCore"]),
        // The UDP cluster: the only run module that links SwiftNIO.
        .target(
            name: "UDPRun",
            dependencies: [
                "Discovery", "DiscoveryRun", "Sessions", "GSL", "TransportCore", "MulticastTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The FiRa UWB Command Interface's packets (issue 25's UCI face): headers, segmentation, reassembly.
        .target(name: "UCI"),
        // The simulated chips behind a UCI endpoint: their sessions, and the world's air and radio that range them.
        .target(name: "UCIRoom", dependencies: ["Air", "DeviceInterface", "GSL", "Geometry", "Radio", "UCI"]),
        // The UCI endpoint: TCP for the hosts, pica's HTTP API, captures.
        .target(
            name: "UCIServer",
            dependencies: [
                "Geometry", "UCI", "UCIRoom",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(name: "Calibration", dependencies: ["GSL", "Geometry", "Radio", "Estimation"]),
        .target(name: "Report"),
        // Sweeps: many runs of the simulator as separate processes (a local pool, or Dask through the program's own driver),
        // their summaries kept one file a run, aggregated with confidence intervals (docs/sweeps.md).
        .target(
            name: "Sweep",
            dependencies: [
                "GSL", .product(name: "TOMLKit", package: "TOMLKit"), .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "NearcatchCommand",
            dependencies: [
                "Calibration", "Radio", "Geometry", "Discovery", "DiscoveryRun", "MulticastTransport", "SimulatedNetwork",
                "TransportCore",
                "Planning", "Simulation", "UDPRun", "World", "Bump", "Report", "UCI", "UCIRoom", "UCIServer", "Sweep",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "nearcatch-sim", dependencies: ["NearcatchCommand", "ParentWatch", "ProcessMemory"]),
        // A sweep's run asks to end with the sweep (prctl, which Swift cannot call: it takes variable arguments).
        .target(name: "ParentWatch"),
        .target(name: "ProcessMemory"),
        // What the tests and the benchmarks throw at discovery from inside the group: a member's flood of fake ids.
        .target(name: "Adversaries", dependencies: ["Discovery", "DiscoveryRun", "SimulatedNetwork"]),
        .target(
            name: "TestSupport",
            dependencies: [
                "Air", "Bump", "DeviceInterface", "Discovery", "Estimation", "GSL", "Geometry", "Planning", "Radio", "Ranging",
                "Sessions",
            ]
        ),

        .testTarget(name: "GSLTests", dependencies: ["GSL", "TestSupport"]),
        .testTarget(name: "GeometryTests", dependencies: ["Geometry", "TestSupport"]),
        .testTarget(name: "RadioTests", dependencies: ["DeviceInterface", "Radio", "GSL", "Geometry", "TestSupport"]),
        .testTarget(name: "EstimationTests", dependencies: ["DeviceInterface", "Estimation", "Radio", "GSL", "Geometry", "Sessions", "TestSupport"]),
        .testTarget(name: "SessionsTests", dependencies: ["Sessions"]),
        .testTarget(name: "WorldTests", dependencies: ["DeviceInterface", "World", "Bump", "Geometry", "GSL", "Radio", "TestSupport"]),
        .testTarget(name: "BumpTests", dependencies: ["DeviceInterface", "Bump"]),
        .testTarget(
            name: "SimulationTests",
            dependencies: [
                "Simulation", "UDPRun", "MulticastTransport", "World", "Radio", "Bump", "Planning", "Ranging", "Sessions",
                "TestSupport",
            ]
        ),
        .testTarget(name: "RangingTests", dependencies: ["DeviceInterface", "Planning", "Ranging", "Radio", "Geometry", "Estimation", "Bump", "Sessions", "TestSupport"]),
        .testTarget(name: "AirTests", dependencies: ["DeviceInterface", "Air", "Geometry", "Planning", "Ranging", "TestSupport"]),
        .testTarget(
            name: "PlanningTests",
            dependencies: ["DeviceInterface", "Bump", "Estimation", "Geometry", "Planning", "Radio", "Ranging", "TestSupport"]
        ),
        .testTarget(name: "ReferenceAppTests", dependencies: ["Bump", "DeviceInterface", "Planning", "ReferenceApp", "Sessions"]),
        .testTarget(name: "RangingBenchTests", dependencies: ["RangingBench", "Simulation"]),
        .testTarget(name: "SimulatedNetworkTests", dependencies: ["SimulatedNetwork", "TransportCore"]),
        .testTarget(name: "ReportTests", dependencies: ["Report", "Simulation"]),
        .testTarget(name: "NearbySimulatorTests", dependencies: ["DeviceInterface", "Bump", "NearbySimulator"]),
        .testTarget(
            name: "MulticastTransportTests",
            dependencies: [
                "MulticastTransport", "TestSupport", "TransportCore", .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "DiscoveryRunTests",
            dependencies: [
                "Adversaries", "DiscoveryRun", "UDPRun", "MulticastTransport", "Discovery", "GSL", "Sessions",
                "SimulatedNetwork", "TransportCore", "TestSupport",
            ]
        ),
        .testTarget(name: "DiscoveryTests", dependencies: [
            "Discovery", "Sessions", "GSL", "TransportCore", "TestSupport", .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .testTarget(name: "SweepTests", dependencies: ["Sweep", "NearcatchCommand", "TestSupport", "nearcatch-sim"]),
        .testTarget(name: "UCITests", dependencies: ["Air", "DeviceInterface", "Planning", "UCI", "UCIRoom", "UCIServer", "Geometry", "TestSupport"]),
        .testTarget(name: "CalibrationTests", dependencies: ["Calibration", "DeviceInterface", "Radio", "Geometry", "TestSupport"]),
        // The command tests run the built executable too (two processes discovering each other).
        .testTarget(
            name: "NearcatchCommandTests",
            dependencies: ["NearcatchCommand", "Calibration", "UCIRoom", "TestSupport", "nearcatch-sim"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Apple's frameworks' shapes over the simulated room (docs/app-testing.md), so that an iOS app's own session code
// compiles unchanged. Linux only: on Apple's systems the real frameworks answer to these names.
#if os(Linux)
package.products += [
    .library(name: "NearbyInteraction", targets: ["NearbyInteraction"]),
    .library(name: "MultipeerConnectivity", targets: ["MultipeerConnectivity"]),
    .library(name: "CoreMotion", targets: ["CoreMotion"]),
]
package.targets += [
    // `simd`, which an iOS file may import for the directions' vectors; the face re-exports it. (Not `os` or
    // `OSLog`: packages probe `#if canImport(os)` and expect Apple's, as swift-argument-parser's locks do.)
    .target(name: "simd"),
    // Apple's enums as Apple declares them, in C (open enums), so that Swift treats them as non-frozen.
    .target(name: "FrameworkEnums"),
    // The main queue of a phone's app on the room's clock; every face re-exports it.
    .target(name: "AppQueues", dependencies: ["MainActorHook", "NearbySimulator"]),
    .target(name: "NearbyInteraction", dependencies: ["AppQueues", "FrameworkEnums", "NearbySimulator", "simd"]),
    .target(name: "MultipeerConnectivity", dependencies: ["AppQueues", "FrameworkEnums", "NearbySimulator"]),
    .target(name: "CoreMotion", dependencies: ["AppQueues", "DeviceInterface", "FrameworkEnums", "NearbySimulator"]),
    .testTarget(
        name: "AppleFacesTests", dependencies: ["CoreMotion", "NearbyInteraction", "MultipeerConnectivity", "NearbySimulator"]
    ),
]
#endif
