import Foundation
import NetVigilConcurrency

extension AgentMetrics {
    /// Records the outcome of loading the configuration (at start and on every SIGHUP), as Prometheus itself does:
    /// `netvigil_config_last_reload_successful` 1 or 0, and the time of the last success.
    public func configReloaded(successful: Bool, at time: Date = Date()) {
        setGauge(Name.configLastReloadSuccessful, [], successful ? 1 : 0)
        if successful { setGauge(Name.configLastReloadSuccessTimestamp, [], time.timeIntervalSince1970) }
    }

    /// Sets `netvigil_config_reload_running_seconds`: how long the reload in progress has run, 0 when none runs.
    public func configReloadRunning(_ duration: Duration?) {
        setGauge(Name.configReloadRunning, [], duration?.inSeconds ?? 0)
    }

    /// Updates the standard `process_*` metrics from `/proc/self` (call before each scrape is rendered).
    public func refreshProcess() {
        guard let statistics = ProcessStatistics.current() else { return }
        setGauge(Name.processResidentMemory, [], statistics.residentMemoryBytes)
        setGauge(Name.processOpenFDs, [], Double(statistics.openFileDescriptors))
        if let limit = statistics.maxFileDescriptors { setGauge(Name.processMaxFDs, [], Double(limit)) }
        setGauge(Name.processStartTime, [], statistics.startTime)
        raiseCounter(Name.processCPUSeconds, to: statistics.cpuSeconds)
    }
}
