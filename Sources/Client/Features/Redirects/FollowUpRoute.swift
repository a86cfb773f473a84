#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Transport

/// Where an exchange's body bytes go: to the request, discarded while a decided follow-up
/// waits, or held (with the head) while a user's redirect handler has not answered. A stage of
/// `ExchangeReceiver`, confined as it is (no lock, no atomic).
struct FollowUpRoute {
    /// What the head decided.
    enum Mode: Equatable {
        /// The response: its body goes through the receiver's stages.
        case deliver
        /// A follow-up is decided: the body is read and dropped, up to ``FollowUpRoute/maxDrainedBytes``.
        case discard
        /// A redirect a user's handler decides: the head and body are kept, delivered if it declines.
        case hold
    }

    /// A redirect's head and body kept from the consumer until the handler answered, as
    /// URLSession asks `willPerformHTTPRedirection` before delivering any of the 3xx.
    struct HeldHop {
        /// The redirect's head.
        var head: TransportResponseHead
        /// Its body so far, at most ``FollowUpRoute/maxDrainedBytes``.
        var body: [Data] = []
    }

    /// Most body bytes read and discarded before a follow-up: 64 KiB (redirect and 401 bodies
    /// are short HTML). Past it the connection is closed rather than read further.
    static let maxDrainedBytes = 64 * 1024

    private var mode = Mode.deliver
    private var drained = 0
    private var held: HeldHop?
    /// Whether the receiver closed the exchange because the body was too long to drain.
    private(set) var isAbandoned = false

    /// Whether body bytes go to the request.
    var delivers: Bool { mode == .deliver }

    /// The head's decision.
    mutating func start(_ mode: Mode, head: TransportResponseHead) {
        self.mode = mode
        if mode == .hold { held = HeldHop(head: head) }
    }

    /// Counts discarded bytes, keeping them when a hop is held; returns true once, when the cap
    /// is passed (close the exchange; a held body is then incomplete).
    mutating func drain(_ bytes: UnsafeRawBufferPointer) -> Bool {
        drained += bytes.count
        guard drained > Self.maxDrainedBytes else {
            held?.body.append(Data(bytes))
            return false
        }
        defer { isAbandoned = true }
        return !isAbandoned
    }

    /// Takes the held hop, if any; `complete` is false when its body passed the cap.
    mutating func takeHeld() -> (hop: HeldHop, complete: Bool)? {
        defer { held = nil }
        return held.map { ($0, !isAbandoned) }
    }
}
