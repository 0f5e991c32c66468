import Foundation
import Synchronization

/// The successful chain verifications of one `TrustStore`, so a server probed again with the same chain is not
/// verified again (a signature check per certificate: a noticeable share of a probe's CPU).
///
/// A success depends only on the served certificates, the store (immutable), the host check, the profile and
/// the instant; the instant matters only through validity periods, so an entry answers only while the instant lies
/// inside every validity period of the chain it built. Failures are never kept: they are verified every time.
final class VerifiedChainCache: Sendable {
    struct Key: Hashable, Sendable {
        /// SHA-256 of each served certificate's DER, leaf first.
        var served: [Data]
        var host: HostCheck?
        var profile: ValidationProfile = .default
    }

    private struct Entry: Sendable {
        /// The chain `X509_verify_cert` built (leaf → anchor).
        var chain: [Certificate]
        /// The latest notBefore and the earliest notAfter of `chain`.
        var validFrom: Date
        var validUntil: Date
    }

    /// Entries kept before the cache starts over (a handful of chains per target; a daemon has hundreds of targets).
    static let capacity = 4096

    /// False: nothing is remembered, every lookup misses.
    let isEnabled: Bool

    init(enabled: Bool = true) {
        isEnabled = enabled
    }

    private let entries = Mutex<[Key: Entry]>([:])
    private let counters = Mutex<(hits: Int, misses: Int)>((0, 0))

    /// The built chain of a success for `key` that still holds at `date`, with the served certificates of `served`
    /// (the caller's objects) in place of the cached ones.
    func chain(for key: Key, served: [Certificate], at date: Date) -> [Certificate]? {
        guard isEnabled else { return nil }
        let entry = entries.withLock { $0[key] }
        guard let entry, date >= entry.validFrom, date <= entry.validUntil else {
            counters.withLock { $0.misses += 1 }
            return nil
        }
        counters.withLock { $0.hits += 1 }
        return entry.chain.map { built in served.first { $0.handle.derSHA256 == built.handle.derSHA256 } ?? built }
    }

    /// Keeps a success.
    func remember(_ chain: [Certificate], for key: Key) {
        guard isEnabled, !chain.isEmpty else { return }
        let entry = Entry(chain: chain, validFrom: chain.map(\.notBefore).max()!, validUntil: chain.map(\.notAfter).min()!)
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = entry
        }
    }

    /// Lookups answered from the cache and lookups that ran `X509_verify_cert` (for tests and benchmarks).
    var statistics: (hits: Int, misses: Int) { counters.withLock { $0 } }
}
