import ArgumentParser
import Foundation
import NetVigilAgent
import NetVigilTrust

/// `netvigil trust evaluate`: judges a chain file for a host under a policy given by options or by a configured target.
struct TrustEvaluateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Judge a served certificate chain for a host under a security policy.",
        discussion: """
            --chain is the chain as a server sends it (PEM bundle, leaf first; or one DER certificate). \
            Anchors are the system roots plus every --ca (file, bundle or directory) unless --no-system-roots. \
            --config FILE --target NAME takes the host, policy (pins, pin expiry) and anchors of a configured target \
            instead of the policy options (`netvigil pin https://HOST --pem` saves a served chain). \
            --pinning defaults to publicKey when --pin or --pin-cert is given, else none. \
            TIME for --at: RFC 3339 (2030-01-01T00:00:00Z), a date (2030-01-01), now, +30d / -12h, or @SECONDS. \
            Exit codes: 0 trusted, 1 untrusted, 64 usage or policy error, 65 not a certificate, 66 missing file, \
            78 bad configuration.
            """)

    @Option(name: .long, help: "The served chain (PEM bundle or DER), leaf first.")
    var chain: String

    @Option(name: .long, help: "Extra intermediates (PEM bundle or DER) to build the path with, besides the served chain.")
    var untrusted: [String] = []

    @Option(name: .long, help: "Host name or IP address to check the leaf against (default with --target: its host; not needed with --no-validate-domain-name).")
    var host: String?

    @OptionGroup var targetOptions: ConfiguredTargetOptions

    @OptionGroup var policyOptions: TrustPolicyOptions

    @Option(name: .long, help: "A DER OCSP response for the leaf (as a server would staple it).")
    var ocspResponse: String?

    @Option(name: .long, help: "Pins are ignored from TIME on.")
    var pinsExpire: String?

    @Option(name: .long, help: "Judge the chain at TIME instead of now.")
    var at: String?

    @Flag(name: .long, help: "Print the evaluation as JSON.")
    var json = false

    func run() async throws {
        try await withCLIFailureHandling {
            let now = Date()
            let date = try at.map { text in
                guard let date = TrustOutput.parseTime(text, now: now) else {
                    throw CLIFailure(.usage, "--at: cannot parse time \"\(text)\" (use 2030-01-01T00:00:00Z, 2030-01-01, +30d or @SECONDS)")
                }
                return date
            } ?? now
            let expiry = try pinsExpire.map { text in
                guard let date = TrustOutput.parseTime(text, now: now) else {
                    throw CLIFailure(.usage, "--pins-expire: cannot parse time \"\(text)\"")
                }
                return date
            }
            let served = try TrustOutput.loadCertificates(chain, option: "--chain")
            var extra: [Certificate] = []
            for path in untrusted { extra += try TrustOutput.loadCertificates(path, option: "--untrusted") }
            let (host, policy, store) = try setting(pinsExpire: expiry)
            let evaluator: ServerTrustEvaluator
            do {
                evaluator = try ServerTrustEvaluator(policy: policy, trustStore: store)
            } catch {
                throw CLIFailure(.software, "\(error)")
            }
            if !json {
                for warning in policy.warnings { printError("warning: \(warning)") }
            }
            // Offline: only `--crl` files (and a configured target's `crl:` files) are consulted.
            let evaluation = evaluator.applyingRevocation(
                to: evaluator.evaluate(servedChain: served, host: host, at: date, untrusted: extra), cache: nil,
                stapledOCSP: try TrustPolicyOptions.ocspResponse(ocspResponse)).evaluation
            if json {
                print(try TrustOutput.json(evaluation.report), terminator: "")
            } else {
                print(render(evaluation, host: host, policy: policy))
            }
            if !evaluation.isTrusted { throw ExitCode(CLIFailure.Code.failure.rawValue) }
        }
    }

    /// Host, policy and anchors: from the options, or from `--target` of `--config`.
    private func setting(pinsExpire: Date?) throws -> (String?, SecurityPolicy, TrustStore) {
        guard targetOptions.isGiven else {
            if host == nil && policyOptions.noValidateDomainName {
                return (nil, try policyOptions.policy(pinsExpire: pinsExpire), try policyOptions.trustStore())
            }
            guard let host else {
                throw CLIFailure(.usage, "give --host NAME (or --no-validate-domain-name), or --config FILE --target NAME")
            }
            return (host, try policyOptions.policy(pinsExpire: pinsExpire), try policyOptions.trustStore())
        }
        let probeTarget = try targetOptions.find()
        let conflicting = policyOptions.givenOptions + (self.pinsExpire == nil ? [] : ["--pins-expire"])
        if let first = conflicting.first {
            throw CLIFailure(.usage, "\(first) cannot be combined with --target: the target's configuration decides it")
        }
        guard probeTarget.isTLS else { throw CLIFailure(.usage, "--target: \(probeTarget.name) is plain HTTP (\(probeTarget.url)), it has no TLS policy") }
        let checked = host ?? probeTarget.host
        let policies = probeTarget.configuration.policies
        return (checked, policies.entry(for: checked)?.policy ?? policies.defaultPolicy, probeTarget.configuration.trustStore)
    }

    func render(_ evaluation: TrustEvaluation, host: String?, policy: SecurityPolicy) -> String {
        var lines: [String] = []
        switch evaluation.verdict {
        case .trusted:
            lines.append("verdict: trusted" + (evaluation.pinMismatchReported ? " (pin mismatch reported)" : ""))
        case .untrusted(let reason):
            lines.append("verdict: untrusted (\(reason.kind))")
        }
        lines.append("host: \(host ?? "(not checked)")    at: \(evaluation.evaluatedAt.formatted(.iso8601))    pinning: \(policy.pinning.rawValue)"
                     + "    validation: \(policy.validation.rawValue)" + (policy.reportOnly ? " (report-only)" : "") + "    pins: \(evaluation.pinVerdict.rawValue)")
        lines.append("")
        lines.append(evaluation.message)
        lines.append("")
        lines.append("served chain:")
        lines += evaluation.servedChain.enumerated().map { TrustOutput.describe($0.element, index: $0.offset, at: evaluation.evaluatedAt) }
        lines.append("validated chain:" + (evaluation.validatedChain.isEmpty ? " (none)" : ""))
        lines += evaluation.validatedChain.enumerated().map { TrustOutput.describe($0.element, index: $0.offset, at: evaluation.evaluatedAt) }
        if !evaluation.findings.isEmpty {
            lines.append("findings (Baseline Requirements; the verdict is unchanged):")
            lines += evaluation.findings.map { "  [\($0.certificate)] \($0.code): \($0.message)" }
        }
        if !evaluation.pins.configured.isEmpty {
            lines.append("configured pins:")
            lines += evaluation.pins.configured.map { pin in
                "  \(pin)" + (evaluation.pins.matched.contains(pin) ? "  (matched)" : "")
            }
        }
        return lines.joined(separator: "\n")
    }
}
