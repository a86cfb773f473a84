// What `import Client` brings along, decided here and nowhere else.
//
// Client's public signatures name types of two lower modules, and a user of the Alamofire API
// must be able to write them with `import Client` alone (as `fetch` does):
// - TLS, whole: every public TLS type is part of configuring or explaining a secure connection
//   (`TLSConfiguration`, `TrustRoots`, `ClientIdentity`, `Certificate`, `PublicKeyPins`,
//   `TrustFailure`, `TLSError`...), and `Session(tlsConfiguration:)` and the trust evaluators
//   take and return them.
// - EventLoop, only the loop types a session can be given (`Session(eventLoopGroup:)`) and the
//   errors a `TransportError` can carry. Sockets, connectors and timers stay behind
//   `import EventLoop` for the few who drive the loop themselves.
// - Wire is not re-exported: its errors reach users as `TransportError.underlying` values, which
//   need `import Wire` only to be inspected field by field.

@_exported import TLS
@_exported import class EventLoop.EventLoopGroup
@_exported import class EventLoop.EventLoop
@_exported import struct EventLoop.SocketError
// - Transport, only the types Client's public API names: the errors a request fails with
//   (`TransportError`, `ProxyError`), a proxy to configure (`ProxyServer`) and a name resolver
//   (`HostResolver`). Connections, the pool and their machines stay `package`.
@_exported import struct Transport.TransportError
@_exported import struct Transport.ProxyServer
@_exported import class Transport.ProxyTLSOptions
@_exported import struct Transport.ProxyError
@_exported import struct Transport.HostResolver
