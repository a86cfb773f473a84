// Sessions made inline in a test (`retained(Session()).request(…)`). A request does not keep
// its session alive (as in Alamofire, releasing a session finishes its requests with
// `AFError.sessionDeinitialized`), so a session that nothing holds must be held here.
import Synchronization
import Client

private let retainedSessions = Mutex<[Session]>([])

/// Keeps `session` alive for the rest of the test process and returns it.
func retained(_ session: Session) -> Session {
    retainedSessions.withLock { $0.append(session) }
    return session
}
