extension SecurityPolicy {
    /// The configured pins that are the key of a CA certificate: a pinned certificate that is a CA, or one of
    /// `authorities` (the anchors, system roots). Such a pin matches every certificate the CA issues, for any host.
    public func caKeyPins(among authorities: [Certificate]) -> [(pin: SPKIPin, authority: Certificate)] {
        let candidates = (pinnedCertificates + authorities).filter(\.isCA)
        return configuredPins.compactMap { pin in
            candidates.first { $0.spkiPin == pin }.map { (pin, $0) }
        }
    }
}
