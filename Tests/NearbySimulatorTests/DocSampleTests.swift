import Foundation
import NearbySimulator
import Testing

@Test func oneSessionPerPeer() throws {
    var configuration = RoomConfiguration()
    configuration.peers = 20
    let room = try SimulatedRoom(configuration)
    let apps = room.devices.map { Manager(device: $0) }
    room.advance(by: 10)
    for app in apps {
        #expect(app.sessions.count == 19)
        #expect(app.sessions.values.allSatisfy { $0.state == .running })
    }
}

/// Every Swift sample of docs/app-testing.md is compiled: each is preceded by `<!-- compiled: PATH -->`, and the
/// file at PATH (built by `tools/test`: this package, or an example app's) holds the sample's text as it stands.
@Suite struct DocSampleTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func everySampleInTheAppTestingPageIsCompiledCode() throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/app-testing.md"), encoding: .utf8)
        let lines = page.components(separatedBy: "\n")
        var samples = 0
        var k = 0
        while k < lines.count {
            guard lines[k] == "```swift" else {
                k += 1
                continue
            }
            let marker = k > 0 ? lines[k - 1] : ""
            let end = try #require(lines[(k + 1)...].firstIndex(of: "```"), "a sample at line \(k + 1) never ends")
            let sample = lines[(k + 1)..<end].joined(separator: "\n")
            k = end + 1
            guard marker.hasPrefix("<!-- compiled: "), marker.hasSuffix(" -->") else {
                Issue.record("the sample at line \(k) has no `<!-- compiled: PATH -->` line before it")
                continue
            }
            let path = String(marker.dropFirst("<!-- compiled: ".count).dropLast(" -->".count))
            let source = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
            #expect(source.contains(sample), "the sample before line \(end + 1) is not in \(path) as it stands")
            samples += 1
        }
        #expect(samples >= 6, "\(samples) samples")
    }
}
