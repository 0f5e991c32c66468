import Foundation

/// Reads one configuration file as UTF-8 text within ``ConfigLimits/maxFileBytes``; errors name the file as given.
enum ConfigFileReader {
    /// A file over the limit is refused after reading one byte more than the limit.
    static func read(path: String) throws(ConfigError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ConfigError(file: path, keyPath: "", message: "no such file")
        }
        guard !isDirectory.boolValue else {
            throw ConfigError(file: path, keyPath: "", message: "cannot read file (a directory?)")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ConfigError(file: path, keyPath: "", message: "cannot read file (permission denied?)")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: ConfigLimits.maxFileBytes + 1) ?? Data()
        } catch {
            throw ConfigError(file: path, keyPath: "", message: "cannot read file (a directory?)")
        }
        guard data.count <= ConfigLimits.maxFileBytes else {
            throw ConfigError(file: path, keyPath: "",
                              message: "file is larger than \(ConfigLimits.describe(bytes: ConfigLimits.maxFileBytes)) (the limit)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(file: path, keyPath: "", message: "file is not UTF-8 text")
        }
        return text
    }
}
