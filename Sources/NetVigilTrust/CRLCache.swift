import Foundation
import Synchronization

/// CRLs downloaded from distribution points, by URL, kept until their nextUpdate, and good OCSP answers, by
/// responder and certificate, kept until theirs. Shared by the probes of one configuration; thread-safe. Holds at
/// most `capacity` CRLs and as many OCSP answers (the oldest download goes first).
public final class CRLCache: Sendable {
    private struct Entry {
        var crl: CertificateRevocationList
        var stored: UInt64
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let ocspAnswers = Mutex<[String: (der: Data, until: Date)]>([:])
    /// Failed downloads by URL: why, and until when a probe does not try again.
    private let failures = Mutex<[String: (why: String, until: Date)]>([:])
    /// How long a failed download is not retried.
    public static let failureBackoff: TimeInterval = 60
    private let counter = Atomic<UInt64>(0)
    /// The most CRLs kept.
    public let capacity: Int

    public init(capacity: Int = 256) {
        self.capacity = capacity
    }

    /// The CRL downloaded from `url`, if one is kept and still fresh at `date`.
    public func crl(for url: String, at date: Date) -> CertificateRevocationList? {
        entries.withLock { entries in
            guard let entry = entries[url] else { return nil }
            guard let next = entry.crl.nextUpdate, next > date else {
                entries[url] = nil
                return nil
            }
            return entry.crl
        }
    }

    /// Keeps `crl` for `url` (replacing an older one).
    public func store(_ crl: CertificateRevocationList, for url: String) {
        let stamp = counter.add(1, ordering: .relaxed).newValue
        entries.withLock { entries in
            entries[url] = Entry(crl: crl, stored: stamp)
            if entries.count > capacity, let oldest = entries.min(by: { $0.value.stored < $1.value.stored })?.key {
                entries[oldest] = nil
            }
        }
    }

    /// The good OCSP answer kept under `key` (`OCSPQuery.key`), while `date` is before its expiry.
    public func ocspResponse(for key: String, at date: Date) -> Data? {
        ocspAnswers.withLock { answers in
            guard let answer = answers[key], answer.until > date else {
                answers[key] = nil
                return nil
            }
            return answer.der
        }
    }

    /// Keeps a good OCSP answer until `until`.
    public func storeOCSPResponse(_ der: Data, for key: String, until: Date) {
        ocspAnswers.withLock { answers in
            if answers.count >= capacity { answers.removeAll() }
            answers[key] = (der, until)
        }
    }

    /// Why the last download from `url` failed, while that is recent enough (`failureBackoff`) not to try again.
    public func failure(for url: String, at date: Date) -> String? {
        failures.withLock { failures in
            guard let failure = failures[url] else { return nil }
            guard failure.until > date else {
                failures[url] = nil
                return nil
            }
            return failure.why
        }
    }

    /// Remembers that the download from `url` failed at `date`.
    public func rememberFailure(_ why: String, for url: String, at date: Date) {
        failures.withLock { failures in
            if failures.count >= capacity { failures.removeAll() }
            failures[url] = (why, date.addingTimeInterval(Self.failureBackoff))
        }
    }

    /// Number of CRLs kept.
    public var count: Int { entries.withLock { $0.count } }
}
