// How a session's event monitors avoid paying for events they ignore (issue 20: each of
// ClientObservability's monitors cost ~100 µs per request, all of it delivery). A monitor
// conforming to `SelectiveEventMonitor` (package access: ClientObservability's monitors) names
// the events it implements, so no other event is built or dispatched for it, and may say it is
// safe to run on the thread that produced the event, so the events it does handle skip the
// thread hop. Nothing public: user monitors keep Alamofire's contract, every event, on `queue`.

import Dispatch

/// One bit per ``EventMonitor`` event (both `didParseResponse` overloads share one, as do the
/// generic and `Data?` ones of each request type).
package struct MonitoredEvents: OptionSet, Sendable {
    package let rawValue: UInt64
    package init(rawValue: UInt64) { self.rawValue = rawValue }

    // URLSession's task events.
    package static let sessionDidBecomeInvalid = MonitoredEvents(rawValue: 1 << 0)
    package static let taskDidReceiveChallenge = MonitoredEvents(rawValue: 1 << 1)
    package static let taskDidSendBodyData = MonitoredEvents(rawValue: 1 << 2)
    package static let taskNeedsNewBodyStream = MonitoredEvents(rawValue: 1 << 3)
    package static let taskWillPerformHTTPRedirection = MonitoredEvents(rawValue: 1 << 4)
    package static let taskDidFinishCollectingMetrics = MonitoredEvents(rawValue: 1 << 5)
    package static let taskDidComplete = MonitoredEvents(rawValue: 1 << 6)
    package static let taskIsWaitingForConnectivity = MonitoredEvents(rawValue: 1 << 7)
    package static let dataTaskDidReceiveResponse = MonitoredEvents(rawValue: 1 << 8)
    package static let dataTaskDidReceiveData = MonitoredEvents(rawValue: 1 << 9)
    package static let dataTaskWillCacheResponse = MonitoredEvents(rawValue: 1 << 10)
    package static let downloadTaskDidResume = MonitoredEvents(rawValue: 1 << 11)
    package static let downloadTaskDidWriteData = MonitoredEvents(rawValue: 1 << 12)
    package static let downloadTaskDidFinishDownloading = MonitoredEvents(rawValue: 1 << 13)

    // Request events.
    package static let didCreateInitialURLRequest = MonitoredEvents(rawValue: 1 << 14)
    package static let didFailToCreateURLRequest = MonitoredEvents(rawValue: 1 << 15)
    package static let didAdaptInitialRequest = MonitoredEvents(rawValue: 1 << 16)
    package static let didFailToAdaptURLRequest = MonitoredEvents(rawValue: 1 << 17)
    package static let didCreateURLRequest = MonitoredEvents(rawValue: 1 << 18)
    package static let didCreateTask = MonitoredEvents(rawValue: 1 << 19)
    package static let didGatherMetrics = MonitoredEvents(rawValue: 1 << 20)
    package static let didFailTaskEarly = MonitoredEvents(rawValue: 1 << 21)
    package static let didCompleteTask = MonitoredEvents(rawValue: 1 << 22)
    package static let isRetrying = MonitoredEvents(rawValue: 1 << 23)
    package static let didFinish = MonitoredEvents(rawValue: 1 << 24)
    package static let didResume = MonitoredEvents(rawValue: 1 << 25)
    package static let didResumeTask = MonitoredEvents(rawValue: 1 << 26)
    package static let didSuspend = MonitoredEvents(rawValue: 1 << 27)
    package static let didSuspendTask = MonitoredEvents(rawValue: 1 << 28)
    package static let didCancel = MonitoredEvents(rawValue: 1 << 29)
    package static let didCancelTask = MonitoredEvents(rawValue: 1 << 30)
    package static let didValidateData = MonitoredEvents(rawValue: 1 << 31)
    package static let didParseDataResponse = MonitoredEvents(rawValue: 1 << 32)
    package static let didValidateStream = MonitoredEvents(rawValue: 1 << 33)
    package static let didParseStream = MonitoredEvents(rawValue: 1 << 34)
    package static let didCreateUploadable = MonitoredEvents(rawValue: 1 << 35)
    package static let didFailToCreateUploadable = MonitoredEvents(rawValue: 1 << 36)
    package static let didProvideInputStream = MonitoredEvents(rawValue: 1 << 37)
    package static let didFinishDownloadingUsing = MonitoredEvents(rawValue: 1 << 38)
    package static let didCreateDestinationURL = MonitoredEvents(rawValue: 1 << 39)
    package static let didValidateDownload = MonitoredEvents(rawValue: 1 << 40)
    package static let didParseDownloadResponse = MonitoredEvents(rawValue: 1 << 41)

    /// Every event.
    package static let all = MonitoredEvents(rawValue: (1 << 42) - 1)
    /// The eight events ``AlamofireNotifications`` posts.
    package static let notified: MonitoredEvents = [.didResume, .didSuspend, .didCancel, .didFinish,
                                                    .didResumeTask, .didSuspendTask, .didCancelTask, .didCompleteTask]
    /// The events that copy or count every body chunk (what `reportsChunks` turns on).
    package static let chunks: MonitoredEvents = [.dataTaskDidReceiveData, .taskDidSendBodyData, .downloadTaskDidWriteData]
}

