// The parent of fetch's suites that run servers on loopback (openssl s_server, ScriptedServer):
// `.serialized` keeps them from overlapping one another, as ClientIntegrationTests does for
// Client's.
import Testing

/// Parent of the fetch suites that open sockets; `.serialized` keeps them from overlapping.
@Suite("fetch integration", .serialized)
struct FetchIntegrationTests {}
