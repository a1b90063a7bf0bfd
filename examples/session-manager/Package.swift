// swift-tools-version:6.0
import PackageDescription

// An app's session manager in NearCatch's pattern, and its tests against nearcatch-sim's NearbySimulator
// (docs/app-testing.md). The app code is plain Swift over the simulator's shapes; on a phone the same logic sits on
// the platform's peer-to-peer and ranging frameworks.
let package = Package(
    name: "session-manager",
    platforms: [.macOS(.v15)],
    products: [
        // Also measured by the benchmark suite (Benchmarks/, `app-room-20-devices-60s`).
        .library(name: "SessionManager", targets: ["SessionManager"]),
    ],
    dependencies: [
        .package(name: "nearcatch-sim", path: "../.."),
    ],
    targets: [
        .target(name: "SessionManager", dependencies: [.product(name: "NearbySimulator", package: "nearcatch-sim")]),
        .testTarget(
            name: "SessionManagerTests",
            dependencies: ["SessionManager", .product(name: "NearbySimulator", package: "nearcatch-sim")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
