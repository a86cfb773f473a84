// The three monitors' default queues, and how a monitor knows its queue is one of them: then
// its events are delivered inline (`SelectiveEventMonitor.deliversInline`: `queue.sync` on the
// thread that produced them, no thread wake-up), since no one else puts work on that queue and
// the session never produces events on it. A queue the caller passes keeps Alamofire's
// delivery, a hop per event, since the caller may produce events on it (`sync` would deadlock).

public import Dispatch

/// Makes and recognises the monitors' private default queues.
@usableFromInline
enum MonitorQueue {
    /// Marks a queue made by ``make(label:)``.
    private static let key = DispatchSpecificKey<Bool>()

    /// A new serial queue, marked as a monitor's private queue.
    @usableFromInline
    static func make(label: String) -> DispatchQueue {
        let queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: true)
        return queue
    }

    /// Whether `queue` was made by ``make(label:)`` (the caller did not choose it).
    static func isPrivate(_ queue: DispatchQueue) -> Bool {
        queue.getSpecific(key: key) == true
    }
}
