import Foundation
import NetVigilHTTP
import NetVigilStore

extension ProbeResult {
    /// The store's row for this result: one schema for the store, the export and `netvigil probe --json`.
    /// - Parameters:
    ///   - target: the configured target name.
    ///   - reachabilityStatus: the target host's reachability at probe time, if known.
    public func record(target: String, reachabilityStatus: String? = nil) -> ProbeRecord {
        ProbeRecord(
            time: Timestamp(startedAt), target: target, url: url, outcome: outcome == .ok ? .ok : .failed,
            errorKind: error?.kind.rawValue, errorMessage: error?.message, httpStatus: status, httpVersion: httpVersion,
            contentType: contentType, contentLength: contentLength.map(Int64.init),
            timings: PhaseTimings(resolve: timings.resolve, connect: timings.connect, tls: timings.tls,
                                  processing: timings.processing, transfer: timings.transfer, total: timings.total),
            tlsVersion: tls?.version, tlsCipher: tls?.cipher, alpn: tls?.alpn, trustVerdict: trustVerdict,
            pinVerdict: pinVerdict, reachabilityStatus: reachabilityStatus, resolvedAddress: resolvedAddress,
            redirectCount: redirects.count, servedChain: servedChain.map(\.record),
            validatedChain: validatedChain.map(\.record), detailsJSON: detailsJSON)
    }

    /// Redirect hops, expectation failures, the error's alert/phase and the trust explanation, as a JSON object; nil when empty.
    var detailsJSON: String? {
        struct Details: Encodable {
            var finalURL: String?
            var redirects: [Redirect]?
            var expectationFailures: [String]?
            var alert: String?
            var phase: String?
            var trustMessage: String?
        }
        let details = Details(finalURL: finalURL == url ? nil : finalURL, redirects: redirects.isEmpty ? nil : redirects,
                              expectationFailures: expectationFailures.isEmpty ? nil : expectationFailures,
                              alert: error?.alert, phase: error?.phase, trustMessage: trustMessage)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(details), data.count > 2 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

extension ProbeResult.ChainCertificate {
    /// The store's certificate row.
    var record: CertificateRecord {
        CertificateRecord(sha256: sha256, pem: pem, subject: subject, issuer: issuer, serial: serial,
                          notBefore: Timestamp(notBefore), notAfter: Timestamp(notAfter), spkiPin: spkiPin)
    }
}
