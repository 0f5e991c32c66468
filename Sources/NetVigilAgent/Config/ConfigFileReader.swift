import NetVigilSystem

/// Reads configuration files as UTF-8 text, regular files only, within ``ConfigLimits/maxFileBytes``; errors name
/// the file as given.
///
/// Files are opened through ``RegularFile`` (`O_NONBLOCK`, then `fstat`): a FIFO or device in `conf.d` is one
/// error line, never an `open(2)` that blocks the reload, and a file's size is known before it is read.
enum ConfigFileReader {
    /// Opens `path` for reading; anything but a regular file is refused.
    static func open(path: String) throws(ConfigError) -> RegularFile {
        do {
            return try RegularFile(path: path)
        } catch {
            throw ConfigError(file: path, keyPath: "", message: error.reason)
        }
    }

    /// Opens and reads `path`; a file over the limit is refused after reading one byte more than the limit.
    static func read(path: String) throws(ConfigError) -> String {
        let file = try open(path: path)
        return try read(file)
    }

    /// Reads an opened file; a file over the limit is refused after reading one byte more than the limit.
    static func read(_ file: borrowing RegularFile) throws(ConfigError) -> String {
        guard file.size <= ConfigLimits.maxFileBytes else { throw tooLarge(file.path) }
        let bytes: [UInt8]
        do {
            bytes = try file.read(upTo: ConfigLimits.maxFileBytes + 1)
        } catch {
            throw ConfigError(file: file.path, keyPath: "", message: "cannot read file: \(error.reason)")
        }
        guard bytes.count <= ConfigLimits.maxFileBytes else { throw tooLarge(file.path) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError(file: file.path, keyPath: "", message: "file is not UTF-8 text")
        }
        return text
    }

    private static func tooLarge(_ path: String) -> ConfigError {
        ConfigError(file: path, keyPath: "",
                    message: "file is larger than \(ConfigLimits.describe(bytes: ConfigLimits.maxFileBytes)) (the limit)")
    }
}
