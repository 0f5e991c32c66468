import NetVigilSystem

extension ConfigValue {
    /// The bytes of the file at `path`, which this value names; `failure` starts the error line (`cannot read token
    /// file PATH`) and the reason follows it. Through ``RegularFile``, as for configuration files: a FIFO or device is
    /// refused at once instead of blocking the load, and a file over ``ConfigLimits/maxFileBytes`` is not read whole.
    func regularFileContents(at path: String, failure: String) throws(ConfigError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            let file = try RegularFile(path: path)
            bytes = try file.read(upTo: ConfigLimits.maxFileBytes + 1)
        } catch {
            throw self.error("\(failure): \(error.reason)")
        }
        guard bytes.count <= ConfigLimits.maxFileBytes else {
            throw self.error("\(failure): larger than \(ConfigLimits.describe(bytes: ConfigLimits.maxFileBytes)) (the limit)")
        }
        return bytes
    }

    /// Checks that `path`, which this value names, opens as a regular file (without blocking), for files another
    /// module reads; `failure` starts the error line.
    func requireRegularFile(_ path: String, failure: String) throws(ConfigError) {
        do {
            _ = try RegularFile(path: path).size
        } catch {
            throw self.error("\(failure): \(error.reason)")
        }
    }
}
