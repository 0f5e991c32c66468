import NetVigilTrust

extension OpenSSLTLSHandler {
    /// The TLS handler of a probe connection to `host`: the served chain is judged by `configuration`'s policy for
    /// `host` and trust store; the evaluation goes to `recorder`, and only a trusted chain receives application bytes.
    static func probing(_ configuration: ProbeConfiguration, tls: TLSConfiguration, host: String, recorder: HopRecorder,
                        onHandshake: @escaping (TLSSessionInfo) -> Void) throws(ProbeError) -> OpenSSLTLSHandler {
        let policy = configuration.policies.policy(for: host)
        let trustStore = configuration.trustStore
        let evaluators = configuration.trustEvaluators
        return try OpenSSLTLSHandler(
            configuration: tls, serverName: host,
            trustDecision: { info in
                let evaluation: TrustEvaluation
                do {
                    let evaluator = try evaluators.evaluator(policy: policy, trustStore: trustStore)
                    evaluation = evaluator.evaluate(servedChain: info.servedChain, host: host)
                } catch {
                    return ProbeError(.trust, "cannot prepare the trust evaluation: \(error)", verdict: .untrusted(reason: "internal"))
                }
                recorder.evaluation = evaluation
                if evaluation.verdict.isTrusted { return nil }
                return ProbeError(.trust, evaluation.message, verdict: evaluation.verdict.summary)
            },
            onHandshake: onHandshake)
    }
}
