import Discovery
import Sessions
import TestSupport
import Testing

@Suite struct DiscoveryRulesTests {
    @Test(arguments: ["a", "nearcatch", "near-catch", "x1", "1x", "abcdefghijklmno", "a-b-c", "9-lives"])
    func validServiceTypes(_ value: String) throws {
        try DiscoveryRules.checkServiceType(value)
    }

    @Test(arguments: [
        ("", "must be 1 to 15 characters long"), ("abcdefghijklmnop", "must be 1 to 15 characters long"),
        ("Near", "may hold only lowercase ASCII letters, digits and hyphens"),
        ("near_catch", "may hold only lowercase ASCII letters, digits and hyphens"),
        ("néar", "may hold only lowercase ASCII letters, digits and hyphens"),
        ("123", "must hold at least one letter"), ("-near", "may not begin or end with a hyphen"),
        ("near-", "may not begin or end with a hyphen"), ("near--catch", "may not hold two hyphens in a row"),
    ])
    func invalidServiceTypes(_ value: String, _ rule: String) {
        do {
            try DiscoveryRules.checkServiceType(value)
            Issue.record("\(value) accepted")
        } catch {
            #expect(error.description == "service type \"\(value)\" \(rule)")
        }
    }

    @Test func displayNameIsAtMost63BytesOfUTF8() throws {
        try DiscoveryRules.checkDisplayName(String(repeating: "a", count: 63))
        try DiscoveryRules.checkDisplayName(String(repeating: "é", count: 31))  // 62 bytes
        #expect(throws: DiscoveryRuleError.self) { try DiscoveryRules.checkDisplayName(String(repeating: "é", count: 32)) }
        #expect(throws: DiscoveryRuleError.self) { try DiscoveryRules.checkDisplayName("") }
    }

    @Test func discoveryInfoLimits() throws {
        try DiscoveryRules.checkDiscoveryInfo(["k": String(repeating: "v", count: 253)])  // k= + 253 = 255
        #expect(throws: DiscoveryRuleError.self) {
            try DiscoveryRules.checkDiscoveryInfo(["k": String(repeating: "v", count: 254)])
        }
        #expect(throws: DiscoveryRuleError.self) { try DiscoveryRules.checkDiscoveryInfo(["a=b": "c"]) }
        #expect(throws: DiscoveryRuleError.self) { try DiscoveryRules.checkDiscoveryInfo(["": "c"]) }
        let big = ["a": String(repeating: "x", count: 200), "b": String(repeating: "x", count: 200)]
        do {
            try DiscoveryRules.checkDiscoveryInfo(big)
            Issue.record("404 bytes accepted")
        } catch {
            #expect(error.description == "discovery info \"2 entries\" must be at most 400 bytes in all, not 404")
        }
        #expect(throws: DiscoveryRuleError.self) {
            try Advertisement(serviceType: "ok", signingKey: TestIdentities.identity(TestIdentities.peer(1)).publicKey, incarnation: 1, displayName: "x",
                              discoveryInfo: big, unicastPort: 1)
        }
    }
}
