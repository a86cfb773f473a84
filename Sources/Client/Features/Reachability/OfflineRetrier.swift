// Alamofire 5.11's OfflineRetrier on Linux: when a request fails because the machine is offline,
// wait (at most `maximumWait`) for NWPathMonitor (rtnetlink) to report a satisfied path, then
// retry; otherwise give up. One monitor per retrier, running only while requests wait.
//
// Waiters and the monitor are kept under one Mutex; completions run outside it. Each waiter has
// an ID so the path update and the timeout race safely: whichever removes it first completes it.
#if FullFoundation
public import Foundation
#else
import FoundationEssentials
#endif
public import Dispatch
import Synchronization

/// Retries requests that failed because the network was offline, once the path returns.
public final class OfflineRetrier: RequestAdapter, RequestRetrier, RequestInterceptor, Sendable {
    /// How long a request waits for the path by default: 5 seconds.
    public static let defaultWait: DispatchTimeInterval = .seconds(5)

    /// The `URLError` codes that mean "offline" by default: `.notConnectedToInternet` (which the
    /// transport raises when `connect` fails with ENETUNREACH or ENETDOWN; EHOSTUNREACH is
    /// `.cannotConnectToHost`, so a host unreachable on a working network is not retried here).
    public static let defaultURLErrorOfflineCodes: Set<URLError.Code> = [.notConnectedToInternet]

    /// The default offline test: the error, or the `AFError`'s underlying error, is a `URLError`
    /// whose code is in ``defaultURLErrorOfflineCodes``.
    public static let defaultIsOfflineError: @Sendable (_ error: any Error) -> Bool = { error in
        let underlying = (error as? AFError)?.underlyingError ?? error
        guard let urlError = underlying as? URLError else { return false }
        return defaultURLErrorOfflineCodes.contains(urlError.code)
    }

    /// Wraps the caller's monitor factory. @unchecked Sendable: it is called only under `state`'s
    /// lock, so never from two threads at once.
    private struct MonitorFactory: @unchecked Sendable {
        let make: () -> NWPathMonitor
    }

    private struct State {
        var monitor: NWPathMonitor?
        var waiters: [UInt64: @Sendable (RetryResult) -> Void] = [:]
        var nextID: UInt64 = 0
    }

    private let factory: MonitorFactory
    private let maximumWait: DispatchTimeInterval
    private let isOfflineError: @Sendable (_ error: any Error) -> Bool
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "org.lariat.offlineRetrier")

    /// Creates a retrier.
    ///
    /// - Parameters:
    ///   - monitor: Makes the path monitor, when a request first waits (and again after it stopped).
    ///   - maximumWait: How long a failed request waits for the path; `.never` waits forever.
    ///   - isOfflineError: Which errors mean "offline" (others are not retried).
    public init(
        monitor: @autoclosure @escaping () -> NWPathMonitor = NWPathMonitor(),
        maximumWait: DispatchTimeInterval = OfflineRetrier.defaultWait,
        isOfflineError: @escaping @Sendable (_ error: any Error) -> Bool = OfflineRetrier.defaultIsOfflineError
    ) {
        factory = MonitorFactory(make: monitor)
        self.maximumWait = maximumWait
        self.isOfflineError = isOfflineError
    }

    /// A retrier that waits for a path over `requiredInterfaceType`.
    ///
    /// - Parameters:
    ///   - requiredInterfaceType: The interface type the path must use.
    ///   - maximumWait: How long a failed request waits.
    ///   - isOfflineError: Which errors mean "offline".
    public convenience init(
        requiredInterfaceType: NWInterface.InterfaceType,
        maximumWait: DispatchTimeInterval = OfflineRetrier.defaultWait,
        isOfflineError: @escaping @Sendable (_ error: any Error) -> Bool = OfflineRetrier.defaultIsOfflineError
    ) {
        self.init(monitor: NWPathMonitor(requiredInterfaceType: requiredInterfaceType), maximumWait: maximumWait, isOfflineError: isOfflineError)
    }

    /// A retrier that waits for a path over an interface not of `prohibitedInterfaceTypes`.
    ///
    /// - Parameters:
    ///   - prohibitedInterfaceTypes: Interface types that do not count.
    ///   - maximumWait: How long a failed request waits.
    ///   - isOfflineError: Which errors mean "offline".
    public convenience init(
        prohibitedInterfaceTypes: [NWInterface.InterfaceType],
        maximumWait: DispatchTimeInterval = OfflineRetrier.defaultWait,
        isOfflineError: @escaping @Sendable (_ error: any Error) -> Bool = OfflineRetrier.defaultIsOfflineError
    ) {
        self.init(monitor: NWPathMonitor(prohibitedInterfaceTypes: prohibitedInterfaceTypes), maximumWait: maximumWait, isOfflineError: isOfflineError)
    }

    /// Passes the request through unchanged.
    public func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        completion(.success(urlRequest))
    }

    /// For an offline error, waits for a satisfied path (`.retry`) or ``defaultWait``-style timeout
    /// (`.doNotRetry`); any other error is not retried.
    public func retry(_ request: Request, for session: Session, dueTo error: any Error, completion: @escaping @Sendable (RetryResult) -> Void) {
        guard isOfflineError(error) else { return completion(.doNotRetry) }
        let (id, monitor) = state.withLock { state -> (UInt64, NWPathMonitor?) in
            let id = state.nextID
            state.nextID += 1
            state.waiters[id] = completion
            guard state.monitor == nil else { return (id, nil) }
            let monitor = factory.make()
            state.monitor = monitor
            return (id, monitor)
        }
        if let monitor {
            // Weak: the monitor owns this handler, so a strong capture would be a cycle.
            monitor.pathUpdateHandler = { [weak self, weak monitor] path in
                guard path.status == .satisfied, let monitor else { return }
                self?.pathReturned(from: monitor)
            }
            monitor.start(queue: queue)
        }
        if let delay = maximumWait.lariatNanoseconds {
            queue.asyncAfter(deadline: .now() + .nanoseconds(delay)) { [weak self] in self?.timedOut(id) }
        }
    }

    private func pathReturned(from monitor: NWPathMonitor) {
        let waiters = state.withLock { state -> [@Sendable (RetryResult) -> Void] in
            guard state.monitor === monitor else { return [] }
            state.monitor = nil
            defer { state.waiters.removeAll() }
            return state.waiters.sorted { $0.key < $1.key }.map(\.value)
        }
        monitor.cancel()
        for completion in waiters { completion(.retry) }
    }

    private func timedOut(_ id: UInt64) {
        let (completion, idle) = state.withLock { state -> ((@Sendable (RetryResult) -> Void)?, NWPathMonitor?) in
            let completion = state.waiters.removeValue(forKey: id)
            guard state.waiters.isEmpty, let monitor = state.monitor else { return (completion, nil) }
            state.monitor = nil
            return (completion, monitor)
        }
        idle?.cancel()
        completion?(.doNotRetry)
    }
}

