import NetVigilStore

extension TargetSnapshot {
    /// One address of an `addresses: all` target in its last tick: which one failed, and how.
    public struct AddressStatus: Sendable, Codable, Equatable {
        public var address: String
        /// The interface of its path (`source: { interfaces: }`) and that interface's kind; nil over the kernel's route.
        public var interface: String?
        public var interfaceKind: String?
        /// `up`, `down` or `skipped`.
        public var status: Status
        public var errorKind: String?
        public var errorMessage: String?
        public var trustVerdict: String?
        public var pinVerdict: String?
        /// SPKI pin of the leaf this address served.
        public var servedPin: String?
        /// When this address was probed.
        public var time: Timestamp?
        /// The probe's total duration in milliseconds (nil when it did not get that far).
        public var totalMilliseconds: Double?
        /// The HTTP status this address answered with.
        public var httpStatus: Int?
        /// Whole days from the probe to the earliest `notAfter` of the chain this address served.
        public var certificateDaysLeft: Int?

        enum CodingKeys: String, CodingKey {
            case address, status, time, interface, interfaceKind = "interface_kind"
            case errorKind = "error_kind", errorMessage = "error_message", trustVerdict = "trust_verdict"
            case pinVerdict = "pin_verdict", servedPin = "served_pin", totalMilliseconds = "total_ms"
            case httpStatus = "http_status", certificateDaysLeft = "certificate_days_left"
        }

        /// The status of one per-address row.
        init(_ record: ProbeRecord) {
            address = record.resolvedAddress ?? "?"
            interface = record.interface
            interfaceKind = record.interfaceKind
            switch record.outcome {
            case .ok: status = .up
            case .failed: status = .down
            case .skipped: status = .skipped
            }
            errorKind = record.errorKind?.rawValue
            errorMessage = record.errorMessage
            trustVerdict = record.trustVerdict?.description
            pinVerdict = record.pinVerdict?.rawValue
            servedPin = record.servedChain.first?.spkiPin
            time = record.time
            totalMilliseconds = record.timings.total
            httpStatus = record.httpStatus
            certificateDaysLeft = TargetSnapshot.certificateExpiry(of: record).daysLeft
        }
    }
}
