import NetVigilTrust

extension OpenSSLTLSHandler {
    /// The TLS handler of a probe connection to `host`: the served chain is judged by `configuration`'s policy for
    /// `host` and trust store, with revocation from the caches and a stapled OCSP response; the evaluation goes to
    /// `recorder`, and only a trusted chain receives application bytes. When revocation needs a download,
    /// `deferredDecision` runs it before anything is sent (`recorder.pendingRevocation`).
    static func probing(_ configuration: ProbeConfiguration, tls: TLSConfiguration, host: String, recorder: HopRecorder,
                        onHandshake: @escaping (TLSSessionInfo) -> Void,
                        deferredDecision: DeferredTrustDecision? = nil) throws(ProbeError) -> OpenSSLTLSHandler {
        let policy = configuration.policies.policy(for: host)
        let trustStore = configuration.trustStore
        let evaluators = configuration.trustEvaluators
        let crlCache = configuration.crlCache
        return try OpenSSLTLSHandler(
            configuration: tls, serverName: host,
            trustDecision: { info in
                let evaluation: TrustEvaluation
                do {
                    let evaluator = try evaluators.evaluator(policy: policy, trustStore: trustStore)
                    let checked = evaluator.applyingRevocation(
                        to: evaluator.evaluate(servedChain: info.servedChain, host: host), cache: crlCache,
                        stapledOCSP: info.stapledOCSP)
                    evaluation = checked.evaluation
                    if !checked.isFinal {
                        recorder.pendingRevocation = .init(evaluator: evaluator, evaluation: evaluation, first: checked,
                                                           stapledOCSP: info.stapledOCSP)
                    }
                } catch {
                    return ProbeError(.trust, "cannot prepare the trust evaluation: \(error)", verdict: .untrusted(reason: "internal"))
                }
                recorder.evaluation = evaluation
                if evaluation.verdict.isTrusted { return nil }
                return ProbeError(.trust, evaluation.message, verdict: evaluation.verdict.summary)
            },
            onHandshake: onHandshake, deferredDecision: deferredDecision)
    }
}
