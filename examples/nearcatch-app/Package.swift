// swift-tools-version:6.0
import PackageDescription

// A NearCatch-style session manager written against Apple's MultipeerConnectivity and NearbyInteraction exactly as
// an iOS app would be, and its tests in nearcatch-sim's simulated room (docs/app-testing.md). On Linux the two
// frameworks' names are nearcatch-sim's faces over the room; on an iPhone the same file builds against Apple's.
let package = Package(
    name: "nearcatch-app",
    platforms: [.macOS(.v15)],
    products: [
        // Also measured by the benchmark suite (Benchmarks/, `apple-faces-30-devices-60s`).
        .library(name: "NearCatchApp", targets: ["NearCatchApp"]),
    ],
    dependencies: [
        .package(name: "nearcatch-sim", path: "../.."),
    ],
    targets: [
        .target(
            name: "NearCatchApp",
            dependencies: [
                .product(name: "MultipeerConnectivity", package: "nearcatch-sim"),
                .product(name: "NearbyInteraction", package: "nearcatch-sim"),
            ]
        ),
        .testTarget(
            name: "NearCatchAppTests",
            dependencies: [
                "NearCatchApp", .product(name: "NearbySimulator", package: "nearcatch-sim"),
                .product(name: "MultipeerConnectivity", package: "nearcatch-sim"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
