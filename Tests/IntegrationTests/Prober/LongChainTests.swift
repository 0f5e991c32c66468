import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilProber

/// A server that sends a 50-certificate chain: the whole chain is recorded and judged, no crash.
final class LongChainTests: ProbeTestCase {
    private var server: RecordingTLSServer?

    override func tearDown() {
        server?.stop()
        server = nil
    }

    func testFiftyCertificateChain() async throws {
        let bundle = pki.path("junk-chain.pem")
        if !FileManager.default.fileExists(atPath: bundle) {
            var pem = ""
            for index in 0..<49 {
                let path = pki.path("junk-\(index).crt")
                try NetVigilTestSupport.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                             "-keyout", pki.path("junk.key"), "-out", path, "-days", "2", "-subj", "/CN=junk \(index)"])
                pem += try String(contentsOfFile: path, encoding: .utf8)
            }
            try pem.write(toFile: bundle, atomically: true, encoding: .utf8)
        }
        let server = try RecordingTLSServer(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"),
                                            extraArguments: ["-cert_chain", bundle])
        self.server = server
        let result = try await probe("https://localhost:\(server.port)/", configuration: configuration(timeout: 1))
        XCTAssertEqual(result.servedChain.count, 50)
        XCTAssertEqual(result.trustVerdict, .trusted, "the leaf still chains to the test CA; the junk is ignored")
        XCTAssertEqual(result.error?.kind, .timeout, "s_server does not answer HTTP")
    }
}
