// curl's --xattr: a file fetch writes gets the freedesktop.org attributes curl 7.88 sets, on the
// descriptor (never by path, so nothing a server names is followed), when the first body bytes
// are written (a response without a body gets none, as curl's):
//
//   user.xdg.origin.url   the URL as given, its user name and password removed
//   user.mime_type        the response's Content-Type, when it has one
//
// A file system without user attributes refuses them silently (curl ignores the failure too).

#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Transport

/// The extended attributes of `--xattr`.
enum OutputAttributes {
    /// Sets the attributes on the open file `fd`.
    static func write(to fd: Int32, url: String, contentType: String?) {
        set(fd, "user.xdg.origin.url", withoutCredentials(url))
        if let contentType, !contentType.isEmpty { set(fd, "user.mime_type", contentType) }
    }

    /// `url` without the user information of its authority (`scheme://user:pass@host/...` ->
    /// `scheme://host/...`); other text is kept as written.
    static func withoutCredentials(_ url: String) -> String {
        guard let separator = url.firstOccurrence(of: "://") else { return url }
        let authorityStart = separator.upperBound
        let authorityEnd = url[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        guard let at = url[authorityStart..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<authorityStart]) + url[url.index(after: at)...]
    }

    private static func set(_ fd: Int32, _ name: String, _ value: String) {
        let bytes = Array(value.utf8)
        _ = bytes.withUnsafeBytes { fsetxattr(fd, name, $0.baseAddress, bytes.count, 0) }
    }
}
