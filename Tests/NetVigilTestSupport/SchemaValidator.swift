import Foundation
import XCTest

/// Runs deploy/schemas/validate.py (python3 + jsonschema, a real validator) on an export or a probe result.
public enum SchemaValidator {
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A python3 that can import jsonschema (Debian's python3-jsonschema or a pip install).
    public static let python: String? = {
        for candidate in ["/usr/bin/python3", "/usr/local/bin/python3", "python3"] {
            if (try? run(candidate, ["-c", "import jsonschema"]).status) == 0 { return candidate }
        }
        return nil
    }()

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let url = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
        let result = try ProcessRunner.run(executable.hasPrefix("/") ? arguments : [executable] + arguments, executable: url)
        return (result.status, result.stdout + result.stderr)
    }

    /// Validates `file` against `deploy/schemas/SCHEMA.schema.json`; fails the test with the validator's message when invalid.
    public static func assertValid(_ file: String, ndjson: Bool = false, schema: String = "export",
                                   file testFile: StaticString = #filePath, line: UInt = #line) throws {
        let python = try XCTUnwrap(python, "python3 with jsonschema is required (make test installs python3-jsonschema)",
                                   file: testFile, line: line)
        let script = repositoryRoot.appendingPathComponent("deploy/schemas/validate.py").path
        let result = try run(python, [script, file, "--schema", schema] + (ndjson ? ["--ndjson"] : []))
        XCTAssertEqual(result.status, 0, result.output, file: testFile, line: line)
    }

    /// Validates `text` (a JSON document, or NDJSON lines) as `assertValid(_:ndjson:schema:)` does a file.
    public static func assertValid(text: String, ndjson: Bool = false, schema: String = "export",
                                   file testFile: StaticString = #filePath, line: UInt = #line) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(ndjson ? "document.ndjson" : "document.json", text)
        try assertValid(path, ndjson: ndjson, schema: schema, file: testFile, line: line)
    }
}
