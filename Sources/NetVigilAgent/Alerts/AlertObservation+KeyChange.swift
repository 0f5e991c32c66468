import NetVigilStore

extension AlertObservation {
    /// `key_changed`: the served leaf's public key differs from the one the target's previous result showed, whatever
    /// the verdicts (a trusted, pin-matched key can still be a surprise). Neutral without a served chain or without a
    /// previous key at the same endpoint (the first result ever); the next result with an unchanged key is good.
    static func keyChange(_ record: ProbeRecord, previous: LeafKey?, context: AlertContext) -> AlertObservation {
        guard let leaf = record.servedChain.first, let previous, previous.endpoint == context.endpoint else { return .neutral }
        guard previous.pin != leaf.spkiPin else { return .good }
        var message = "server key changed on \(context.host):\(context.port): old pin \(previous.pin), new pin \(leaf.spkiPin) "
        message += "(\(leaf.subject), notAfter \(leaf.notAfter.rfc3339)"
        if let trust = record.trustVerdict { message += ", \(trust == .trusted ? "trusted" : "untrusted")" }
        if let pin = record.pinVerdict { message += ", pins \(pin.rawValue)" }
        message += ")"
        return .bad(message: message, fingerprint: "\(previous.pin)>\(leaf.spkiPin)")
    }
}
