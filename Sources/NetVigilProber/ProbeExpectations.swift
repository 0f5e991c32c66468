import Foundation

/// Checks beyond AFNetworking's serializers (Gatus-like); all optional.
public struct ProbeExpectations: Sendable {
    /// `$.a.b == VALUE` checks on the JSON body.
    public var jsonPaths: [JSONPathExpectation]
    /// Texts the body must contain.
    public var bodyContains: [String]
    /// Regular expressions the body must match.
    public var bodyMatches: [String]
    /// The longest acceptable total time, in seconds.
    public var maxResponseTime: TimeInterval?
    /// The least remaining validity of the leaf certificate, in seconds.
    public var minCertificateValidity: TimeInterval?

    /// Makes expectations.
    public init(jsonPaths: [JSONPathExpectation] = [], bodyContains: [String] = [], bodyMatches: [String] = [],
                maxResponseTime: TimeInterval? = nil, minCertificateValidity: TimeInterval? = nil) {
        self.jsonPaths = jsonPaths
        self.bodyContains = bodyContains
        self.bodyMatches = bodyMatches
        self.maxResponseTime = maxResponseTime
        self.minCertificateValidity = minCertificateValidity
    }

    /// True when nothing is expected.
    public var isEmpty: Bool {
        jsonPaths.isEmpty && bodyContains.isEmpty && bodyMatches.isEmpty && maxResponseTime == nil && minCertificateValidity == nil
    }

    /// The failed expectations, one line each (empty when all passed).
    /// - Parameters:
    ///   - json: the parsed body, nil when it is not JSON.
    ///   - totalMilliseconds: the probe's total time.
    ///   - leafNotAfter: the served leaf's expiry, nil without TLS.
    public func failures(body: [UInt8], json: Any?, totalMilliseconds: Double, leafNotAfter: Date?, now: Date = Date()) -> [String] {
        var failures: [String] = []
        for expectation in jsonPaths {
            if let failure = expectation.check(json) { failures.append(failure) }
        }
        let text = String(decoding: body, as: UTF8.self)
        for needle in bodyContains where !text.contains(needle) {
            failures.append("body does not contain \"\(needle)\"")
        }
        for pattern in bodyMatches {
            if text.range(of: pattern, options: .regularExpression) == nil {
                failures.append("body does not match /\(pattern)/")
            }
        }
        if let maxResponseTime, totalMilliseconds > maxResponseTime * 1_000 {
            failures.append(String(format: "response time %.1f ms exceeds %.1f ms", totalMilliseconds, maxResponseTime * 1_000))
        }
        if let minCertificateValidity {
            if let leafNotAfter {
                let remaining = leafNotAfter.timeIntervalSince(now)
                if remaining < minCertificateValidity {
                    failures.append(String(format: "certificate expires in %.1f h, less than %.1f h", remaining / 3_600, minCertificateValidity / 3_600))
                }
            } else {
                failures.append("no certificate to check validity of (not TLS)")
            }
        }
        return failures
    }
}
