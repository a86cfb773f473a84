// ExchangeEndGate: when an exchange's end may reach the request's state machine.
//
// Alamofire processes a stream request's completion in order with the chunks it handed to the
// stream handlers: its completion waits for the handlers still running. So a cancel from a
// handler, made before that handler could see the completion, wins: the request ends
// `explicitlyCancelled`. Lariat's exchange ends on the connection's loop whatever the handlers'
// queues are doing; the gate holds the end (what the machine needs of it) until every handler
// call handed out before it reported back, then hands it on. The request stays `.resumed`
// meanwhile, so a cancel from a handler moves it to `cancelling`, and the end then completes it
// cancelled. (An `onHTTPResponse` answer needs no gate: reading pauses at the head until it
// comes, so the exchange cannot end before it.)
//
//   open ──handedOut(n)──▶ waiting(n) ──handled (down to 0)──▶ open
//   open ──ended(e)──▶ open                                     (e passes now)
//   waiting(n) ──ended(e)──▶ holding(n, e) ──handled (down to 0)──▶ open   (e is released)
//
// No locks and no I/O (STYLE.md §3): the request keeps it inside a lock its body path already
// takes (a stream request's `stream` state).

/// Holds an exchange's end while handler calls handed out before it are outstanding; see the
/// file comment.
enum ExchangeEndGate<End> {
    /// Nothing outstanding: an end passes at once.
    case open
    /// `outstanding` handler calls have not reported back; the exchange has not ended.
    case waiting(outstanding: Int)
    /// The exchange ended while `outstanding` handler calls had not reported back: `end` waits.
    case holding(outstanding: Int, end: End)

    /// `count` handler calls were handed out (a chunk to each queued stream handler).
    mutating func handedOut(_ count: Int) {
        guard count > 0 else { return }
        switch self {
        case .open: self = .waiting(outstanding: count)
        case .waiting(let outstanding): self = .waiting(outstanding: outstanding + count)
        case .holding(let outstanding, let end): self = .holding(outstanding: outstanding + count, end: end)
        }
    }

    /// The exchange ended. Returns `end` when it passes now, `nil` when it is held.
    mutating func ended(_ end: End) -> End? {
        switch self {
        case .open:
            return end
        case .waiting(let outstanding):
            self = .holding(outstanding: outstanding, end: end)
            return nil
        case .holding:
            preconditionFailure("an exchange ends once: the gate already holds an end")
        }
    }

    /// `count` handler calls reported back. Returns the held end when this released it.
    mutating func handled(_ count: Int = 1) -> End? {
        switch self {
        case .open:
            preconditionFailure("handled \(count) handler calls with none outstanding")
        case .waiting(let outstanding):
            precondition(count <= outstanding, "handled \(count) of \(outstanding) outstanding handler calls")
            self = outstanding == count ? .open : .waiting(outstanding: outstanding - count)
            return nil
        case .holding(let outstanding, let end):
            precondition(count <= outstanding, "handled \(count) of \(outstanding) outstanding handler calls")
            guard outstanding == count else {
                self = .holding(outstanding: outstanding - count, end: end)
                return nil
            }
            self = .open
            return end
        }
    }
}

extension ExchangeEndGate: Equatable where End: Equatable {}
extension ExchangeEndGate: Sendable where End: Sendable {}
