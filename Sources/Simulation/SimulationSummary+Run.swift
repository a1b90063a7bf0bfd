extension SimulationSummary.Run {
    /// What a run of `settings` is, as the summary's `run` section and the trace's first line say.
    init(settings: SimulationSettings) {
        let sampled = settings.sensors == .samples
        self.init(
            peers: settings.peerCount, scenario: settings.scenario.name, transport: settings.transport.rawValue,
            clock: settings.clock.rawValue, workers: settings.workers, seed: settings.seed,
            duration: settings.duration, rate: settings.rate, interruptedAt: nil, groupKey: settings.groupKey.name,
            version: settings.version,
            // The Float's decimal value, not its binary one (0.08, not 0.0799999982).
            loss: settings.loss, bumpDistance: Double(String(settings.bump.distance)) ?? Double(settings.bump.distance),
            lineOfSightSigma: settings.radio.lineOfSightSigma, antennaDelaySigma: settings.radio.antennaDelaySigma,
            levelBias: settings.radio.levelBiasShare, link: settings.radio.linkModel.rawValue,
            planner: settings.rangingPolicy.label, detector: settings.bump.method.rawValue,
            sensors: settings.sensors.rawValue, imuRate: sampled ? settings.imu.rate : nil,
            clockOffset: sampled ? settings.clockOffset : nil,
            traceUpdateInterval: settings.traceUpdateInterval, tracePoseInterval: settings.tracePoseInterval,
            traceEvery: settings.tracePath != nil && settings.traceEvery > 1 ? settings.traceEvery : nil,
            discoveryRange: settings.transport == .memory && settings.discoveryRange.isFinite
                ? settings.discoveryRange : nil,
            maximumSessions: settings.maximumSessions)
    }
}
