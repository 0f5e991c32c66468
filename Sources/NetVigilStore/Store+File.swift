import Foundation

extension Store {
    /// What `storage.path` names before the store opens it.
    enum FileState: Equatable {
        /// Nothing there yet: the store creates a new regular file.
        case missing
        /// A regular file, directly or through symbolic links: opened as it is, never chmodded.
        case regular
    }

    /// Checks that `path` is a regular file (symbolic links followed) or does not exist; anything else is refused
    /// without being opened, so a device, FIFO, socket or directory is never touched.
    ///
    /// A dangling symbolic link is refused too: the store never creates a file through a link.
    static func fileState(_ path: String) throws -> FileState {
        var link = stat()
        guard lstat(path, &link) == 0 else {
            if errno == ENOENT { return .missing }
            throw StoreError(.io, path: path, message: "cannot inspect the database file: \(String(cString: strerror(errno)))")
        }
        var target = stat()
        guard stat(path, &target) == 0 else {
            throw StoreError(.io, path: path, message: "is a symbolic link to a missing file; point storage.path at a regular file")
        }
        let type = target.st_mode & S_IFMT
        guard type == S_IFREG else {
            let through = link.st_mode & S_IFMT == S_IFLNK ? "a symbolic link to " : ""
            throw StoreError(.io, path: path, message: "is \(through)\(describe(fileType: type)), not a regular file; point storage.path at a regular file")
        }
        return .regular
    }

    /// Creates the database file (mode 0600, exclusively: never through a link) and its directory (0700) if
    /// missing; an existing regular file is left as it is.
    static func prepareFile(_ path: String) throws {
        guard try fileState(path) == .missing else { return }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw StoreError(.io, path: path, message: "cannot create directory \(directory): \(describe(error))")
            }
        }
        // Created before SQLite opens it, so the mode is 0600 whatever the umask (SQLite gives -wal/-shm the same).
        let fd = Glibc.open(path, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST {
                _ = try fileState(path)  // created meanwhile by someone else: only a regular file will do
                return
            }
            throw StoreError(.io, path: path, message: "cannot create the database file: \(String(cString: strerror(errno)))")
        }
        fchmod(fd, 0o600)  // our new file: the umask may have cleared bits, never added any
        close(fd)
    }

    /// "a character device", "a FIFO", ... for a `st_mode & S_IFMT` value.
    static func describe(fileType type: mode_t) -> String {
        switch type {
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "a special file"
        }
    }
}
