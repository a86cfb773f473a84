extension HTTPURLResponse {
    /// The header fields in received order, repeated names kept; lookups ignore case.
    public var headers: HTTPHeaders { fields }
}
