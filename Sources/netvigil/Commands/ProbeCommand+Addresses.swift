import ArgumentParser
import Foundation
import NetVigilHTTP

extension ProbeCommand {
    /// Probes once, or every address with `eachAddress`, and prints one result per address (JSON: an array).
    /// Fails (exit 1) when any result failed.
    func probeAndPrint(_ request: ProbeRequest, configuration: ProbeConfiguration, eachAddress: Bool) async throws {
        guard eachAddress else {
            let result = await HTTPProber(group: CommandEventLoop.group).probe(request, configuration: configuration)
            if json {
                print(try TrustOutput.json(result), terminator: "")
            } else {
                print(ProbeOutput.render(result, color: isatty(STDOUT_FILENO) == 1))
            }
            if !result.isOK { throw ExitCode(CLIFailure.Code.failure.rawValue) }
            return
        }
        let results = await HTTPProber(group: CommandEventLoop.group).probeEachAddress(request, configuration: configuration)
        if json {
            print(try TrustOutput.json(results), terminator: "")
        } else {
            let color = isatty(STDOUT_FILENO) == 1
            print(results.map { "== address \($0.resolvedAddress ?? "-")\n" + ProbeOutput.render($0, color: color) }
                .joined(separator: "\n\n"))
        }
        if !results.allSatisfy(\.isOK) { throw ExitCode(CLIFailure.Code.failure.rawValue) }
    }
}
