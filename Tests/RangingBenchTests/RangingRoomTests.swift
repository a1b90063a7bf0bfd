import Foundation
import RangingBench
import Simulation
import Testing

@Suite struct RangingRoomTests {
    @Test func everyPairRangesOncePerRound() throws {
        var ideal = SimulationSettings()
        ideal.rangingPolicy = .ideal
        // Every link clear and never faded, so that what is counted is the plan: 2% of exchanges are lost.
        ideal.radio.linkModel = .lineOfSight
        ideal.radio.fadeSNR = -200
        ideal.radio.fadeWidth = 0
        let room = try RangingRoom(peers: 30, workers: 2, settings: ideal)
        #expect(room.pairs == 435)
        for k in 1...20 { room.round(at: Double(k) / 10) }
        let received = Double(room.exchangesReceived) / Double(20 * 435)
        #expect(received > 0.97 && received < 0.99)
        // Each received exchange updates the responder, and the initiator when the responder's report reaches it:
        // each frame is kept with the cube root of the exchange's 98%, so 0.67% of the reports are lost (to within
        // four standard errors).
        let reportsLost = 2 * room.exchangesReceived - room.updatesDelivered
        let expected = (1 - cbrt(0.98)) * Double(room.exchangesReceived)
        #expect(abs(Double(reportsLost) - expected) < 4 * expected.squareRoot(), "\(reportsLost) against \(expected)")
    }

    @Test func workersDoNotChangeTheResult() throws {
        let one = try RangingRoom(peers: 25, workers: 1)
        let three = try RangingRoom(peers: 25, workers: 3)
        for k in 1...10 {
            one.round(at: Double(k) / 10)
            three.round(at: Double(k) / 10)
        }
        #expect(one.updatesDelivered == three.updatesDelivered)
        #expect(one.exchangesReceived == three.exchangesReceived)
    }
}
