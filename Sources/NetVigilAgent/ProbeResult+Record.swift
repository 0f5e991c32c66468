import Foundation
import NetVigilProber
import NetVigilStore

extension ProbeResult {
    /// The store's row for this result: one schema for the store, the export and `netvigil probe --json`
    /// (what has no column goes to `detailsJSON`, the same object `probe --json` prints as `details`).
    /// Within `ProbeRecord.Bounds` from the start, so what a server sends (a 60 KB `Location` on every redirect
    /// hop) costs no more in the event ring, the targets' state or the writer's queue than in the store.
    /// - Parameters:
    ///   - target: the configured target name.
    ///   - reachabilityStatus: the target host's reachability at probe time, if known.
    public func record(target: String, reachabilityStatus: String? = nil) -> ProbeRecord {
        var record = ProbeRecord(
            time: Timestamp(startedAt), target: target, url: url, outcome: outcome == .ok ? .ok : .failed,
            errorKind: error?.kind, errorMessage: error?.message, httpStatus: status, httpVersion: httpVersion,
            contentType: contentType, contentLength: contentLength.map(Int64.init), timings: timings,
            tlsVersion: tls?.version, tlsCipher: tls?.cipher, alpn: tls?.alpn, trustVerdict: trustVerdict,
            pinVerdict: pinVerdict, reachabilityStatus: reachabilityStatus, resolvedAddress: resolvedAddress,
            redirectCount: redirects.count, servedChain: servedChain.map(\.record),
            validatedChain: validatedChain.map(\.record), findings: trustVerdict == nil ? nil : findings,
            detailsJSON: detailsJSON)
        record.interface = interface
        record.interfaceKind = interfaceKind
        return record.exceedsBounds ? record.bounded : record
    }
}

extension ProbeResult.ChainCertificate {
    /// The store's certificate row.
    var record: CertificateRecord {
        CertificateRecord(sha256: sha256, pem: pem, subject: subject, issuer: issuer, serial: serial,
                          notBefore: Timestamp(notBefore), notAfter: Timestamp(notAfter), spkiPin: spkiPin)
    }
}
