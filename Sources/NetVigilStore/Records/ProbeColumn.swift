/// The columns of `probe_results` after `id`, in table order. The INSERT (its column list and bind indexes), the
/// export's SELECT and the JSON row writer (`JSONStreamWriter.probeRow`, in `jsonSpecs` order) all derive from this
/// one list; `StoreSchema` creates the table it describes.
enum ProbeColumn: Int, CaseIterable {
    case time, target, url, outcome, errorKind, errorMessage, httpStatus, httpVersion, contentType, contentLength
    case resolve, connect, tls, processing, transfer, total, tlsVersion, tlsCipher, alpn, trustVerdict, pinVerdict
    case reachabilityStatus, resolvedAddress, redirectCount, servedChain, validatedChain, details
    /// Added by migration v3 (so after `details` in the table).
    case interface, interfaceKind
    // Added by migration v4 (at the table's end; `jsonSpecs` puts them where they belong in a row).
    case proxy, revocation, findings

    /// How a column's value is stored and written as JSON.
    enum Value {
        /// INTEGER milliseconds since the epoch; an RFC 3339 string.
        case timestamp
        /// TEXT; a JSON string.
        case text
        /// INTEGER; a JSON number.
        case integer
        /// REAL milliseconds; a number with three decimals.
        case milliseconds
        /// INTEGER id of a `certificate_chains` row; the chain's certificates as an array.
        case chain
        /// TEXT holding a JSON object; the object itself.
        case object
        /// TEXT holding a JSON array; the array itself.
        case array
    }

    /// An object a row's JSON nests some columns in.
    enum Group {
        case error, http, timings, tls

        /// The object's key in the row.
        var key: StaticString {
            switch self {
            case .error: "error"
            case .http: "http"
            case .timings: "timings_ms"
            case .tls: "tls"
            }
        }

        /// The column whose NULL makes the whole object `null`; nil when the object is always there.
        var lead: ProbeColumn? {
            switch self {
            case .error: .errorKind
            case .http: .httpStatus
            case .timings: nil
            case .tls: .tlsVersion
            }
        }
    }

    /// What a column is: its SQL name, how its value is kept, and where it sits in the JSON row. Only trivial values
    /// (no `String`), so walking the table per row costs no reference counting.
    struct Spec {
        let column: ProbeColumn
        /// The SQL column name.
        let name: StaticString
        let value: Value
        /// The JSON key (inside `group`, when there is one).
        let key: StaticString
        let group: Group?
    }

