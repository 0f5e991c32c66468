import ArgumentParser
import Foundation
import NetVigilProber
import NetVigilReachability

extension ProbeCommand {
    /// Probes once, or every address with `eachAddress`, and prints one result per address (JSON: an array).
    /// With a path (`--interface`/`--source`), each result records the path's interface and kind and the text
    /// names its AFNetworking status. Fails (exit 1) when any result failed.
    func probeAndPrint(_ request: ProbeRequest, configuration: ProbeConfiguration, eachAddress: Bool) async throws {
        let check = await ProbePathCheck.start(for: configuration.source) { if !json { printError("warning: \($0)") } }
        var results = eachAddress
            ? await Prober(group: CommandEventLoop.group).probeEachAddress(request, configuration: configuration)
            : [await Prober(group: CommandEventLoop.group).probe(request, configuration: configuration)]
        var paths: [PathEvaluation?] = []
        for index in results.indices { paths.append(await check?.record(&results[index])) }
        await check?.stop()
        if json {
            print(try eachAddress ? TrustOutput.json(results) : TrustOutput.json(results[0]), terminator: "")
        } else {
            let color = isatty(STDOUT_FILENO) == 1
            let rendered = zip(results, paths).map { ProbeOutput.render($0, path: $1, color: color) }
            print(eachAddress
                ? zip(results, rendered).map { "== address \($0.resolvedAddress ?? "-")\n" + $1 }.joined(separator: "\n\n")
                : rendered[0])
        }
        if !results.allSatisfy(\.isOK) { throw ExitCode(CLIFailure.Code.failure.rawValue) }
    }
}
