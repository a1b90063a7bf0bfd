import Foundation

/// The package's own manifest, read as text: its targets and the targets of this package each depends on.
package enum PackageManifest {
    /// The source tree's root.
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The manifest's text.
    package static func text() throws -> String {
        try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
    }

    /// Every target of `manifest` (regular, executable, test, system library) and the targets of this package it
    /// depends on, by name.
    package static func targets(of manifest: String) throws -> [String: [String]] {
        let kinds = "target|executableTarget|testTarget|systemLibrary"
        let target = try Regex(#"\.(?:"# + kinds + #")\(\s*name:\s*"(\w+)"(?:,\s*dependencies:\s*\[([^\]]*)\])?"#)
        var dependencies: [String: [String]] = [:]
        for match in manifest.matches(of: target) {
            let name = String(match.output[1].substring ?? "")
            let list = match.output[2].substring.map(String.init) ?? ""
            // Products of other packages are named inside `.product(...)`; only this package's targets are quoted bare.
            let bare = list.replacing(try Regex(#"\.product\([^)]*\)"#), with: "")
            dependencies[name] = bare.matches(of: try Regex(#""(\w+)""#))
                .compactMap { $0.output[1].substring.map(String.init) }
        }
        return dependencies
    }
}
