import Foundation
import NetVigilTestSupport
import NetVigilTrust
import Synchronization
import XCTest
@testable import NetVigilProber

/// Revocation fetches go only where a revocation source may be: a trusted chain whose distribution point names the
/// cloud metadata address, or the daemon's own feed, gets `revocation_unknown` (soft) or `revocationUnknown` (hard)
/// with the reason and the setting that decides, and the refusal is reported.
final class RevocationFetchGuardTests: ProbeTestCase {
    private var nginx: NginxProcess!
    private var prefix = ""
    private var metadata: RevocationPKI!  // CRLs "at" http://169.254.169.254/crl
    private var served: RevocationPKI!    // CRLs at http://127.0.0.1:crlPort/crl, really served
    private let crlPort = freePort(), metadataSitePort = freePort(), servedSitePort = freePort()

    override func setUpWithError() throws {
        metadata = try RevocationPKI(crlBase: "http://169.254.169.254/crl")
        served = try RevocationPKI(crlBase: "http://127.0.0.1:\(crlPort)/crl")
        func site(_ port: Int, _ pki: RevocationPKI) throws -> String { try pki.nginxSite(port: port, leaf: "good") }
        prefix = NSTemporaryDirectory() + "netvigil-nginx-\(UUID().uuidString)"
        nginx = try NginxProcess(prefix: prefix, servers: """
                server { listen 127.0.0.1:\(crlPort); location /crl/ { alias \(served.directory.url.path)/; } }
            \(try site(metadataSitePort, metadata))
            \(try site(servedSitePort, served))
            """, ports: [crlPort, metadataSitePort, servedSitePort])
    }

    override func tearDown() {
        nginx?.stop()
        try? FileManager.default.removeItem(atPath: prefix)
    }

    private func configuration(_ pki: RevocationPKI, mode: RevocationPolicy.Mode, allowLinkLocal: Bool = false,
                               refusals: Refusals? = nil) throws -> ProbeConfiguration {
        var revocation = RevocationPolicy(mode: mode)
        revocation.allowsLinkLocalFetches = allowLinkLocal
        let store = try TrustStore(systemRoots: false, caPaths: [pki.path("root.crt")])
        var configuration = ProbeConfiguration(trustStore: store, policies: try PolicySet(default: SecurityPolicy(revocation: revocation), entries: []),
                                               timeout: 10)
        if let refusals { configuration.revocationFetchRefused = { refusal in refusals.list.withLock { $0.append(refusal) } } }
        return configuration
    }

    func testTheMetadataAddressIsRefusedAFindingWhenSoftAFailureWhenHard() async throws {
        let refusals = Refusals()
        let soft = try await probe("https://localhost:\(metadataSitePort)/", configuration: configuration(metadata, mode: .soft, refusals: refusals))
        XCTAssertEqual(soft.outcome, .ok, "\(String(describing: soft.error))")
        let finding = try XCTUnwrap(soft.findings.first { $0.code == "revocation_unknown" }, "\(soft.findings)")
        XCTAssertTrue(finding.message.contains("revocation fetch refused: 169.254.169.254:80"), finding.message)
        XCTAssertTrue(finding.message.contains("cloud instance-metadata address"), finding.message)
        XCTAssertTrue(finding.message.contains("revocation_fetch: { allow_link_local: true }"), finding.message)
        XCTAssertFalse(refusals.list.withLock { $0 }.isEmpty, "the refusal is reported")
        XCTAssertEqual(refusals.list.withLock { $0 }.first?.address, "169.254.169.254:80")

        let hard = try await probe("https://localhost:\(metadataSitePort)/", configuration: configuration(metadata, mode: .hard))
        XCTAssertEqual(hard.error?.kind, .trust)
        XCTAssertEqual(hard.trustVerdict?.description, "untrusted:revocationUnknown")
        XCTAssertTrue(hard.error?.message.contains("revocation_fetch: { allow_link_local: true }") ?? false, "\(String(describing: hard.error))")
        XCTAssertNil(hard.status, "the server never receives the request")
    }

    func testTheDaemonsOwnListenerIsRefusedEvenWithLinkLocalAllowed() async throws {
        let open = try await probe("https://localhost:\(servedSitePort)/", configuration: configuration(served, mode: .hard))
        XCTAssertEqual(open.outcome, .ok, "the distribution point serves the CRLs: \(String(describing: open.error))")

        let refusals = Refusals()
        var own = try configuration(served, mode: .hard, allowLinkLocal: true, refusals: refusals)
        own.ownListeners = [OwnListener(name: "feed.listen", host: "127.0.0.1", port: crlPort)]
        let hard = try await probe("https://localhost:\(servedSitePort)/", configuration: own)
        XCTAssertEqual(hard.trustVerdict?.description, "untrusted:revocationUnknown", "\(String(describing: hard.error))")
        XCTAssertTrue(hard.error?.message.contains("revocation fetch refused: 127.0.0.1:\(crlPort): it is this daemon's own feed.listen") ?? false,
                      "\(String(describing: hard.error))")
        XCTAssertEqual(refusals.list.withLock { $0 }.count, 2, "both CRLs (leaf's and intermediate's) refused: \(refusals.list.withLock { $0 })")

        // A wildcard listener covers loopback.
        var wildcard = try configuration(served, mode: .hard)
        wildcard.ownListeners = [OwnListener(name: "feed.listen", host: "0.0.0.0", port: crlPort)]
        let refused = try await probe("https://localhost:\(servedSitePort)/", configuration: wildcard)
        XCTAssertEqual(refused.trustVerdict?.description, "untrusted:revocationUnknown", "\(String(describing: refused.error))")
    }

    func testAddressesAreJudgedAfterResolutionAndInEveryForm() {
        let guarded = RevocationFetchGuard(allowsLinkLocal: false, ownListeners: [], refused: nil)
        for address in ["169.254.169.254", "169.254.1.2", "fe80::1", "fd00:ec2::254", "100.100.100.200", "::ffff:169.254.169.254"] {
            XCTAssertNotNil(guarded.refusal(host: address, port: 80), address)
        }
        for address in ["127.0.0.1", "10.0.0.1", "::1", "2001:db8::1", "169.253.255.255", "fec0::1"] {
            XCTAssertNil(guarded.refusal(host: address, port: 80), address)
        }
        XCTAssertNotNil(guarded.refusal(host: "metadata.google.internal", port: 80), "by name too (through a proxy)")
        XCTAssertNotNil(guarded.refusal(host: "Metadata.Google.Internal.", port: 80))
        let allowing = RevocationFetchGuard(allowsLinkLocal: true, ownListeners: [], refused: nil)
        XCTAssertNil(allowing.refusal(host: "169.254.169.254", port: 80))
        XCTAssertNil(allowing.refusal(host: "fe80::1", port: 80))
    }
}

/// The refusals a configuration reported.
private final class Refusals: Sendable {
    let list = Mutex<[RevocationFetchRefusal]>([])
}
