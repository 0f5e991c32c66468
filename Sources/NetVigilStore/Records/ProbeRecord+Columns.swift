extension ProbeRecord {
    /// A column's value in a record, typed as the column stores it (see `ProbeColumn.Value`).
    enum ColumnValue {
        case integer(Int64?)
        case milliseconds(Double?)
        /// Typed values in their stored form: raw values, `TrustSummary` text.
        case text(String?)
        /// The certificates of a chain column (the store gives the chain its id).
        case chain([CertificateRecord])
    }

    /// The value of `column`: the one place a record's fields meet the table's columns.
    func value(_ column: ProbeColumn) -> ColumnValue {
        switch column {
        case .time: .integer(time.milliseconds)
        case .target: .text(target)
        case .url: .text(url)
        case .outcome: .text(outcome.rawValue)
        case .errorKind: .text(errorKind?.rawValue)
        case .errorMessage: .text(errorMessage)
        case .httpStatus: .integer(httpStatus.map(Int64.init))
        case .httpVersion: .text(httpVersion)
        case .contentType: .text(contentType)
        case .contentLength: .integer(contentLength)
        case .resolve: .milliseconds(timings.resolve)
        case .connect: .milliseconds(timings.connect)
        case .tls: .milliseconds(timings.tls)
        case .processing: .milliseconds(timings.processing)
        case .transfer: .milliseconds(timings.transfer)
        case .total: .milliseconds(timings.total)
        case .tlsVersion: .text(tlsVersion)
        case .tlsCipher: .text(tlsCipher)
        case .alpn: .text(alpn)
        case .trustVerdict: .text(trustVerdict?.description)
        case .pinVerdict: .text(pinVerdict?.rawValue)
        case .reachabilityStatus: .text(reachabilityStatus)
        case .resolvedAddress: .text(resolvedAddress)
        case .redirectCount: .integer(Int64(redirectCount))
        case .servedChain: .chain(servedChain)
        case .validatedChain: .chain(validatedChain)
        case .details: .text(detailsJSON)
        }
    }
}
