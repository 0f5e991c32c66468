import Foundation

extension Certificate {
    /// File extensions taken from a directory of pinned certificates or CAs.
    public static let fileExtensions: Set<String> = ["cer", "der", "crt", "pem"]

    /// Parses DER (one certificate) or PEM (one or more `CERTIFICATE` blocks; other blocks are skipped).
    /// - Parameter source: names the input in errors.
    public static func parse(_ data: Data, source: String = "input") throws(CertificateError) -> [Certificate] {
        if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN ") {
            return try parsePEM(text, source: source)
        }
        guard !data.isEmpty else { throw .noCertificates(source) }
        return [try Certificate(der: data, source: source)]
    }

    /// Parses every `CERTIFICATE` block of a PEM text (a single certificate or a bundle).
    public static func parsePEM(_ text: String, source: String = "input") throws(CertificateError) -> [Certificate] {
        var certificates: [Certificate] = []
        var body: String? = nil
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = trimmed(rawLine)
            if line == "-----BEGIN CERTIFICATE-----" {
                body = ""
            } else if line == "-----END CERTIFICATE-----" {
                guard let encoded = body,
                      let der = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters),
                      !der.isEmpty
                else { throw .invalidPEM(source) }
                do {
                    certificates.append(try Certificate(der: der, source: source))
                } catch {
                    throw .invalidPEM(source)
                }
                body = nil
            } else if body != nil {
                if line.contains(":") { continue }  // RFC 1421 headers
                body! += String(line)  // appending the Substring itself is generic: a runtime conformance look-up
            }
        }
        if body != nil { throw .invalidPEM(source) }
        guard !certificates.isEmpty else { throw .noCertificates(source) }
        return certificates
    }

    /// `line` without leading and trailing white space. The standard library's `Character.isWhitespace`, not
    /// Foundation's `trimmingCharacters(in:)`: that builds a `CharacterSet` per call, a cost every line of every
    /// `--ca` file would pay.
    private static func trimmed(_ line: Substring) -> Substring {
        guard let first = line.firstIndex(where: { !$0.isWhitespace }),
              let last = line.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return line[first...last]
    }

    /// Loads the certificates of one file (DER, PEM or PEM bundle).
    public static func load(contentsOf path: String) throws(CertificateError) -> [Certificate] {
        try parse(try contents(ofFile: path), source: path)
    }

    /// The bytes of a file that should hold certificates, keys or CSRs (`unreadable` when missing, a directory or unreadable).
    public static func contents(ofFile path: String) throws(CertificateError) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadable(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw .unreadable(path: path, reason: "is a directory, expected a certificate file") }
        // Read by path: making a `URL` first is work a readable file does not need. Only a failed read goes through
        // `Data(contentsOf:)`, for the reason it gives.
        if let data = FileManager.default.contents(atPath: path) { return data }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: "cannot be read (\(Self.reason(error)))")
        }
    }

    /// Loads certificates from files and directories; a directory contributes its `.cer`, `.der`, `.crt` and
    /// `.pem` files (not recursive, sorted by name). A directory without any such file is an error.
    public static func load(paths: [String]) throws(CertificateError) -> [Certificate] {
        var result: [Certificate] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw .unreadable(path: path, reason: "no such file or directory")
            }
            if isDirectory.boolValue {
                let names: [String]
                do {
                    names = try FileManager.default.contentsOfDirectory(atPath: path)
                } catch {
                    throw .unreadable(path: path, reason: "cannot list directory (\(Self.reason(error)))")
                }
                let files = names.filter { fileExtensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
                guard !files.isEmpty else { throw .noCertificates(path) }
                for name in files {
                    result += try load(contentsOf: (path as NSString).appendingPathComponent(name))
                }
            } else {
                result += try load(contentsOf: path)
            }
        }
        return result
    }

    private static func reason(_ error: any Error) -> String {
        if let cocoa = error as? CocoaError, let underlying = cocoa.userInfo[NSUnderlyingErrorKey] as? NSError {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return (error as NSError).localizedDescription
    }
}
