import NetVigilProber

/// How the daemon shares its open-file limit: its own files and the probes first, feed clients with what is left.
///
/// The process must never reach its limit. Besides failing the probe or connection that found no descriptor,
/// `EMFILE` kills the whole process: libdispatch's thread-pool monitor opens `/proc/<tid>/stat` once a second
/// while work waits on a global queue (Swift concurrency's default executor, GRDB's queues), and a failed open
/// there is a crash ("workq: registered worker exited prematurely", SIGILL). So the feed's connection cap and
/// the probe concurrency are lowered at start until the worst case fits under the limit.
public struct DescriptorBudget: Sendable, Equatable {
    /// Descriptors one running probe of a plain target may hold at once: the resolver's socket, the connection, a
    /// proxy or a revocation fetch, with room to spare. See `descriptors(for:)` for targets that connect more often.
    public static let perProbe = 4
    /// Fewest connections the feed keeps even under a tight limit, so `/healthz` and `/metrics` stay reachable.
    public static let minimumFeedConnections = 8

    /// The soft `RLIMIT_NOFILE` the budget was made for.
    public let limit: Int
    /// Descriptors kept for the daemon itself (see `reserved(processors:)`).
    public let reserved: Int
    /// Probes running at once: `scheduler.concurrency`, lowered if the limit cannot hold that many.
    public let concurrency: Int
    /// Descriptors the probes may hold at once, at `concurrency`.
    public let probeDescriptors: Int
    /// Open feed connections at most: `feed.max_connections`, lowered to what the probes leave.
    public let feedConnections: Int
    /// Concurrent event streams at most, kept below `feedConnections`.
    public let eventSubscribers: Int
    /// One sentence per setting that was lowered, for the log.
    public let adjustments: [String]

    /// Descriptors the daemon holds besides probes and feed clients: standard streams, the store's files and
    /// readers, netlink sockets, the feed's listener, alert deliveries, hook pipes, files read at a reload, and
    /// three per event loop (epoll, eventfd, timerfd). An idle daemon on 2 cores holds 28.
    public static func reserved(processors: Int) -> Int { 48 + 4 * max(1, processors) }

    /// Descriptors one tick of `target` may hold at once: a connection per path and address it probes (`source:`
    /// paths × `connect_to` addresses or, with `addresses: all`, up to `Prober.maxAddressesPerProbe`), plus the
    /// resolver's socket and a proxy or revocation fetch; at least `perProbe`.
    public static func descriptors(for target: ProbeTarget) -> Int {
        let addresses = target.configuration.connectTo?.addresses.count
            ?? (target.probesEachAddress ? Prober.maxAddressesPerProbe : 1)
        return max(perProbe, max(1, target.sources.count) * addresses + 2)
    }

    /// The budget for `limit` descriptors (nil: no limit could be read, nothing is lowered). `targets` are the
    /// configured ones: the heaviest of them are assumed to run together; every other probe slot gets `perProbe`.
    public init(limit: Int?, processors: Int, scheduler: SchedulerSection, feed: FeedSection, targets: [ProbeTarget] = []) {
        let reserved = Self.reserved(processors: processors)
        guard let limit else {
            self.init(limit: Int.max, reserved: reserved, concurrency: scheduler.concurrency, probeDescriptors: 0,
                      feedConnections: feed.maxConnections, eventSubscribers: feed.maxEventSubscribers, adjustments: [])
            return
        }
        let available = max(0, limit - reserved)
        var adjustments: [String] = []
        let raise = "raise the limit (LimitNOFILE= in the unit, ulimit -n) to keep it"

        // probes[n]: what the n heaviest probes running together may hold.
        let heaviest = Array(targets.map(Self.descriptors(for:)).sorted(by: >).prefix(scheduler.concurrency))
        var probes = [0]
        probes.reserveCapacity(scheduler.concurrency + 1)
        for slot in 0..<scheduler.concurrency {
            probes.append(probes[slot] + (slot < heaviest.count ? heaviest[slot] : Self.perProbe))
        }
        let fitting = probes.lastIndex { $0 <= available - Self.minimumFeedConnections } ?? 0
        let concurrency = max(1, fitting)
        if concurrency < scheduler.concurrency {
            let heavy = heaviest.first.map { $0 > Self.perProbe ? " (up to \($0) for a probe of several paths or addresses)" : "" } ?? ""
            adjustments.append("scheduler.concurrency \(scheduler.concurrency) lowered to \(concurrency): the open-file "
                               + "limit is \(limit), \(reserved) are kept for the daemon and each probe may need "
                               + "\(Self.perProbe)\(heavy); \(raise)")
        }
        let feedFits = max(Self.minimumFeedConnections, available - probes[concurrency])
        let feedConnections = min(feed.maxConnections, feedFits)
        if feedConnections < feed.maxConnections {
            adjustments.append("feed.max_connections \(feed.maxConnections) lowered to \(feedConnections): the open-file "
                               + "limit is \(limit) and probes keep \(reserved + probes[concurrency]) of it "
                               + "(more clients wait in the kernel's accept queue); \(raise)")
        }
        var eventSubscribers = feed.maxEventSubscribers
        if eventSubscribers >= feedConnections {
            eventSubscribers = max(1, feedConnections / 2)
            adjustments.append("feed.max_event_subscribers \(feed.maxEventSubscribers) lowered to \(eventSubscribers) "
                               + "to stay below the lowered feed.max_connections (\(feedConnections))")
        }
        self.init(limit: limit, reserved: reserved, concurrency: concurrency, probeDescriptors: probes[concurrency],
                  feedConnections: feedConnections, eventSubscribers: eventSubscribers, adjustments: adjustments)
    }

    private init(limit: Int, reserved: Int, concurrency: Int, probeDescriptors: Int, feedConnections: Int,
                 eventSubscribers: Int, adjustments: [String]) {
        self.limit = limit
        self.reserved = reserved
        self.concurrency = concurrency
        self.probeDescriptors = probeDescriptors
        self.feedConnections = feedConnections
        self.eventSubscribers = eventSubscribers
        self.adjustments = adjustments
    }

    /// `feed` with this budget's connection and event-stream caps.
    public func applied(to feed: FeedSection) -> FeedSection {
        var feed = feed
        feed.maxConnections = feedConnections
        feed.maxEventSubscribers = eventSubscribers
        return feed
    }
}
