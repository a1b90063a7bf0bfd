import Testing
import Transport

@Suite struct VirtualSchedulerTests {
    @Test func runsInTimeOrderThenInSchedulingOrder() {
        let scheduler = VirtualScheduler()
        var order: [String] = []
        scheduler.schedule(at: 2) { order.append("c") }
        scheduler.schedule(at: 1) { order.append("a") }
        scheduler.schedule(at: 1) { order.append("b") }
        scheduler.schedule(at: 5) { order.append("late") }
        let reached = scheduler.run(until: 3)
        #expect(order == ["a", "b", "c"])
        #expect(reached == 3 && scheduler.now == 3)
        #expect(!scheduler.isIdle)
        #expect(scheduler.executed == 3)
    }

    @Test func pastTimesRunNowAndStopConditionHalts() {
        let scheduler = VirtualScheduler()
        var times: [Double] = []
        scheduler.schedule(at: 1) {
            scheduler.schedule(at: 0.5) { times.append(scheduler.now) }
            times.append(scheduler.now)
        }
        scheduler.schedule(at: 4) { times.append(scheduler.now) }
        let reached = scheduler.run(until: 10) { times.count == 2 }
        #expect(times == [1, 1])
        #expect(reached == 1)
        scheduler.run(until: 10)
        #expect(times == [1, 1, 4])
        #expect(scheduler.isIdle)
    }
}
