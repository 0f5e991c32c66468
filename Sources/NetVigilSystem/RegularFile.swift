#if canImport(Glibc)
import Glibc
#endif

/// A file opened for reading only if it is a regular file: opened with `O_NONBLOCK` and checked with `fstat`, so a
/// FIFO with no writer, a device or a socket is refused at once instead of blocking `open(2)` or `read(2)` forever
/// (a FIFO dropped into `conf.d` wedged every later reload).
///
/// The size comes from the same `fstat`, so callers can check their budget before reading anything.
public struct RegularFile: ~Copyable {
    /// The open descriptor (`O_RDONLY | O_NONBLOCK | O_CLOEXEC`).
    private let descriptor: Int32
    /// The path as given, for messages.
    public let path: String
    /// Bytes the file held when it was opened.
    public let size: Int

    /// Opens `path` (symbolic links followed) and refuses anything but a regular file.
    public init(path: String) throws(RegularFileError) {
        let descriptor = SystemCall.retryingOnInterrupt { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard descriptor >= 0 else { throw RegularFileError(path: path, errno: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let error = RegularFileError(path: path, errno: errno)
            close(descriptor)
            throw error
        }
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG else {
            close(descriptor)
            throw RegularFileError(path: path, notRegular: type)
        }
        self.descriptor = descriptor
        self.path = path
        self.size = Int(status.st_size)
    }

    deinit {
        close(descriptor)
    }

    /// Reads from the start up to `maxBytes` bytes (fewer at the end of the file). Callers that must refuse a larger
    /// file ask for one byte more than their limit.
    public func read(upTo maxBytes: Int) throws(RegularFileError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, min(maxBytes, size + 1)))
        var filled = 0
        while true {
            if filled == bytes.count {
                // The file grew since `fstat`: read on, within `maxBytes`.
                guard bytes.count < maxBytes else { break }
                bytes.append(contentsOf: repeatElement(0, count: min(maxBytes - bytes.count, 64 * 1024)))
            }
            let (descriptor, offset) = (self.descriptor, filled)
            let count = bytes.withUnsafeMutableBytes { buffer in
                SystemCall.retryingOnInterrupt {
                    pread(descriptor, buffer.baseAddress! + offset, buffer.count - offset, off_t(offset))
                }
            }
            guard count >= 0 else { throw RegularFileError(path: path, errno: errno) }
            if count == 0 { break }
            filled += count
        }
        bytes.removeSubrange(filled...)
        return bytes
    }
}
