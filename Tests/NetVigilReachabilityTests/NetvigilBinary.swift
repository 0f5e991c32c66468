import Foundation
import NetVigilTestSupport

/// The `netvigil` binary built next to the test bundle (`swift test` builds all products).
func netvigilBinary() throws -> String {
    var candidates: [URL] = []
    if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
    candidates.append(Bundle.main.bundleURL)
    candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    for directory in candidates {
        var url = directory
        for _ in 0..<4 {
            let binary = url.appendingPathComponent("netvigil").path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: binary, isDirectory: &isDirectory), !isDirectory.boolValue,
               FileManager.default.isExecutableFile(atPath: binary) {
                return binary
            }
            url = url.deletingLastPathComponent()
        }
    }
    throw NamespaceError.commandFailed("find netvigil binary", "not found near \(Bundle.main.bundleURL.path)")
}
