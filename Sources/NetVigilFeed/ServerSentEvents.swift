import Foundation
import Hummingbird
import NetVigilAgent
import NetVigilStore

/// The `text/event-stream` framing of `/v1/events`.
enum ServerSentEvents {
    /// The comment sent every keep-alive interval so proxies and clients see a live connection.
    static let keepAlive = ByteBuffer(string: ": keep-alive\n\n")

    /// Sent once the subscription is in place: from here on the client misses nothing.
    static let opened = ByteBuffer(string: ": netvigil events\n\n")

    /// `id: N`, `event: NAME`, `data: JSON` and the blank line that ends the event.
    static func message(_ entry: EventHub.Entry) throws -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeString("id: \(entry.id)\nevent: \(entry.event.name)\ndata: ")
        buffer.writeBytes(try data(entry.event))
        buffer.writeString("\n\n")
        return buffer
    }

    /// `event: reset`: the client was too slow and `missed` events are gone; it continues after `lastID` and should
    /// re-read the full state (`/v1/status`).
    static func reset(missed: UInt64, lastID: UInt64) -> ByteBuffer {
        ByteBuffer(string: "id: \(lastID)\nevent: reset\ndata: {\"last_id\":\(lastID),\"missed\":\(missed)}\n\n")
    }

    /// One line of JSON: the export's row object for probes and reachability changes, the alert event otherwise.
    static func data(_ event: AgentEvent) throws -> [UInt8] {
        switch event {
        case .probe(let record): return ExportRowJSON.probe(record)
        case .reachability(let record): return ExportRowJSON.reachability(record)
        case .alert(let alert):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoder.keyEncodingStrategy = .convertToSnakeCase
            return Array(try encoder.encode(alert))
        }
    }

    /// The `Last-Event-ID` request header as an event id; nil when absent.
    static func lastEventID(_ headers: HTTPFields) throws -> UInt64? {
        guard let text = headers.first(where: { $0.name.canonicalName == "last-event-id" })?.value else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return nil }
        guard let id = UInt64(trimmed) else {
            throw FeedRequestError("Last-Event-ID: expected an event id (a non-negative integer), got \"\(text.prefix(40))\"")
        }
        return id
    }
}
