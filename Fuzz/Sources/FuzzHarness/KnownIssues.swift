// Parser bugs the fuzzer found that are reported but not fixed yet. Each entry lets a campaign run
// past its one symptom instead of stopping on it again; the minimized crasher in `Fuzz/FailCases/`
// keeps it visible (the replay test marks it as a known issue and fails once the bug is fixed, so
// the entry here and there gets removed with the fix).

import Wire

/// Tolerated, already-reported disagreements between the parser and the reference.
enum KnownIssues {
    /// `FailCases/parser-folded-connection-close`: the parser reads Connection options from the raw
    /// value, so in `Connection: keep-alive,\r\n close` the option after an obs-fold is
    /// `"\r\n close"`, not `close`, and the response is reported as keep-alive. RFC 9112 §5.2
    /// requires the fold to be replaced by SP before the value is interpreted.
    static func toleratesFoldedConnection(_ head: CopiedHead, _ expected: CopiedHead) -> Bool {
        var adjusted = head
        adjusted.keepAlive = expected.keepAlive
        return adjusted == expected && head.fields.contains { $0.isFolded && ReferenceSection.lowercased($0.name) == "connection" }
    }

    /// The same bug seen by the round trip (the re-serialized value has no fold, so it reads as
    /// `close`) and by the reverse differential: streams with a folded Connection field skip both.
    static func involvesFoldedConnection(_ events: [Event]) -> Bool {
        events.contains { event in
            switch event {
            case .interim(let head), .head(let head), .upgraded(let head, _):
                return head.fields.contains { $0.isFolded && ReferenceSection.lowercased($0.name) == "connection" }
            default:
                return false
            }
        }
    }

    /// `FailCases/parser-status-line-vs-section-limit`: with `maxHeaderSectionSize` below
    /// `maxStatusLineLength`, a long status line fails as `status-line-too-long` when it arrives
    /// whole (the line's end is checked against the status line limit first) but as
    /// `header-section-too-large` when it arrives in pieces (an incomplete line crosses the smaller
    /// section limit first). Tolerated when the transcripts differ only in that final error.
    static func toleratesLimitOrder(_ split: [Event], _ whole: [Event]) -> Bool {
        guard split.count == whole.count, split.dropLast() == whole.dropLast(),
              case .failed(let a, _)? = split.last, case .failed(let b, _)? = whole.last
        else { return false }
        let pair: Set = [a, b]
        return pair == [.statusLineTooLong, .headerSectionTooLarge]
    }
}
