import Foundation
import NetVigilTestSupport
import XCTest

/// `make install-files` (what `make install` runs after the release build) into a DESTDIR, and the .deb from
/// deploy/debian/build-deb.sh checked by lintian.
///
/// The package test needs a release binary built with `--static-swift-stdlib` (`make release`, `make deb` or
/// `make deb-check`; minutes on a 2-core machine), so it packages `.build/rel/release/netvigil` (`make release`'s) when that exists and skips
/// with that instruction otherwise (also when the release binary came from a plain `swift build -c release`). `make test` runs it after its release build, then `make deb-check`.
final class DeployPackageTests: XCTestCase {
    private let root = SchemaValidator.repositoryRoot
    private let make = URL(fileURLWithPath: "/usr/bin/make")

    private func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    func testInstallIntoDestdirPutsEverythingInPlaceAndKeepsAnExistingConfig() throws {
        // make install-files would build generate-manual itself, but not while `swift test` holds .build's lock.
        guard FileManager.default.isExecutableFile(atPath: root.path + "/.build/debug/generate-manual") else {
            throw XCTSkip("generate-manual is not built: run `swift build --product generate-manual` first (make test does)")
        }
        let directory = try TemporaryDirectory()
        let destdir = directory.path("root")
        let arguments = ["--no-print-directory", "install-files", "DESTDIR=\(destdir)", "PREFIX=/usr/local",
                         "BINARY=\(ProcessRunner.binary.path)"]
        let first = try ProcessRunner.run(arguments, executable: make, currentDirectory: root, timeout: 300)
        XCTAssertEqual(first.status, 0, first.stdout + first.stderr)

        let prefix = destdir + "/usr/local"
        let binary = prefix + "/bin/netvigil"
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary))
        let version = try ProcessRunner.run(["--version"], executable: URL(fileURLWithPath: binary))
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertEqual(version.stdout, try ProcessRunner.run(["--version"]).stdout)
        // Installed by deploy/strip-binary.sh: no symbol table, the functions' names in .gnu_debugdata.
        let sections = try ProcessRunner.run(["-S", "-W", binary], executable: URL(fileURLWithPath: "/usr/bin/readelf")).stdout
        XCTAssertTrue(sections.contains(".gnu_debugdata") && !sections.contains(".symtab"), sections)

        // The unit runs the installed binary; with that path pointed into DESTDIR, systemd-analyze accepts it.
        let unit = try text(prefix + "/lib/systemd/system/netvigil.service")
        XCTAssertTrue(unit.contains("\nExecStart=/usr/local/bin/netvigil run --config /etc/netvigil/netvigil.yml\n"), unit)
        XCTAssertFalse(unit.contains("/usr/bin/netvigil"), unit)
        let verifiable = try directory.write("netvigil.service", unit.replacingOccurrences(of: "/usr/local/bin/netvigil", with: binary))
        let verify = try ProcessRunner.run(["verify", "--man=no", verifiable],
                                           executable: URL(fileURLWithPath: "/usr/bin/systemd-analyze"), currentDirectory: directory.url)
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertEqual(try text(prefix + "/lib/sysusers.d/netvigil.conf"), try text(root.path + "/deploy/systemd/netvigil.sysusers"))

        // Configuration: the example, valid, in /etc/netvigil; a copy in share/netvigil.
        let config = destdir + "/etc/netvigil/netvigil.yml"
        let example = try text(root.path + "/deploy/netvigil.example.yml")
        XCTAssertEqual(try text(config), example)
        XCTAssertEqual(try text(prefix + "/share/netvigil/netvigil.example.yml"), example)
        let check = try ProcessRunner.run(["check-config", config], executable: URL(fileURLWithPath: binary))
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)

        // Man page from swift-argument-parser's generate-manual, rendered by man(1) without warnings.
        let manPage = prefix + "/share/man/man1/netvigil.1"
        let man = try ProcessRunner.run(["--warnings", "-l", manPage], executable: URL(fileURLWithPath: "/usr/bin/man"),
                                        environment: ["MANWIDTH": "80", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"])
        XCTAssertEqual(man.status, 0, man.stderr)
        XCTAssertEqual(man.stderr, "", "man --warnings")
        for subcommand in ["run", "check-config", "export", "reachability", "probe", "pin", "trust"] {
            XCTAssertTrue(man.stdout.contains("\n     \(subcommand)"), "man page documents \(subcommand)")
        }

        // Completions for bash (syntax-checked by bash), zsh and fish.
        let bashCompletion = prefix + "/share/bash-completion/completions/netvigil"
        let bash = try ProcessRunner.run(["-n", bashCompletion], executable: URL(fileURLWithPath: "/bin/bash"))
        XCTAssertEqual(bash.status, 0, bash.stderr)
        let registered = try ProcessRunner.run(["-c", "source \"$1\" && complete -p netvigil", "bash", bashCompletion],
                                               executable: URL(fileURLWithPath: "/bin/bash"))
        XCTAssertEqual(registered.status, 0, registered.stderr)
        XCTAssertTrue(registered.stdout.contains("-F _netvigil netvigil"), "sourcing registers the completion: \(registered.stdout)")
        XCTAssertTrue(try text(prefix + "/share/zsh/site-functions/_netvigil").hasPrefix("#compdef netvigil"))
        XCTAssertTrue(try text(prefix + "/share/fish/vendor_completions.d/netvigil.fish").contains("complete -c 'netvigil'"))

        // Monitoring examples next to the dashboards.
        for file in ["prometheus/netvigil.rules.yml", "prometheus/netvigil.rules.test.yml", "prometheus/scrape.yml",
                     "alertmanager.example.yml"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + "/share/netvigil/" + file), file)
        }
        let dashboards = (try? FileManager.default.contentsOfDirectory(atPath: root.path + "/dashboards")) ?? []
        for dashboard in dashboards where dashboard.hasSuffix(".json") {
            XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + "/share/netvigil/dashboards/" + dashboard), dashboard)
        }

        // A second install keeps the operator's configuration.
        try "feed: { listen: 0.0.0.0:9337 }\n".write(toFile: config, atomically: true, encoding: .utf8)
        let second = try ProcessRunner.run(arguments, executable: make, currentDirectory: root, timeout: 300)
        XCTAssertEqual(second.status, 0, second.stdout + second.stderr)
        XCTAssertEqual(try text(config), "feed: { listen: 0.0.0.0:9337 }\n")
        XCTAssertTrue(second.stdout.contains("kept existing \(config)"), second.stdout)
    }

    func testPackageScriptRefusesABinaryThatNeedsTheToolchainRuntime() throws {
        // The debug build links libswiftCore.so from the toolchain: not installable on a plain Debian host.
        let directory = try TemporaryDirectory()
        let result = try ProcessRunner.run([root.path + "/deploy/debian/build-deb.sh", ProcessRunner.binary.path, directory.url.path],
                                           executable: URL(fileURLWithPath: "/bin/bash"), timeout: 120)
        XCTAssertEqual(result.status, 65, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("links the Swift runtime dynamically; build it with swift build -c release --static-swift-stdlib"),
                      result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.url.path), [])
    }

    func testDebPackageIsLintianCleanAndRunsWithoutTheToolchain() throws {
        let release = root.appendingPathComponent(".build/rel/release/netvigil").path
        guard FileManager.default.isExecutableFile(atPath: release) else {
            throw XCTSkip("no release binary: run `make deb-check` (or `make release`) first; it builds one with --static-swift-stdlib")
        }
        // A plain `swift build -c release` (e.g. Benchmarks/run.sh) links the toolchain's runtime: not packageable.
        let dynamic = try ProcessRunner.run(["-d", release], executable: URL(fileURLWithPath: "/usr/bin/readelf")).stdout
        if dynamic.contains("libswiftCore") || dynamic.contains("RUNPATH") {
            throw XCTSkip("\(release) was built without `make release`'s --static-swift-stdlib --disable-local-rpath; run `make deb-check`")
        }
        let directory = try TemporaryDirectory()
        let build = try ProcessRunner.run([root.path + "/deploy/debian/build-deb.sh", release, directory.path("out")],
                                          executable: URL(fileURLWithPath: "/bin/bash"), timeout: 600)
        XCTAssertEqual(build.status, 0, build.stdout + build.stderr)
        let deb = build.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(deb.hasSuffix(".deb") && FileManager.default.fileExists(atPath: deb), build.stdout)

        let dpkgDeb = URL(fileURLWithPath: "/usr/bin/dpkg-deb")
        let depends = try ProcessRunner.run(["--field", deb, "Depends"], executable: dpkgDeb)
        for library in ["libmnl0", "libssl3", "libsqlite3-0", "adduser"] {
            XCTAssertTrue(depends.stdout.contains(library), "Depends: \(depends.stdout)")
        }
        XCTAssertFalse(depends.stdout.contains("swift"), depends.stdout)
        // The Swift runtime is static; the C++ runtime it uses is Debian's libstdc++6, as dpkg-shlibdeps computes it.
        XCTAssertTrue(depends.stdout.contains("libstdc++6"), "Depends: \(depends.stdout)")
        let contents = try ProcessRunner.run(["--contents", deb], executable: dpkgDeb).stdout
        for path in ["./usr/bin/netvigil", "./lib/systemd/system/netvigil.service", "./lib/systemd/system/netvigil-hub.service",
                     "./usr/lib/sysusers.d/netvigil.conf",
                     "./etc/netvigil/netvigil.yml", "./usr/share/man/man1/netvigil.1.gz", "./usr/share/doc/netvigil/copyright",
                     "./usr/share/bash-completion/completions/netvigil", "./usr/share/zsh/vendor-completions/_netvigil",
                     "./usr/share/fish/vendor_completions.d/netvigil.fish", "./usr/share/netvigil/prometheus/netvigil.rules.yml"] {
            XCTAssertTrue(contents.contains(" \(path)\n"), "\(path) in\n\(contents)")
        }
        for line in contents.split(separator: "\n") { XCTAssertTrue(line.contains(" root/root "), "owned by root: \(line)") }

        let control = directory.path("control")
        XCTAssertEqual(try ProcessRunner.run(["--control", deb, control], executable: dpkgDeb).status, 0)
        XCTAssertEqual(try text(control + "/conffiles"), "/etc/netvigil/netvigil.yml\n")
        XCTAssertTrue(try text(control + "/postinst").contains("systemd-sysusers /usr/lib/sysusers.d/netvigil.conf"))

        let lintian = try ProcessRunner.run(["--fail-on", "error,warning", "--tag-display-limit", "0", deb],
                                            executable: URL(fileURLWithPath: "/usr/bin/lintian"), timeout: 600)
        XCTAssertEqual(lintian.status, 0, lintian.stdout + lintian.stderr)
        XCTAssertFalse(lintian.stdout.contains("E: ") || lintian.stdout.contains("W: "), lintian.stdout)

        // The packaged binary runs with the system's libraries only (no Swift toolchain on the library path).
        let extracted = directory.path("extracted")
        XCTAssertEqual(try ProcessRunner.run(["-x", deb, extracted], executable: dpkgDeb).status, 0)
        let ldd = try ProcessRunner.run([extracted + "/usr/bin/netvigil"], executable: URL(fileURLWithPath: "/usr/bin/ldd"))
        XCTAssertFalse(ldd.stdout.contains("/opt/swift") || ldd.stdout.contains("libswift") || ldd.stdout.contains("not found"),
                       ldd.stdout)
        let version = try ProcessRunner.run(["--version"], executable: URL(fileURLWithPath: extracted + "/usr/bin/netvigil"),
                                            environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertEqual(version.stdout, try ProcessRunner.run(["--version"]).stdout)
    }
}
