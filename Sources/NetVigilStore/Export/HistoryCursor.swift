import Foundation

/// A position in the merged history order (time, then kind in `ExportQuery.Kind` order, then row id).
///
/// Clients see it only as an opaque string (base64url of `v1.TIME_MS.KIND.ID`); because it names a row key rather
/// than an offset, a page boundary stays put while new rows are written.
public struct HistoryCursor: Sendable, Hashable, Comparable {
    /// Milliseconds since the epoch of the row.
    public var time: Int64
    /// Which table the row is in.
    public var kind: ExportQuery.Kind
    /// The row's id in its table.
    public var id: Int64

    public init(time: Int64, kind: ExportQuery.Kind, id: Int64) {
        self.time = time
        self.kind = kind
        self.id = id
    }

    /// Position of `kind` in the merge order (probes, reachability, alerts).
    var kindOrder: Int { ExportQuery.Kind.allCases.firstIndex(of: kind) ?? 0 }

    public static func < (lhs: HistoryCursor, rhs: HistoryCursor) -> Bool {
        (lhs.time, lhs.kindOrder, lhs.id) < (rhs.time, rhs.kindOrder, rhs.id)
    }

    /// The opaque form handed to clients.
    public var encoded: String {
        let text = "v1.\(time).\(kindOrder).\(id)"
        return Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes a string produced by `encoded`; nil for anything else.
    public init?(encoded: String) {
        var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.isEmpty, base64.count <= 96, !base64.contains("=") else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "v1", let time = Int64(parts[1]), let order = Int(parts[2]),
              ExportQuery.Kind.allCases.indices.contains(order), let id = Int64(parts[3]) else { return nil }
        self.init(time: time, kind: ExportQuery.Kind.allCases[order], id: id)
    }
}
