// Issue 18: why LeakSanitizer reports 32 bytes at fetch's exit, without Lariat. An object alive
// at exit (reachable from a global, as fetch's sessions and their pools are) that once had a weak
// reference has a side table; the runtime keeps its address only inside the object's refcount word,
// shifted and flagged, where LSan's pointer scan cannot see it. With `noweak` it exits 0.
//   swiftc -sanitize=address weak.swift -o weak && ASAN_OPTIONS=detect_leaks=1 ./weak   # 32 bytes, exit 1
import Glibc
final class Pool {}
final class Connection { weak var pool: Pool?; init(_ pool: Pool) { self.pool = pool } }
let pool = Pool()
if CommandLine.arguments.count < 2 { _ = Connection(pool) }  // a weak reference formed, then gone
exit(0)
