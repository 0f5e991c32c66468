import Foundation
import XCTest
@testable import NetVigilTrust

extension XCTestCase {
    /// Builds an evaluator for `policy` over `store` and judges `chain`.
    public func judge(_ policy: SecurityPolicy, _ chain: [Certificate], host: String?, at date: Date = Date(),
               store: TrustStore) throws -> TrustEvaluation {
        try ServerTrustEvaluator(policy: policy, trustStore: store).evaluate(servedChain: chain, host: host, at: date)
    }

    public func assertTrusted(_ evaluation: TrustEvaluation, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(evaluation.isTrusted, "expected trusted, got: \(evaluation.message)", file: file, line: line)
    }

    /// Asserts untrusted with a reason of `kind` and returns the reason.
    @discardableResult
    public func assertUntrusted(_ evaluation: TrustEvaluation, _ kind: String, file: StaticString = #filePath, line: UInt = #line) -> ServerTrustFailureReason? {
        guard case .untrusted(let reason) = evaluation.verdict else {
            XCTFail("expected untrusted:\(kind), got trusted: \(evaluation.message)", file: file, line: line)
            return nil
        }
        XCTAssertEqual(reason.kind, kind, "message: \(evaluation.message)", file: file, line: line)
        XCTAssertEqual(evaluation.verdict.summary, .untrusted(reason: kind), file: file, line: line)
        return reason
    }

    public func assertChainInvalid(_ evaluation: TrustEvaluation, code: Int32, depth: Int32? = nil, file: StaticString = #filePath, line: UInt = #line) {
        guard let reason = assertUntrusted(evaluation, "chainInvalid", file: file, line: line) else { return }
        guard case .chainInvalid(let actualCode, let actualDepth, let text) = reason else { return }
        XCTAssertEqual(actualCode, code, "text: \(text)", file: file, line: line)
        if let depth { XCTAssertEqual(actualDepth, depth, file: file, line: line) }
        XCTAssertFalse(text.isEmpty, file: file, line: line)
    }
}

/// OpenSSL verify error codes used by the tests (x509_vfy.h).
public enum VerifyError {
    public static let unableToGetIssuerLocally: Int32 = 20
    public static let selfSignedInChain: Int32 = 19
    public static let depthZeroSelfSigned: Int32 = 18
    public static let certificateExpired: Int32 = 10
    public static let certificateNotYetValid: Int32 = 9
}
