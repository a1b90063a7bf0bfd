// swift-tools-version:6.1
import Foundation
import PackageDescription

// A package of its own, so that the main package and its tests never build the benchmark dependency.
//
// The benchmarks measure the simulator's internals, whose declarations are `package` (only NearbySimulator and the
// Apple-shaped faces are public API): the benchmark target is compiled under the main package's name, which SwiftPM
// derives from its directory's name (a path dependency's identity), as it does for the main package's own modules.
let mainPackageName: String = {
    let directory = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent
    let name = String(directory.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    return name.first?.isNumber == true ? "_" + name : name
}()

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
                .product(name: "NearcatchBenchmarkSupport", package: "nearcatch-sim"),
                .product(name: "NearbySimulator", package: "nearcatch-sim"),
                .product(name: "SessionManager", package: "session-manager"),
                .product(name: "NearCatchApp", package: "nearcatch-app"),
            ],
            path: "Benchmarks/NearcatchBenchmarks",
            swiftSettings: [.unsafeFlags(["-package-name", mainPackageName])],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
