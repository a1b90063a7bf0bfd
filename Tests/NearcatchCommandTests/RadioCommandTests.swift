import ArgumentParser
import Foundation
import NearcatchCommand
import Testing

@Suite struct RadioCommandTests {
    @Test(arguments: [
        (["radio", "--samples", "0"], "--samples must be between 1 and 10000000, got 0"),
        (["radio", "--distance", "-1"], "--distance must be between 0 and 100 metres, got -1.0"),
        (["radio", "--azimuth", "200"], "--azimuth must be between -180 and 180 degrees, got 200.0"),
        (["radio", "--rate", "0"], "--rate must be between 0.1 and 1000 Hz, got 0.0"),
        (["radio", "--reply-delay", "0"], "--reply-delay must be above 0 and at most 100 ms, got 0.0"),
        (["radio", "--fov", "95"], "--fov must be between 0 and 90 degrees, got 95.0"),
        (["radio", "--distance", "nan"], "--distance must be between 0 and 100 metres, got nan"),
    ])
    func validationNamesTheFlag(_ arguments: [String], _ expected: String) {
        #expect(parseError(arguments) == expected)
    }

    @Test(arguments: [["radio", "--samples", "abc"], ["radio", "--link", "foggy"], ["radio", "--seed", "-3"]])
    func unparsableValuesNameTheFlag(_ arguments: [String]) throws {
        let text = try #require(parseError(arguments))
        #expect(text.contains(arguments[1]))
    }

    @Test func jsonReportHasItsDocumentedFields() throws {
        let command = try #require(
            try NearcatchSim.parseAsRoot(["radio", "--samples", "2000", "--format", "json", "--seed", "9"])
                as? RadioCommand)
        let output = try command.render()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let inputs = try #require(json["inputs"] as? [String: Any])
        #expect(inputs["seed"] as? Int == 9)
        #expect(inputs["samples"] as? Int == 2000)
        #expect(inputs["link"] as? String == "los")
        let report = try #require(json["report"] as? [String: Any])
        for key in ["samples", "dropoutShare", "outOfRangeShare", "nonLineOfSightShare", "rawDistance",
                    "filteredDistance", "gateRefusals", "filterRestarts", "azimuthDegrees", "elevationDegrees",
                    "rawDirectionDegrees", "smoothedDirectionDegrees", "noDirectionShare", "clampedShare"] {
            #expect(report[key] != nil, "missing \(key)")
        }
        let raw = try #require(report["rawDistance"] as? [String: Any])
        #expect(Set(raw.keys) == ["count", "bias", "standardDeviation", "rootMeanSquare", "medianAbsolute",
                                  "p95Absolute"])
        let sd = try #require(raw["standardDeviation"] as? Double)
        #expect(sd > 0.05 && sd < 0.15)
        // The same seed renders the same bytes.
        #expect(output == (try command.render()))
    }

    @Test func negativeAnglesAreValues() throws {
        let command = try #require(
            try NearcatchSim.parseAsRoot(["radio", "--azimuth", "-30", "--elevation", "-10"]) as? RadioCommand)
        #expect(abs(command.settings.azimuth + Double.pi / 6) < 1e-12)
        #expect(abs(command.settings.elevation + Double.pi / 18) < 1e-12)
    }

    @Test func textReportShowsTheTable() throws {
        let command = try #require(try NearcatchSim.parseAsRoot(["radio", "--samples", "500"]) as? RadioCommand)
        let text = try command.render()
        #expect(text.hasPrefix("radio probe: 2.0 m, azimuth 0.0°"))
        #expect(text.contains("distance raw"))
        #expect(text.contains("direction smoothed"))
        #expect(text.contains("range gate:"))
    }
}
