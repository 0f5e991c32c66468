import Dispatch
import Foundation

/// Where `netvigil export --output` writes, without ever deleting, truncating or chmodding a file it did not create.
///
/// - no `--output` or `-`: stdout;
/// - a new path or an existing regular file: a temporary file (`.NAME.XXXXXX.tmp`, mode 0600, `O_EXCL`) in the same
///   directory, fsynced and renamed over the path only when the export succeeded; a failure or SIGINT/SIGTERM removes
///   the temporary file and leaves an existing file as it was;
/// - a symbolic link to a regular file: the same, replacing the link's target (the link stays);
/// - an existing FIFO or character device (`/dev/null`, a named pipe), directly or through a link: written straight
///   into, never created, truncated or removed;
/// - anything else (directory, block device, socket, dangling link): refused.
final class ExportDestination {
    let fd: Int32
    /// The name errors use.
    let name: String
    private let temporary: String?
    private let final: String?
    private var signals: [DispatchSourceSignal] = []

    private init(fd: Int32, name: String, temporary: String? = nil, final: String? = nil) {
        self.fd = fd
        self.name = name
        self.temporary = temporary
        self.final = final
    }

    /// Opens the destination for `--output` (nil or `-` for stdout).
    static func open(_ output: String?) throws -> ExportDestination {
        guard let output, output != "-" else { return ExportDestination(fd: STDOUT_FILENO, name: "stdout") }
        var link = stat()
        var target = stat()
        if lstat(output, &link) != 0 {
            guard errno == ENOENT else { throw failure(output, "cannot inspect it: \(String(cString: strerror(errno)))") }
            return try replacing(output, final: output)
        }
        guard stat(output, &target) == 0 else {
            throw failure(output, "is a symbolic link to a missing file; give a regular file or - for stdout")
        }
        switch target.st_mode & S_IFMT {
        case S_IFREG:
            let isLink = link.st_mode & S_IFMT == S_IFLNK
            guard let resolved = isLink ? realpath(output, nil) : nil else { return try replacing(output, final: output) }
            defer { free(resolved) }
            return try replacing(output, final: String(cString: resolved))
        case S_IFIFO, S_IFCHR:
            let fd = Glibc.open(output, O_WRONLY | O_CLOEXEC | O_NOCTTY)
            guard fd >= 0 else { throw failure(output, "cannot open: \(String(cString: strerror(errno)))") }
            return ExportDestination(fd: fd, name: output)
        case let type:
            throw failure(output, "is \(describe(type)); give a regular file, a FIFO or - for stdout")
        }
    }

    /// A temporary file beside `final`, renamed over it by `commit()`.
    private static func replacing(_ output: String, final: String) throws -> ExportDestination {
        let directory = (final as NSString).deletingLastPathComponent
        let base = (final as NSString).lastPathComponent
        for _ in 0..<16 {
            let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
            let temporary = (directory.isEmpty ? "" : directory + "/") + ".\(base).\(suffix).tmp"
            let fd = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 {
                let destination = ExportDestination(fd: fd, name: output, temporary: temporary, final: final)
                destination.removeTemporaryOnSignals()
                return destination
            }
            if errno != EEXIST {
                throw failure(output, "cannot open \(output) (temporary file in \(directory.isEmpty ? "." : directory)): \(String(cString: strerror(errno)))", prefix: false)
            }
        }
        throw failure(output, "cannot create a temporary file beside it (names taken)")
    }

    /// Makes the export visible: fsync, then rename the temporary file over the output (no-op for stdout or a FIFO).
    func commit() throws {
        guard let temporary, let final else { return }
        guard fsync(fd) == 0 else { throw Self.failure(name, "cannot write: \(String(cString: strerror(errno)))") }
        guard rename(temporary, final) == 0 else {
            throw Self.failure(name, "cannot replace it: \(String(cString: strerror(errno)))")
        }
        let directory = (final as NSString).deletingLastPathComponent
        let dirFD = Glibc.open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            fsync(dirFD)
            close(dirFD)
        }
        stopSignalHandling()
        close(fd)
    }

    /// Gives up: removes the temporary file (ours) and touches nothing else.
    func abandon() {
        stopSignalHandling()
        if let temporary { unlink(temporary) }
        if fd != STDOUT_FILENO { close(fd) }
    }

    /// On SIGINT, SIGTERM or SIGHUP the temporary file is removed before the process exits (128 + signal).
    private func removeTemporaryOnSignals() {
        guard let temporary else { return }
        // Kept for the life of the process (a handler may run at any point); passed as an address to stay Sendable.
        let address = Int(bitPattern: strdup(temporary))
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if let path = UnsafePointer<CChar>(bitPattern: address) { unlink(path) }
                _exit(128 + number)
            }
            source.resume()
            signals.append(source)
        }
    }

    private func stopSignalHandling() {
        guard !signals.isEmpty else { return }
        signals.forEach { $0.cancel() }
        signals = []
        for number in [SIGINT, SIGTERM, SIGHUP] { signal(number, SIG_DFL) }
    }

    private static func failure(_ output: String, _ message: String, prefix: Bool = true) -> CLIFailure {
        CLIFailure(.ioError, "--output: " + (prefix ? "\(output) " : "") + message)
    }

    private static func describe(_ type: mode_t) -> String {
        switch type {
        case S_IFDIR: "a directory"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}