extension DispatchTimeInterval {
    /// The interval in nanoseconds (saturating), nil for `.never`.
    var lariatNanoseconds: Int? {
        switch self {
        case .seconds(let value): value.multipliedReportingOverflow(by: 1_000_000_000).overflow ? .max : value * 1_000_000_000
        case .milliseconds(let value): value.multipliedReportingOverflow(by: 1_000_000).overflow ? .max : value * 1_000_000
        case .microseconds(let value): value.multipliedReportingOverflow(by: 1_000).overflow ? .max : value * 1_000
        case .nanoseconds(let value): value
        case .never: nil
        @unknown default: nil
        }
    }
}

extension RequestInterceptor where Self == OfflineRetrier {
    /// An ``OfflineRetrier`` with this monitor, wait and offline test.
    public static func offlineRetrier(
        monitor: @autoclosure @escaping () -> NWPathMonitor = NWPathMonitor(),
        maximumWait: DispatchTimeInterval = OfflineRetrier.defaultWait,
        isOfflineError: @escaping @Sendable (_ error: any Error) -> Bool = OfflineRetrier.defaultIsOfflineError
    ) -> OfflineRetrier {
        OfflineRetrier(monitor: monitor(), maximumWait: maximumWait, isOfflineError: isOfflineError)
    }

    /// An ``OfflineRetrier`` that waits for a path over `requiredInterfaceType`.
    public static func offlineRetrier(
        requiredInterfaceType: NWInterface.InterfaceType,
        maximumWait: DispatchTimeInterval = OfflineRetrier.defaultWait,
        isOfflineError: @escaping @Sendable (_ error: any Error) -> Bool = OfflineRetrier.defaultIsOfflineError
    ) -> OfflineRetrier {
        OfflineRetrier(requiredInterfaceType: requiredInterfaceType, maximumWait: maximumWait, isOfflineError: isOfflineError)
    }

    /// An ``OfflineRetrier`` that ignores interfaces of `prohibitedInterfaceTypes`.
    public static func offlineRetrier(
        prohibitedInterfaceTypes: [NWInterface.InterfaceType],
        maximumWait: DispatchTimeInterval = OfflineRetrier.defaultWait,
        isOfflineError: @escaping @Sendable (_ error: any Error) -> Bool = OfflineRetrier.defaultIsOfflineError
    ) -> OfflineRetrier {
        OfflineRetrier(prohibitedInterfaceTypes: prohibitedInterfaceTypes, maximumWait: maximumWait, isOfflineError: isOfflineError)
    }
}
