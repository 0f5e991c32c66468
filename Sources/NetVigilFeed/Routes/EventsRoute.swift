import Hummingbird
import NetVigilAgent
import NetVigilSystem
import ServiceLifecycle

extension FeedRoutes {
    /// How often an idle event stream gets a `: keep-alive` comment.
    static let eventsKeepAlive: Duration = .seconds(15)

    /// `GET /v1/events`: Server-Sent Events from the daemon's `EventHub`.
    ///
    /// A client sending `Last-Event-ID` first gets the retained events after that id, then live ones. An id above the
    /// hub's newest comes from before a daemon restart (ids start at 1 again): the client then gets all retained events.
    /// A client too slow to keep up gets `event: reset` (it missed events; re-read `/v1/status`) and continues live.
    /// With the hub's `maxSubscribers` streams open, the route answers 503. The stream ends when the client
    /// disconnects, the hub finishes or the server shuts down.
    static func addEvents(to router: Router<BasicRequestContext>, state: FeedState,
                          keepAlive: Duration = eventsKeepAlive) {
        router.get("/v1/events") { request, _ -> Response in
            guard let hub = state.events else {
                throw FeedRequestError("event stream not available: the feed runs without the daemon's event hub",
                                       status: .serviceUnavailable)
            }
            let lastID = try ServerSentEvents.lastEventID(request.headers)
            let after = lastID.map { $0 > hub.lastID ? 0 : $0 }
            // Subscribed here so a full hub is a 503. The body closes it on every path; a response that is never
            // written releases it, and the hub holds subscriptions weakly, so the slot is freed either way.
            let subscription: EventSubscription
            do {
                subscription = try hub.subscribe(after: after)
            } catch {
                state.metrics?.agent.eventSubscriberRefused()
                throw FeedRequestError("\(error)", status: .serviceUnavailable)
            }
            let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                defer {
                    subscription.close()
                    // The last stream of a burst has gone: give the freed heap back.
                    if hub.subscriberCount == 0 { MemoryRelease.trimSoon() }
                }
                do {
                    try await request.body.consumeWithCancellationOnInboundClose { _ in
                        try await withGracefulShutdownHandler {
                            try await streamEvents(subscription, keepAlive: keepAlive, to: &writer)
                        } onGracefulShutdown: {
                            subscription.close()
                        }
                    }
                } catch is CancellationError {
                    // The client went away or the server is stopping: nothing more to send.
                }
                try? await writer.finish(nil)
            })
        }
    }

    /// Sends the opening comment, then events, resets and keep-alives until the subscription ends.
    private static func streamEvents(_ subscription: EventSubscription, keepAlive: Duration,
                                     to writer: inout any ResponseBodyWriter) async throws {
        try await writer.write(ServerSentEvents.opened)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while true {
                    try await Task.sleep(for: keepAlive)
                    subscription.interrupt()
                }
            }
            defer { group.cancelAll() }
            while let delivery = await subscription.next() {
                try Task.checkCancellation()
                switch delivery {
                case .event(let entry): try await writer.write(try ServerSentEvents.message(entry))
                case .reset(let missed, let lastID): try await writer.write(ServerSentEvents.reset(missed: missed, lastID: lastID))
                case .idle: try await writer.write(ServerSentEvents.keepAlive)
                }
            }
            try Task.checkCancellation()
        }
    }
}
