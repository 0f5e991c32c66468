import Foundation
import NetVigilSystem

/// Where an export's bytes go: a file descriptor for the CLI, a response body for the feed.
public protocol ExportOutput: AnyObject {
    /// Writes all bytes or throws `ExportError.output`.
    func write(_ bytes: UnsafeRawBufferPointer) throws
}

/// Writes to a file descriptor, retrying short writes and EINTR.
public final class FileDescriptorOutput: ExportOutput {
    public let fd: Int32
    private let name: String

    /// `name` appears in error messages (a path, or `stdout`).
    public init(fd: Int32, name: String) {
        self.fd = fd
        self.name = name
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = SystemCall.retryingOnInterrupt {
                Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            }
            if written < 0 {
                throw ExportError.output("cannot write \(name): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }
}

/// Collects the export in memory (tests, small responses).
public final class MemoryOutput: ExportOutput {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        self.bytes.append(contentsOf: bytes)
    }

    public var string: String { String(decoding: bytes, as: UTF8.self) }
}

/// Export failures that are not store errors.
public enum ExportError: Error, Sendable, CustomStringConvertible {
    /// Writing the output failed (disk full, closed pipe, ...).
    case output(String)
    /// The query cannot be run as given (unknown target, empty range, ...).
    case invalidQuery(String)
    /// The export ran past its time limit and stopped (the document is incomplete).
    case timeLimit(String)

    public var description: String {
        switch self {
        case .output(let message), .invalidQuery(let message), .timeLimit(let message): return message
        }
    }
}
