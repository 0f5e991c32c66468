#if canImport(Glibc)
import Glibc
#endif

/// Why a file could not be opened or read as a regular file; `reason` is a short phrase such as `is a FIFO, not a
/// regular file` that completes a sentence about the file.
public struct RegularFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path as given.
    public let path: String
    /// What is wrong, e.g. `no such file`, `permission denied`, `is a FIFO, not a regular file`.
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(path: String, errno code: Int32) {
        let reason = switch code {
        case ENOENT: "no such file"
        case EACCES, EPERM: "permission denied"
        case ENOTDIR: "a part of the path is not a directory"
        case ELOOP: "too many levels of symbolic links"
        case EISDIR: "is a directory, not a regular file"
        default: String(cString: strerror(code)).lowercased()
        }
        self.init(path: path, reason: reason)
    }

    init(path: String, notRegular type: mode_t) {
        let kind = switch type {
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
        self.init(path: path, reason: "is \(kind), not a regular file")
    }

    /// `PATH: reason`.
    public var description: String { "\(path): \(reason)" }
}
