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
    /// ``default`` and ``ephemeral`` each have a memory-only cache of their own (512 KiB: Apple's
    /// figure without the disk part), not ``URLCache/shared`` as on Apple platforms, so two
    /// sessions (two users) never share responses unless given the same cache; see the README's
    /// "HTTP caching". A session keeps the cache its configuration had when it was created.
    public var urlCache: URLCache? {
        get { settings.cache.cache }
        set { update { $0.cache = URLCacheReference(newValue) } }
    }
}
