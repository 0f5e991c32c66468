extension AgentMetrics {
    /// Sets `netvigil_healthy` (the verdict `/healthz` serves).
    public func healthy(_ value: Bool) {
        setGauge(Name.healthy, [], value ? 1 : 0)
    }

    /// Sets the store's writability and its in-memory queue.
    public func store(writable: Bool, queuedRows: Int) {
        setGauge(Name.storeWritable, [], writable ? 1 : 0)
        setGauge(Name.storeQueuedRows, [], Double(queuedRows))
    }

    /// Counts rows the writer dropped from its full queue.
    public func storeDroppedRows(_ count: Int) {
        increment(Name.storeDroppedRowsTotal, by: count)
    }

    /// Counts a probe that failed because the agent itself ran out of descriptors or memory.
    public func resourceExhausted() {
        increment(Name.resourceExhaustedTotal, by: 1)
    }

    /// Counts a revocation fetch refused for where it would connect (``RevocationFetchRefusal``).
    public func revocationFetchRefused() {
        increment(Name.revocationFetchesRefusedTotal, by: 1)
    }

    /// Sets the number of open `/v1/events` streams.
    public func eventSubscribers(_ count: Int) {
        setGauge(Name.eventSubscribers, [], Double(count))
    }

    /// Counts a `/v1/events` request refused with 503.
    public func eventSubscriberRefused() {
        increment(Name.eventSubscribersRefusedTotal, by: 1)
    }
}
