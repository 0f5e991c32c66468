extension AlertObservation {
    /// ` at 192.0.2.1, 192.0.2.2` (` at 192.0.2.1 via wwan0` for paths): the addresses of an `addresses: all` tick that `matches`; empty otherwise.
    static func addressSuffix(_ context: AlertContext, where matches: (AddressFinding) -> Bool) -> String {
        let addresses = context.addresses.filter(matches).map(\.path)
        return addresses.isEmpty ? "" : " at " + addresses.joined(separator: ", ")
    }

    /// The pin mismatch message of an `addresses: all` tick: each mismatching address with the keys it served.
    static func addressPinMismatchMessage(reportOnly: Bool, endpoint: String, context: AlertContext) -> String {
        let mismatching = context.addresses.filter(\.pinMismatch)
        var message = "\(reportOnly ? "report-only " : "")pin mismatch on \(endpoint) at "
            + mismatching.map(\.path).joined(separator: ", ")
        message += ": " + mismatching.map { finding in
            let served = finding.servedChain.map(\.spkiPin)
            return "\(finding.path) served " + (served.isEmpty ? "no keys" : served.joined(separator: ", "))
        }.joined(separator: "; ")
        message += "; known pins " + (context.knownPins.isEmpty ? "none" : context.knownPins.joined(separator: ", "))
        return message
    }

    /// The addresses and what each served, for the dedupe fingerprint (a new failing address is a new report).
    static func addressFingerprint(_ context: AlertContext) -> String {
        context.addresses.filter { $0.pinMismatch || $0.untrusted }
            .map { "\($0.path)=\($0.servedChain.map(\.sha256).joined(separator: ","))" }.joined(separator: ";")
    }
}
