// LoopBound: lets a loop-confined value ride in @Sendable closures, checked at every access.

/// Carries a value that must only be used on one ``EventLoop`` through `@Sendable` closures.
///
/// Sending it anywhere is allowed; reading ``value`` traps unless on ``loop``. Typical use:
/// capture a ``Socket`` or a handler in `loop.execute { bound.value.doWork() }` from another thread.
public struct LoopBound<Value>: @unchecked Sendable {
    // @unchecked Sendable: the wrapped value is only reachable through `value`, which checks
    // that the caller is on `loop`, so it is never touched from two threads.

    /// The loop the value belongs to.
    public let loop: EventLoop
    private let wrapped: Value

    /// Wraps `value`. Must be called on `loop`, where the value lives.
    ///
    /// - Parameters:
    ///   - value: The loop-confined value.
    ///   - loop: Its loop.
    public init(_ value: Value, loop: EventLoop) {
        loop.preconditionInEventLoop()
        self.loop = loop
        self.wrapped = value
    }

    /// The wrapped value. Traps unless called on ``loop``.
    public var value: Value {
        loop.preconditionInEventLoop()
        return wrapped
    }
}
