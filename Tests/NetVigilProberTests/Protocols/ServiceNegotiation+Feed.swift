@testable import NetVigilProber

extension ServiceNegotiation {
    /// Feeds `text` as bytes.
    mutating func feed(_ text: String) -> [NegotiationAction] { received(Array(text.utf8)) }
}

extension NegotiationAction {
    /// The failure kind, nil for other actions.
    var failureKind: ProbeError.Kind? {
        if case .fail(let kind, _) = self { return kind }
        return nil
    }
}
