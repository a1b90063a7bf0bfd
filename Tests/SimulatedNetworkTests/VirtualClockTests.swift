import Testing
import SimulatedNetwork

@Suite struct VirtualClockTests {
    @Test func runsInTimeOrderThenInSchedulingOrder() {
        let clock = VirtualClock()
        var order: [String] = []
        clock.schedule(at: 2) { order.append("c") }
        clock.schedule(at: 1) { order.append("a") }
        clock.schedule(at: 1) { order.append("b") }
        clock.schedule(at: 5) { order.append("late") }
        let reached = clock.run(until: 3)
        #expect(order == ["a", "b", "c"])
        #expect(reached == 3 && clock.now == 3)
        #expect(!clock.isIdle)
        #expect(clock.executed == 3)
    }

    @Test func pastTimesRunNowAndStopConditionHalts() {
        let clock = VirtualClock()
        var times: [Double] = []
        clock.schedule(at: 1) {
            clock.schedule(at: 0.5) { times.append(clock.now) }
            times.append(clock.now)
        }
        clock.schedule(at: 4) { times.append(clock.now) }
        let reached = clock.run(until: 10) { times.count == 2 }
        #expect(times == [1, 1])
        #expect(reached == 1)
        clock.run(until: 10)
        #expect(times == [1, 1, 4])
        #expect(clock.isIdle)
    }
}
