extension PinValidationReport {
    /// One failing address of an `addresses: all` target and the chains it showed.
    public struct AddressChains: Sendable, Codable, Equatable {
        public var address: String
        /// The chain this address served, leaf first, as PEM.
        public var servedCertificateChain: [String]
        /// The chain as validated, leaf → anchor, as PEM; empty when none validated.
        public var validatedCertificateChain: [String]

        enum CodingKeys: String, CodingKey {
            case address
            case servedCertificateChain = "served-certificate-chain"
            case validatedCertificateChain = "validated-certificate-chain"
        }

        /// The chains of one finding.
        public init(_ finding: AddressFinding) {
            address = finding.address
            servedCertificateChain = finding.servedChain.map(\.pem)
            validatedCertificateChain = finding.validatedChain.map(\.pem)
        }
    }
}
