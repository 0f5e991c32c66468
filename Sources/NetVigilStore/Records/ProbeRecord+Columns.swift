/// Receives one column's value from `ProbeRecord.visit`, borrowed: the insert's hot loop copies nothing.
protocol ProbeColumnVisitor {
    mutating func integer(_ value: Int64?)
    mutating func milliseconds(_ value: Double?)
    /// Typed values arrive in their stored form: raw values, `TrustSummary` text.
    mutating func text(_ value: String?)
    /// The certificates of a chain column (the store gives the chain its id).
    mutating func chain(_ certificates: [CertificateRecord])
}

extension ProbeRecord {
    /// Hands the value of `column` to `visitor`: the one place a record's fields meet the table's columns.
    @inline(__always)
    func visit(_ column: ProbeColumn, _ visitor: inout some ProbeColumnVisitor) {
        switch column {
        case .time: visitor.integer(time.milliseconds)
        case .target: visitor.text(target)
        case .url: visitor.text(url)
        case .outcome: visitor.text(outcome.rawValue)
        case .errorKind: visitor.text(errorKind?.rawValue)
        case .errorMessage: visitor.text(errorMessage)
        case .httpStatus: visitor.integer(httpStatus.map(Int64.init))
        case .httpVersion: visitor.text(httpVersion)
        case .contentType: visitor.text(contentType)
        case .contentLength: visitor.integer(contentLength)
        case .resolve: visitor.milliseconds(timings.resolve)
        case .connect: visitor.milliseconds(timings.connect)
        case .proxy: visitor.milliseconds(timings.proxy)
        case .tls: visitor.milliseconds(timings.tls)
        case .revocation: visitor.milliseconds(timings.revocation)
        case .processing: visitor.milliseconds(timings.processing)
        case .transfer: visitor.milliseconds(timings.transfer)
        case .total: visitor.milliseconds(timings.total)
        case .tlsVersion: visitor.text(tlsVersion)
        case .tlsCipher: visitor.text(tlsCipher)
        case .alpn: visitor.text(alpn)
        case .trustVerdict: visitor.text(trustVerdict?.description)
        case .pinVerdict: visitor.text(pinVerdict?.rawValue)
        case .reachabilityStatus: visitor.text(reachabilityStatus)
        case .resolvedAddress: visitor.text(resolvedAddress)
        case .redirectCount: visitor.integer(Int64(redirectCount))
        case .servedChain: visitor.chain(servedChain)
        case .validatedChain: visitor.chain(validatedChain)
        case .findings: visitor.text(findingsJSON)
        case .details: visitor.text(detailsJSON)
        case .interface: visitor.text(interface)
        case .interfaceKind: visitor.text(interfaceKind)
        }
    }

    /// A column's value as a value (for code off the hot paths: the event stream's JSON, tests).
    enum ColumnValue {
        case integer(Int64?)
        case milliseconds(Double?)
        case text(String?)
        case chain([CertificateRecord])
    }

    /// The value of `column` (see `visit`).
    func value(_ column: ProbeColumn) -> ColumnValue {
        var collector = ColumnValueCollector()
        visit(column, &collector)
        return collector.value
    }
}

/// Keeps the value `ProbeRecord.visit` hands over.
private struct ColumnValueCollector: ProbeColumnVisitor {
    var value = ProbeRecord.ColumnValue.integer(nil)

    mutating func integer(_ value: Int64?) { self.value = .integer(value) }
    mutating func milliseconds(_ value: Double?) { self.value = .milliseconds(value) }
    mutating func text(_ value: String?) { self.value = .text(value) }
    mutating func chain(_ certificates: [CertificateRecord]) { value = .chain(certificates) }
}