/// An ``EventMonitor`` that implements only some events, and may take them inline.
package protocol SelectiveEventMonitor: EventMonitor {
    /// The events the monitor implements; the others are not built or dispatched for it. Read
    /// when the monitor is given to a session (a constant of the monitor).
    var handledEvents: MonitoredEvents { get }

    /// Whether `event` (one of ``handledEvents``) would do anything now: asked on the thread that
    /// produced the event, before any hop, so it must be cheap and thread-safe (a log level
    /// check). `true` by default.
    func isHandling(_ event: MonitoredEvents) -> Bool

    /// Whether events may be delivered on the thread that produced them, through `queue.sync`
    /// (no thread wake-up). Only for a monitor whose `queue` is its own private queue (a queue
    /// on which the session never produces events, so `sync` cannot deadlock) and whose work
    /// per event is short and never blocks: it runs on a connection's loop.
    var deliversInline: Bool { get }
}

extension SelectiveEventMonitor {
    /// Every handled event does something.
    package func isHandling(_ event: MonitoredEvents) -> Bool { true }
}

/// How events reach one monitor: decided once, when the monitor joins a session (or a
/// request), so that no event pays for a dynamic cast per monitor.
struct MonitorRoute: Sendable {
    enum Kind: Sendable {
        /// ``AlamofireNotifications``: its eight events at once, on the producing thread.
        case notifications(AlamofireNotifications)
        /// A monitor of Alamofire's kind: every event, `async` on its queue.
        case every
        /// A ``SelectiveEventMonitor``: its events only, if it takes them now.
        case selective(any SelectiveEventMonitor, handled: MonitoredEvents, inline: Bool)
    }

    let monitor: any EventMonitor
    let kind: Kind

    init(_ monitor: any EventMonitor) {
        self.monitor = monitor
        if let notifications = monitor as? AlamofireNotifications {
            kind = .notifications(notifications)
        } else if let selective = monitor as? any SelectiveEventMonitor {
            kind = .selective(selective, handled: selective.handledEvents, inline: selective.deliversInline)
        } else {
            kind = .every
        }
    }

    /// The events this monitor wants built, ``AlamofireNotifications``' excepted (it hears
    /// them through `postNotification` when no other monitor wants them).
    var wanted: MonitoredEvents {
        switch kind {
        case .notifications: []
        case .every: .all
        case .selective(_, let handled, _): handled
        }
    }

    /// Sends `event` (of kind `kind`) to the monitor: ``AlamofireNotifications`` at once;
    /// a monitor of Alamofire's kind on its queue (`async`, Alamofire's contract); a selective
    /// one only an event it handles and takes now, with `sync` on its queue if it
    /// ``SelectiveEventMonitor/deliversInline`` (no thread wake-up), else `async`.
    func deliver(_ event: MonitoredEvents, _ body: @escaping @Sendable (any EventMonitor) -> Void) {
        switch kind {
        case .notifications(let notifications):
            if MonitoredEvents.notified.contains(event) { body(notifications) }
        case .every:
            let monitor = self.monitor
            monitor.queue.async { body(monitor) }
        case .selective(let selective, let handled, let inline):
            guard handled.contains(event), selective.isHandling(event) else { return }
            if inline {
                selective.queue.sync { body(selective) }
            } else {
                selective.queue.async { body(selective) }
            }
        }
    }
}
