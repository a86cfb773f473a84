#if FullFoundation
package import Foundation
#else
package import FoundationEssentials
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension MultipartFormData {
    /// The name prefix of the private directories holding multipart temporary files.
    static let temporaryDirectoryPrefix = "org.lariat.multipart."

    /// A path for a multipart body file, in a new directory only this process can enter.
    ///
    /// The directory comes from `mkdtemp(3)` under `base` (mode 0700, a fresh random name, so
    /// another user cannot have created it first or plant a symlink in it); the file is then
    /// created by ``writeEncodedData(to:)`` with `O_CREAT | O_EXCL | O_NOFOLLOW` and mode 0600.
    /// A fixed shared directory such as `$TMPDIR/org.lariat.multipart`, reused when it already
    /// exists, would let another local user own it and read or replace the bodies.
    ///
    /// - Parameter base: the temporary directory, normally `FileManager.temporaryDirectory`.
    /// - Returns: the file URL, which does not exist yet.
    /// - Throws: ``TemporaryDirectoryError`` with `mkdtemp`'s `errno`.
    package static func makeTemporaryFileURL(in base: URL) throws -> URL {
        // mkdtemp(3) replaces the six trailing X's of its template with a unique suffix.
        var template = Array((base.path + "/" + temporaryDirectoryPrefix + "XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw TemporaryDirectoryError(errno: errno, path: base.path) }
        let directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return URL(fileURLWithPath: directory, isDirectory: true).appendingPathComponent("body.multipart")
    }

    /// Removes a file made at ``makeTemporaryFileURL(in:)`` and then its directory, which is
    /// removed only when it is one of ours and empty (`rmdir`).
    ///
    /// - Parameters:
    ///   - file: the file to remove.
    ///   - fileManager: the file manager used for the file.
    package static func removeTemporaryFile(_ file: URL, fileManager: FileManager) {
        try? fileManager.removeItem(at: file)
        let directory = file.deletingLastPathComponent()
        guard directory.lastPathComponent.hasPrefix(temporaryDirectoryPrefix) else { return }
        _ = rmdir(directory.path)
    }

    /// `mkdtemp` failed.
    struct TemporaryDirectoryError: Error, CustomStringConvertible {
        /// The `errno` value.
        let errno: Int32
        /// The directory it was asked to create in.
        let path: String
        /// `mkdtemp in /tmp: Permission denied`.
        var description: String { "mkdtemp in \(path): \(String(cString: strerror(errno)))" }
    }
}
