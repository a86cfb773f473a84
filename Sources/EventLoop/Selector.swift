// Selector: one loop's epoll instance, its wake-up eventfd and the fd -> Socket table.
//
// Registrations carry an ID next to the fd (epoll_event.data.u64 = id << 32 | fd), after
// swift-nio's SelectorEpoll: if a handler closes socket B while B's event is still in the
// current batch, and a new socket C reuses B's fd number, the event's ID no longer matches
// C's and is dropped instead of being delivered to the wrong socket. ID 0 is the eventfd.
//
// The table is an array indexed by fd (fds are small, dense integers), so dispatching an
// event is an array load, not a hash lookup. It holds each registered Socket strongly:
// an open socket stays alive until `close()` (which deregisters it), like a channel in NIO.
//
// Threading: everything except `wake()` is loop-confined. `wake()` only writes the eventfd;
// EventLoop counts its callers in flight and closes the fd only when none is left.
internal import CLinux
internal import Glibc

/// Result of decoding one epoll event.
enum SelectorEvent {
    /// The wake-up eventfd fired.
    case wakeup
    /// A registered socket is ready; `mask` holds the `EPOLL*` bits.
    case socket(Socket, mask: UInt32)
    /// The event belongs to a registration that no longer exists (closed, or fd reused).
    case stale
}

/// The epoll event bits this module uses, as `UInt32` masks.
enum EpollMask {
    static let input = UInt32(EPOLLIN.rawValue)
    static let output = UInt32(EPOLLOUT.rawValue)
    static let error = UInt32(EPOLLERR.rawValue)
    static let hangup = UInt32(EPOLLHUP.rawValue)
}

/// Loop-confined epoll wrapper; see the file header.
final class Selector {
    /// Most events taken from one `epoll_wait`; more simply wait for the next iteration.
    static let eventCapacity = 64

    private let epollFD: Int32
    private let wakeFD: Int32
    private let events: UnsafeMutablePointer<epoll_event>
    private var table: [Socket?] = []
    private var registrationIDs: [UInt32] = []
    private var nextRegistrationID: UInt32 = 1
    private var closed = false

    /// Creates the epoll instance and the eventfd (both close-on-exec); traps if the process is out of fds.
    init() {
        epollFD = mustSucceed("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        wakeFD = mustSucceed("eventfd") { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
        events = .allocate(capacity: Self.eventCapacity)
        var event = epoll_event()
        event.events = EpollMask.input
        event.data.u64 = 0  // registration ID 0: the wake-up fd
        mustSucceed("epoll_ctl") { epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) }
    }

    deinit {
        closeDescriptors()
        events.deallocate()
    }

    /// Closes the epoll fd and the eventfd (loop teardown); idempotent.
    ///
    /// The caller guarantees no thread can call ``wake()`` any more.
    func closeDescriptors() {
        guard !closed else { return }
        closed = true
        closeDescriptor(epollFD)
        closeDescriptor(wakeFD)
    }

    // MARK: registrations

    /// Adds `socket` (owning `fd`) with the event mask `mask`.
    ///
    /// - Returns: The registration ID to pass to ``modify(fd:id:mask:)`` and ``deregister(fd:id:)``.
    /// - Throws: `SocketError` if epoll refuses (ENOMEM, ENOSPC: `max_user_watches`).
    func register(_ socket: Socket, fd: Int32, mask: UInt32) throws(SocketError) -> UInt32 {
        let id = nextRegistrationID
        nextRegistrationID = nextRegistrationID == UInt32.max ? 1 : nextRegistrationID + 1
        var event = epoll_event()
        event.events = mask
        event.data.u64 = UInt64(id) << 32 | UInt64(UInt32(bitPattern: fd))
        _ = try retryingSyscall("epoll_ctl") { Int(epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event)) }
        let index = Int(fd)
        if index >= table.count {
            let newCount = max(index + 1, table.count * 2, 64)
            table.append(contentsOf: repeatElement(nil, count: newCount - table.count))
            registrationIDs.append(contentsOf: repeatElement(0, count: newCount - registrationIDs.count))
        }
        table[index] = socket
        registrationIDs[index] = id
        return id
    }

    /// Changes the event mask of a live registration.
    func modify(fd: Int32, id: UInt32, mask: UInt32) {
        precondition(registrationIDs[Int(fd)] == id, "modifying a stale registration for fd \(fd)")
        var event = epoll_event()
        event.events = mask
        event.data.u64 = UInt64(id) << 32 | UInt64(UInt32(bitPattern: fd))
        mustSucceed("epoll_ctl(MOD)") { epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event) }
    }

    /// Removes a registration (before the fd is closed) and releases the table's reference.
    func deregister(fd: Int32, id: UInt32) {
        stopEvents(fd: fd, id: id)
        forget(fd: fd, id: id)
    }

    /// Removes the fd from epoll but keeps the table entry (a hung-up socket awaiting `close()`,
    /// still closed by loop teardown). Level-triggered ERR/HUP cannot be masked, only removed.
    func stopEvents(fd: Int32, id: UInt32) {
        precondition(registrationIDs[Int(fd)] == id, "stale registration for fd \(fd)")
        var event = epoll_event()  // ignored by EPOLL_CTL_DEL; non-nil for old kernels' sake
        mustSucceed("epoll_ctl(DEL)") { epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event) }
    }

    /// Drops the table entry of a registration already removed from epoll.
    func forget(fd: Int32, id: UInt32) {
        precondition(registrationIDs[Int(fd)] == id, "stale registration for fd \(fd)")
        table[Int(fd)] = nil
        registrationIDs[Int(fd)] = 0
    }

    /// Every socket still in the table, registered or hung up (loop teardown).
    var registeredSockets: [Socket] { table.compactMap { $0 } }

    // MARK: waiting

    /// Waits for events.
    ///
    /// - Parameter timeoutMilliseconds: -1 waits indefinitely, 0 polls.
    /// - Returns: The number of events ready; 0 on timeout or EINTR (the caller recomputes timers).
    func wait(timeoutMilliseconds: Int32) -> Int {
        let count = epoll_wait(epollFD, events, Int32(Self.eventCapacity), timeoutMilliseconds)
        if count >= 0 { return Int(count) }
        let code = errno
        precondition(code == EINTR, "epoll_wait failed: errno \(code) (\(ErrnoClass.message(for: code)))")
        return 0
    }

    /// Decodes event `index` of the last ``wait(timeoutMilliseconds:)``.
    func event(at index: Int) -> SelectorEvent {
        let event = events[index]
        let data = event.data.u64
        let id = UInt32(truncatingIfNeeded: data >> 32)
        if id == 0 { return .wakeup }
        let fd = Int(Int32(bitPattern: UInt32(truncatingIfNeeded: data)))
        guard fd < table.count, registrationIDs[fd] == id, let socket = table[fd] else { return .stale }
        return .socket(socket, mask: event.events)
    }

    // MARK: wake-ups

    /// Makes a blocked ``wait(timeoutMilliseconds:)`` return. Any thread.
    func wake() {
        var one: UInt64 = 1
        while true {
            let written = write(wakeFD, &one, 8)
            if written == 8 { return }
            let code = errno
            if code == EINTR { continue }
            // EAGAIN: the counter is saturated, so the loop is certainly going to wake.
            precondition(code == EAGAIN, "eventfd write failed: errno \(code)")
            return
        }
    }

    /// Resets the eventfd counter after it fired.
    func drainWakeup() {
        var value: UInt64 = 0
        while read(wakeFD, &value, 8) < 0 && errno == EINTR {}
    }
}
