import Foundation
import NetVigilTestSupport
import XCTest

/// deploy/systemd/netvigil.service: `systemd-analyze verify` and `security`, the hardening issue #7 asks for, and the
/// claim behind the empty `CapabilityBoundingSet=`: reading routes needs no capability.
final class DeploySystemdUnitTests: XCTestCase {
    private let unit = SchemaValidator.repositoryRoot.appendingPathComponent("deploy/systemd/netvigil.service")
    private let systemdAnalyze = URL(fileURLWithPath: "/usr/bin/systemd-analyze")

    /// The unit with its binary path pointed at the freshly built `netvigil` (verify requires ExecStart to exist).
    private func unitForBuiltBinary(in directory: TemporaryDirectory) throws -> String {
        let text = try String(contentsOf: unit, encoding: .utf8)
        XCTAssertTrue(text.contains("ExecStart=/usr/bin/netvigil run --config /etc/netvigil/netvigil.yml"), text)
        return try directory.write("netvigil.service",
                                   text.replacingOccurrences(of: "/usr/bin/netvigil", with: ProcessRunner.binary.path))
    }

    func testSystemdAnalyzeVerifyIsClean() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: systemdAnalyze.path), "make test installs systemd")
        let directory = try TemporaryDirectory()
        let path = try unitForBuiltBinary(in: directory)
        // --man=no: the man page named in Documentation= is installed by `make install`, not present in a checkout.
        let result = try ProcessRunner.run(["verify", "--man=no", path], executable: systemdAnalyze, currentDirectory: directory.url)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertEqual(result.stdout + result.stderr, "", "verify warns about nothing (unknown keys, bad values)")
    }

    func testSystemdAnalyzeSecurityRatesTheSandboxOK() throws {
        let directory = try TemporaryDirectory()
        let path = try unitForBuiltBinary(in: directory)
        // Exposure 0.0 (locked down) … 10.0 (unprotected); --threshold is in tenths. Ours is 1.9 ("OK").
        let result = try ProcessRunner.run(["security", "--offline=yes", "--threshold=25", path], executable: systemdAnalyze,
                                           currentDirectory: directory.url)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("Overall exposure level"), result.stdout)
    }

    func testUnitCarriesTheRequiredSettings() throws {
        let lines = Set(try String(contentsOf: unit, encoding: .utf8).split(separator: "\n").map(String.init))
        let required = [
            "Type=notify", "NotifyAccess=main", "WatchdogSec=30s", "Restart=on-failure",
            "ExecReload=/bin/kill -HUP $MAINPID", "User=netvigil", "Group=netvigil",
            "StateDirectory=netvigil", "ConfigurationDirectory=netvigil", "ProtectSystem=strict", "ProtectHome=yes",
            "PrivateTmp=yes", "NoNewPrivileges=yes", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK",
            "CapabilityBoundingSet=", "AmbientCapabilities=", "SystemCallFilter=@system-service",
        ]
        for line in required { XCTAssertTrue(lines.contains(line), "missing \(line)") }
        XCTAssertFalse(lines.contains { $0.hasPrefix("CapabilityBoundingSet=") && $0 != "CapabilityBoundingSet=" })
    }

    /// deploy/systemd/netvigil-hub.service (`netvigil fleet serve`): verify clean, the same sandbox rating, no netlink.
    func testHubUnitVerifiesAndIsSandboxed() throws {
        let hub = SchemaValidator.repositoryRoot.appendingPathComponent("deploy/systemd/netvigil-hub.service")
        let text = try String(contentsOf: hub, encoding: .utf8)
        XCTAssertTrue(text.contains("ExecStart=/usr/bin/netvigil fleet serve --config /etc/netvigil/hub.yml"), text)
        let lines = Set(text.split(separator: "\n").map(String.init))
        for line in ["User=netvigil", "ProtectSystem=strict", "NoNewPrivileges=yes", "CapabilityBoundingSet=",
                     "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6", "SystemCallFilter=@system-service",
                     "ConditionPathExists=/etc/netvigil/hub.yml"] {
            XCTAssertTrue(lines.contains(line), "missing \(line)")
        }
        let directory = try TemporaryDirectory()
        let path = try directory.write("netvigil-hub.service",
                                       text.replacingOccurrences(of: "/usr/bin/netvigil", with: ProcessRunner.binary.path))
        let verify = try ProcessRunner.run(["verify", "--man=no", path], executable: systemdAnalyze, currentDirectory: directory.url)
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertEqual(verify.stdout + verify.stderr, "", "verify warns about nothing")
        let security = try ProcessRunner.run(["security", "--offline=yes", "--threshold=25", path], executable: systemdAnalyze,
                                             currentDirectory: directory.url)
        XCTAssertEqual(security.status, 0, security.stdout + security.stderr)
    }

    /// Runs `netvigil reachability --json` as nobody with no capabilities at all (effective, permitted, inheritable,
    /// ambient and bounding sets empty, no_new_privs), as the unit does, and compares with an unrestricted run.
    func testReadingRoutesNeedsNoCapability() throws {
        let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: setpriv.path), "setpriv comes with util-linux")
        let drop = ["--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--ambient-caps=-all",
                    "--bounding-set=-all", "--no-new-privs"]

        // The sandbox really has no capability left.
        let status = try ProcessRunner.run(drop + ["/bin/grep", "^Cap", "/proc/self/status"], executable: setpriv)
        XCTAssertEqual(status.status, 0, status.stderr)
        let capabilities = Dictionary(uniqueKeysWithValues: status.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        })
        for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
            XCTAssertEqual(capabilities[set], "0000000000000000", "\(set) in \(status.stdout)")
        }

        let arguments = ["reachability", "--json", "default", "127.0.0.1"]
        let restricted = try ProcessRunner.run(drop + [ProcessRunner.binary.path] + arguments, executable: setpriv)
        let unrestricted = try ProcessRunner.run(arguments)
        XCTAssertEqual(restricted.status, unrestricted.status, restricted.stderr)
        XCTAssertFalse(restricted.stderr.lowercased().contains("permission"), restricted.stderr)

        func objects(_ output: String) throws -> [String: [String: Any]] {
            var byTarget: [String: [String: Any]] = [:]
            for line in output.split(separator: "\n") {
                let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
                byTarget[try XCTUnwrap(object["target"] as? String)] = object
            }
            return byTarget
        }
        let withoutCapabilities = try objects(restricted.stdout)
        let withCapabilities = try objects(unrestricted.stdout)
        XCTAssertEqual(Set(withoutCapabilities.keys), ["default", "127.0.0.1"], restricted.stdout)
        let loopback = try XCTUnwrap(withoutCapabilities["127.0.0.1"])
        XCTAssertEqual(loopback["status"] as? String, "ReachableViaWiFi", "\(loopback)")
        XCTAssertEqual(loopback["interface"] as? String, "lo", "\(loopback)")
        for target in ["default", "127.0.0.1"] {
            for key in ["status", "flags", "interface", "gateway", "source"] {
                XCTAssertEqual("\(withoutCapabilities[target]?[key] ?? "nil")", "\(withCapabilities[target]?[key] ?? "nil")",
                               "\(target).\(key): same answer with and without capabilities")
            }
        }
    }
}
