import Hummingbird
import NetVigilAgent
import ServiceLifecycle

extension FeedRoutes {
    /// How often an idle event stream gets a `: keep-alive` comment.
    static let eventsKeepAlive: Duration = .seconds(15)

    /// `GET /v1/events`: Server-Sent Events from the daemon's `EventHub`.
    ///
    /// A client sending `Last-Event-ID` first gets the retained events after that id, then live ones. An id above the
    /// hub's newest comes from before a daemon restart (ids start at 1 again): the client then gets all retained events.
    /// The stream ends when the client disconnects, the hub finishes or the server shuts down.
    static func addEvents(to router: Router<BasicRequestContext>, state: FeedState,
                          keepAlive: Duration = eventsKeepAlive) {
        router.get("/v1/events") { request, _ -> Response in
            guard let hub = state.events else {
                throw FeedRequestError("event stream not available: the feed runs without the daemon's event hub",
                                       status: .serviceUnavailable)
            }
            let lastID = try ServerSentEvents.lastEventID(request.headers)
            let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                let (items, relay) = AsyncStream<EventHub.Entry?>.makeStream(bufferingPolicy: .bufferingNewest(hub.capacity))
                do {
                    try await request.body.consumeWithCancellationOnInboundClose { _ in
                        try await withGracefulShutdownHandler {
                            try await streamEvents(from: hub, after: lastID, keepAlive: keepAlive,
                                                   relay: (items, relay), to: &writer)
                        } onGracefulShutdown: {
                            relay.finish()
                        }
                    }
                } catch is CancellationError {
                    // The client went away or the server is stopping: nothing more to send.
                }
                try? await writer.finish(nil)
            })
        }
    }

    /// Subscribes, sends the opening comment, then relays events and keep-alives (`nil` in the relay) until the hub
    /// or the relay finishes.
    private static func streamEvents(from hub: EventHub, after lastID: UInt64?, keepAlive: Duration,
                                     relay: (items: AsyncStream<EventHub.Entry?>, continuation: AsyncStream<EventHub.Entry?>.Continuation),
                                     to writer: inout any ResponseBodyWriter) async throws {
        let after = lastID.map { $0 > hub.lastID ? 0 : $0 }
        let events = hub.subscribe(after: after)
        try await writer.write(ServerSentEvents.opened)
        let (items, relay) = relay
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await entry in events { relay.yield(entry) }
                relay.finish()
            }
            group.addTask {
                while true {
                    try await Task.sleep(for: keepAlive)
                    relay.yield(nil)
                }
            }
            defer { group.cancelAll() }
            for await item in items {
                try Task.checkCancellation()
                if let entry = item {
                    try await writer.write(try ServerSentEvents.message(entry))
                } else {
                    try await writer.write(ServerSentEvents.keepAlive)
                }
            }
            try Task.checkCancellation()
        }
    }
}
