@testable import NetVigilTrust
import NetVigilTestSupport
import XCTest
@testable import NetVigilProber

/// A configuration and its copies share one evaluator per (trust store, policy); probes use it.
final class TrustEvaluatorsTests: ProbeTestCase {
    func testOneEvaluatorPerStoreAndPolicyAcrossCopies() throws {
        let configuration = try configuration()
        let copy = configuration
        let policy = configuration.policies.policy(for: "127.0.0.1")
        let first = try configuration.trustEvaluators.evaluator(policy: policy, trustStore: configuration.trustStore)
        XCTAssertTrue(first === (try copy.trustEvaluators.evaluator(policy: policy, trustStore: copy.trustStore)))

        let noHostCheck = try SecurityPolicy(validatesDomainName: false)
        XCTAssertFalse(first === (try configuration.trustEvaluators.evaluator(policy: noHostCheck, trustStore: configuration.trustStore)))
        let otherStore = try TrustStore(systemRoots: false, caPaths: [pki.path("ca.crt")])
        XCTAssertFalse(first === (try configuration.trustEvaluators.evaluator(policy: policy, trustStore: otherStore)))
    }

    func testRepeatedProbesVerifyTheChainOnce() async throws {
        let nginx = try NginxServer()
        defer { nginx.stop() }
        let configuration = try configuration()
        for _ in 0..<3 {
            let result = try await probe("https://127.0.0.1:\(nginx.tls13Port)/text", configuration: configuration)
            XCTAssertEqual(result.trustVerdict, .trusted, result.trustMessage ?? "")
        }
        let statistics = configuration.trustStore.verifiedChains.statistics
        XCTAssertEqual(statistics.misses, 1)
        XCTAssertEqual(statistics.hits, 2)
    }
}
