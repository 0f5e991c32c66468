extension PinValidationReport {
    /// One failing address of an `addresses: all` target and the chains it showed.
    public struct AddressChains: Sendable, Codable, Equatable {
        public var address: String
        /// The interface of its path (`source: { interfaces: }`); absent over the kernel's route.
        public var interface: String?
        /// The chain this address served, leaf first, as PEM.
        public var servedCertificateChain: [String]
        /// The chain as validated, leaf → anchor, as PEM; empty when none validated.
        public var validatedCertificateChain: [String]

        enum CodingKeys: String, CodingKey {
            case address, interface
            case servedCertificateChain = "served-certificate-chain"
            case validatedCertificateChain = "validated-certificate-chain"
        }

        /// The chains of one finding.
        public init(_ finding: AddressFinding) {
            address = finding.address
            interface = finding.interface
            servedCertificateChain = finding.servedChain.map(\.pem)
            validatedCertificateChain = finding.validatedChain.map(\.pem)
        }
    }
}
