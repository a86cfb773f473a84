extension URLSessionConfiguration: AlamofireExtended {}

extension AlamofireExtension where ExtendedType: URLSessionConfiguration {
    /// A new ``URLSessionConfiguration/default`` configuration whose additional headers are
    /// ``HTTPHeaders/default`` (Accept-Encoding, Accept-Language, User-Agent). `Session` uses this
    /// unless given another configuration.
    public static var `default`: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.headers = .default
        return configuration
    }

    /// A new ``URLSessionConfiguration/ephemeral`` configuration whose additional headers are
    /// ``HTTPHeaders/default``.
    public static var ephemeral: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.headers = .default
        return configuration
    }
}
