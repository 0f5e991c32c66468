import Foundation
import NetVigilProber
import NetVigilReachability

/// The human summary of `netvigil probe`.
enum ProbeOutput {
    /// `path`: the reachability of the probe's `--interface`/`--source` path, printed with the interface's kind.
    static func render(_ result: ProbeResult, path: PathEvaluation? = nil, color: Bool) -> String {
        var lines: [String] = []
        if let error = result.error {
            lines.append("FAILED \(error.kind.rawValue): \(error.message)")
        } else {
            lines.append("OK \(result.status.map(String.init) ?? result.details.scheme ?? "")")
        }
        lines.append("url: \(result.url)" + (result.finalURL != result.url ? "  →  \(result.finalURL)" : ""))
        if result.interface != nil || path != nil {
            var line = "path: \(result.interface ?? "-") (\(result.interfaceKind ?? "kind unknown"))"
            if let path {
                line += "  reachability: \(path.evaluation.status.name)" + (path.problem.map { " (\($0))" } ?? "")
            }
            lines.append(line)
        }
        if let status = result.status {
            lines.append("http: \(result.httpVersion ?? "?") \(status)  type: \(result.contentType ?? "-")  length: \(result.contentLength ?? 0)"
                         + "  redirects: \(result.redirects.count)  address: \(result.resolvedAddress ?? "-")")
        }
        let phases: [(String, Double?)] = [("resolve", result.timings.resolve), ("connect", result.timings.connect),
                                           ("proxy", result.timings.proxy), ("starttls", result.timings.starttls),
                                           ("tls", result.timings.tls), ("revocation", result.timings.revocation),
                                           ("processing", result.timings.processing),
                                           ("transfer", result.timings.transfer), ("total", result.timings.total)]
        let total = max(result.timings.total ?? 1, 0.001)
        for (name, value) in phases {
            guard let value else { continue }
            var line = name + String(repeating: " ", count: max(0, 11 - name.count)) + milliseconds(value)
            if color && name != "total" {
                line += "  " + String(repeating: "█", count: max(1, Int((value / total * 40).rounded())))
            }
            lines.append(line)
        }
        if let tls = result.tls {
            lines.append("tls: \(tls.version)  cipher: \(tls.cipher)  alpn: \(tls.alpn ?? "-")")
        }
        if let verdict = result.trustVerdict {
            lines.append("trust: \(verdict)  pins: \(result.pinVerdict?.rawValue ?? "-")")
        }
        if !result.servedChain.isEmpty {
            lines.append("served chain:")
            for (index, certificate) in result.servedChain.enumerated() {
                let days = Int(certificate.notAfter.timeIntervalSinceNow / 86_400)
                lines.append("  [\(index)] \(certificate.subject)  (\(days) days left)")
                lines.append("      pin: \(certificate.spkiPin)")
            }
        }
        for failure in result.expectationFailures { lines.append("expectation failed: \(failure)") }
        return lines.joined(separator: "\n")
    }

    /// `value` as `String(format: "%9.3f ms")` does it: three decimals, right-aligned in nine characters. Written out
    /// because Foundation's formatter (its `CVarArg` boxing and locale) is costly at its first use, on the way to a
    /// fresh `netvigil probe`'s output.
    static func milliseconds(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return "\(value) ms" }
        let thousandths = Int((abs(value) * 1_000).rounded())
        let fraction = String(thousandths % 1_000)
        let digits = (value < 0 && thousandths > 0 ? "-" : "") + String(thousandths / 1_000) + "."
            + String(repeating: "0", count: 3 - fraction.count) + fraction
        return String(repeating: " ", count: max(0, 9 - digits.count)) + digits + " ms"
    }
}