    /// The table of columns, in `allCases` order.
    static let specs: [Spec] = [
        Spec(column: .time, name: "time_ms", value: .timestamp, key: "time", group: nil),
        Spec(column: .target, name: "target", value: .text, key: "target", group: nil),
        Spec(column: .url, name: "url", value: .text, key: "url", group: nil),
        Spec(column: .outcome, name: "outcome", value: .text, key: "outcome", group: nil),
        Spec(column: .errorKind, name: "error_kind", value: .text, key: "kind", group: .error),
        Spec(column: .errorMessage, name: "error_message", value: .text, key: "message", group: .error),
        Spec(column: .httpStatus, name: "http_status", value: .integer, key: "status", group: .http),
        Spec(column: .httpVersion, name: "http_version", value: .text, key: "version", group: .http),
        Spec(column: .contentType, name: "content_type", value: .text, key: "content_type", group: .http),
        Spec(column: .contentLength, name: "content_length", value: .integer, key: "content_length", group: .http),
        Spec(column: .resolve, name: "resolve_ms", value: .milliseconds, key: "resolve", group: .timings),
        Spec(column: .connect, name: "connect_ms", value: .milliseconds, key: "connect", group: .timings),
        Spec(column: .tls, name: "tls_ms", value: .milliseconds, key: "tls", group: .timings),
        Spec(column: .processing, name: "processing_ms", value: .milliseconds, key: "processing", group: .timings),
        Spec(column: .transfer, name: "transfer_ms", value: .milliseconds, key: "transfer", group: .timings),
        Spec(column: .total, name: "total_ms", value: .milliseconds, key: "total", group: .timings),
        Spec(column: .tlsVersion, name: "tls_version", value: .text, key: "version", group: .tls),
        Spec(column: .tlsCipher, name: "tls_cipher", value: .text, key: "cipher", group: .tls),
        Spec(column: .alpn, name: "alpn", value: .text, key: "alpn", group: .tls),
        Spec(column: .trustVerdict, name: "trust_verdict", value: .text, key: "trust_verdict", group: nil),
        Spec(column: .pinVerdict, name: "pin_verdict", value: .text, key: "pin_verdict", group: nil),
        Spec(column: .reachabilityStatus, name: "reachability_status", value: .text, key: "reachability_status",
                    group: nil),
        Spec(column: .resolvedAddress, name: "resolved_address", value: .text, key: "resolved_address", group: nil),
        Spec(column: .redirectCount, name: "redirect_count", value: .integer, key: "redirect_count", group: nil),
        Spec(column: .servedChain, name: "served_chain_id", value: .chain, key: "served_chain", group: nil),
        Spec(column: .validatedChain, name: "validated_chain_id", value: .chain, key: "validated_chain", group: nil),
        Spec(column: .details, name: "details", value: .object, key: "details", group: nil),
        Spec(column: .interface, name: "interface", value: .text, key: "interface", group: nil),
        Spec(column: .interfaceKind, name: "interface_kind", value: .text, key: "interface_kind", group: nil),
        Spec(column: .proxy, name: "proxy_ms", value: .milliseconds, key: "proxy", group: .timings),
        Spec(column: .revocation, name: "revocation_ms", value: .milliseconds, key: "revocation", group: .timings),
        Spec(column: .findings, name: "findings", value: .array, key: "findings", group: nil),
    ]

    /// The columns in the order of a probe row's JSON fields (a group's columns together): `specs` with the later
    /// migrations' columns moved to their places (`proxy` after `connect`, `revocation` after `tls`, `findings`
    /// before `details`, as `netvigil probe --json` writes them).
    static let jsonSpecs: [Spec] = {
        let order: [ProbeColumn] = [
            .time, .target, .url, .outcome, .errorKind, .errorMessage, .httpStatus, .httpVersion, .contentType,
            .contentLength, .resolve, .connect, .proxy, .tls, .revocation, .processing, .transfer, .total, .tlsVersion,
            .tlsCipher, .alpn, .trustVerdict, .pinVerdict, .reachabilityStatus, .resolvedAddress, .redirectCount,
            .servedChain, .validatedChain, .findings, .details, .interface, .interfaceKind,
        ]
        return order.map { specs[$0.rawValue] }
    }()

    /// The 1-based bind index of this column in a row whose first parameter is at `offset + 1`.
    func bindIndex(offset: CInt) -> CInt { offset + CInt(rawValue) + 1 }

    /// The 0-based index of this column in a row of `selectList` (which starts with `id`).
    var selectIndex: CInt { CInt(rawValue) + 1 }

    /// `alias.id, alias.time_ms, …`: every column, after the row id.
    static func selectList(alias: String) -> String {
        ([alias + ".id"] + specs.map { alias + "." + $0.name.description }).joined(separator: ", ")
    }

    /// `INSERT … VALUES (?, …), …` for `rows` rows (its parameters: each row's columns in order).
    static func insertSQL(rows: Int) -> String {
        let tuple = "(" + Array(repeating: "?", count: specs.count).joined(separator: ", ") + ")"
        return "INSERT OR FAIL INTO probe_results (" + specs.map(\.name.description).joined(separator: ", ") + ") VALUES "
            + Array(repeating: tuple, count: rows).joined(separator: ", ")
    }
}
