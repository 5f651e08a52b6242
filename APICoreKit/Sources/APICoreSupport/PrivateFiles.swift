import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files the client writes hold its users' data (cached answers with names and e-mail
/// addresses, queued mutations, tokens): each is created readable and writable by its owner alone
/// (0600), and each folder the client creates for them is the owner's alone too (0700). Folders
/// that were there already are left as they are (a user's cache folder is not ours to change).
package enum PrivateFiles {
    /// The mode of a file the client creates.
    package static let fileMode: mode_t = 0o600
    /// The mode of a folder the client creates.
    package static let folderMode: mode_t = 0o700

    /// Creates `folder` and every missing folder above it, owner-only.
    package static func createFolder(_ folder: URL) throws {
        let path = folder.standardizedFileURL.path
        var missing: [String] = []
        var current = path
        while !current.isEmpty, current != "/", !FileManager.default.fileExists(atPath: current) {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for folder in missing.reversed() where mkdir(folder, folderMode) != 0 && errno != EEXIST {
            throw failure("cannot create the folder", folder)
        }
    }

    /// Writes `data` at `url` as a whole, owner-only: into a new file beside it, created 0600, then
    /// renamed over it, so that no reader sees half of it and no moment leaves it open to others.
    package static func write(_ data: Data, to url: URL) throws {
        let path = url.path
        let temporary = path + ".\(UInt64.random(in: 0...UInt64.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        guard descriptor >= 0 else { throw failure("cannot create", temporary) }
        var written = 0
        let complete = data.withUnsafeBytes { bytes -> Bool in
            while written < bytes.count {
                let count = Foundation.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                written += count
            }
            return true
        }
        let writeError = errno
        close(descriptor)
        guard complete, rename(temporary, path) == 0 else {
            let error = complete ? failure("cannot replace", path) : failure("cannot write", temporary, code: writeError)
            unlink(temporary)
            throw error
        }
    }

    /// Gets a database file ready before SQLite opens it: created empty and owner-only when missing
    /// (SQLite gives its `-wal` and `-shm` files the database's mode), and an existing one, with its
    /// `-wal` and `-shm`, made owner-only when others could read it (a cache an earlier version
    /// created 0644).
    package static func prepareDatabase(at url: URL) throws {
        let path = url.path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        guard errno == EEXIST else { throw failure("cannot create", path) }
        for file in [path, path + "-wal", path + "-shm"] { restrict(file) }
    }

    /// Takes group and other permissions off a file of this user's; anything else is left alone.
    private static func restrict(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_uid == geteuid(), (info.st_mode & S_IFMT) == S_IFREG, info.st_mode & 0o077 != 0 else {
            return
        }
        chmod(path, info.st_mode & 0o700)
    }

    private static func failure(_ what: String, _ path: String, code: Int32 = errno) -> CocoaError {
        CocoaError(.fileWriteUnknown, userInfo: [
            NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "\(what) \(path): \(String(cString: strerror(code)))",
        ])
    }
}
