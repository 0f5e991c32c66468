import NIOHTTP1
import NetVigilTrust
import XCTest
@testable import NetVigilProber

/// Helpers for probes against loopback servers.
open class ProbeTestCase: XCTestCase {
    public var pki: TestPKI { .shared }

    public func configuration(ca: String = "ca.crt", timeout: TimeInterval = 5, policy: SecurityPolicy = .default,
                       serializer: ResponseSerializer = .http, expectations: ProbeExpectations = ProbeExpectations(),
                       maxBodyBytes: Int = 10 * 1024 * 1024, maxRedirects: Int = 10) throws -> ProbeConfiguration {
        let store = try TrustStore(systemRoots: false, caPaths: [pki.path(ca)])
        return ProbeConfiguration(trustStore: store, policies: try PolicySet(default: policy, entries: []), timeout: timeout,
                                  maxBodyBytes: maxBodyBytes, maxRedirects: maxRedirects, responseSerializer: serializer,
                                  expectations: expectations)
    }

    public func probe(_ url: String, method: HTTPMethod = .GET, configuration: ProbeConfiguration) async throws -> ProbeResult {
        let request = try RequestSerializer(version: "test").request(method: method, url: url)
        return await Prober().probe(request, configuration: configuration)
    }
}
