/// A ``URLCache`` (or none) inside `URLSessionConfiguration.Settings`, which is `Equatable`:
/// two references are equal when they name the same cache.
struct URLCacheReference: Equatable, Sendable {
    /// The cache; `nil` for none.
    let cache: URLCache?

    init(_ cache: URLCache?) { self.cache = cache }

    static func == (lhs: URLCacheReference, rhs: URLCacheReference) -> Bool { lhs.cache === rhs.cache }
}

extension URLSessionConfiguration {
    /// The cache GET responses of a ``DataRequest`` are stored in and served from; `nil` for none.
    ///
    /// ``default`` uses ``URLCache/shared`` (memory only, 512 KiB: Apple's figure without the disk
    /// part, see the README's "HTTP caching"); ``ephemeral`` a memory-only cache of its own. A
    /// session keeps the cache its configuration had when it was created.
    public var urlCache: URLCache? {
        get { settings.cache.cache }
        set { update { $0.cache = URLCacheReference(newValue) } }
    }
}
