// RequestStateMachine's serializing turn: the response serializers queued on a finished
// request run one at a time, in the order added; a failed one may go to the retrier
// (`serializing -> awaitingRetrier`), and their completions are held until the last has run.
// Split from RequestStateMachine.swift (one job per file); the transitions are drawn there.

extension RequestStateMachine {
    /// The running serializer finished. `failed`: its result is a failure, offered to the retrier
    /// when there is one and the request was not cancelled. `completion` makes the handler that
    /// delivers its result; it is called only when that must be held.
    /// Returns `deliverNow`: deliver the result at once, before performing `action` (it is the
    /// last one and nothing is held before it).
    mutating func serializerFinished(failed: Bool, hasRetrier: Bool, completion: () -> Handler) -> (deliverNow: Bool, action: Action) {
        switch state {
        case .serializing(let cancelled):
            if failed, hasRetrier, !cancelled {
                state = .awaitingRetrier(cancelled: false, failedSerializer: completion())
                return (false, .askRetrier)
            }
            serializerIndex += 1
            if completions.isEmpty, serializerIndex == handlers.count {
                return (true, finishSerializing())
            }
            completions.append(completion())
            return (false, nextSerializer(announcesFinish: false))
        default:
            preconditionFailure("serializerFinished in state \(state): only a running serializer reports it, once")
        }
    }

    /// The outcome stands: run the queued serializers, or finish when there is none.
    mutating func startSerializing(cancelled: Bool) -> Action {
        (serializerIndex, completions, outcomeCancelled) = (0, [], cancelled)
        state = .serializing(cancelled: cancelled)
        return nextSerializer(announcesFinish: true)
    }

    /// Holds the plain handlers up to the next serializer and runs it; finishes after the last.
    mutating func nextSerializer(announcesFinish: Bool) -> Action {
        while serializerIndex < handlers.count {
            switch handlers[serializerIndex] {
            case .serializer(let handler): return .runSerializer(handler, announcesFinish: announcesFinish)
            case .plain(let handler): completions.append(handler); serializerIndex += 1
            }
        }
        guard announcesFinish else { return finishSerializing() }
        guard case .serializing = state else { preconditionFailure("nextSerializer in state \(state)") }
        return finish(cancelled: outcomeCancelled)
    }

    mutating func finishSerializing() -> Action {
        guard case .serializing = state else { preconditionFailure("finishSerializing in state \(state)") }
        let ready = completions
        (state, handlers, completions, serializerIndex) = (.finished(cancelled: outcomeCancelled), [], [], 0)
        return .finishSerializing(ready)
    }

    mutating func finish(cancelled: Bool) -> Action {
        let ready = completions
        (state, handlers, completions, serializerIndex) = (.finished(cancelled: cancelled), [], [], 0)
        return .runHandlers(ready)
    }
}
