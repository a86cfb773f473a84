// `ResponseWaiter`, the async API's bridge from a request's completion to the tasks awaiting it,
// as a table without sockets: however many tasks wait before the delivery and however many
// arrive after it, each gets the first delivered response exactly once, and a second delivery
// changes nothing. The one-waiter row is the usual case (no array); the others take the
// overflow path.
import Testing
@testable import Client

@Suite("Async response waiter")
struct AsyncResponseWaiterTests {
    struct Row: CustomTestStringConvertible, Sendable {
        /// Tasks suspended in `wait` before `deliver`.
        let before: Int
        /// Tasks that start waiting after `deliver`.
        let after: Int
        var testDescription: String { "\(before) waiting, \(after) late" }
    }

    static let rows: [Row] = [
        Row(before: 0, after: 1), Row(before: 1, after: 0), Row(before: 1, after: 2),
        Row(before: 2, after: 0), Row(before: 3, after: 1),
    ]

    @Test("every waiter gets the first delivery once", arguments: rows)
    func everyWaiterGetsTheFirstDelivery(row: Row) async throws {
        let waiter = ResponseWaiter<Int>()
        let early = (0..<row.before).map { _ in Task { await waiter.response(cancelling: nil) } }
        // Until every early task is suspended in the waiter (bounded: 10 s).
        for _ in 0..<1_000 where waiter.waitingCount < row.before { try await Task.sleep(for: .milliseconds(10)) }
        #expect(waiter.waitingCount == row.before)
        #expect(!waiter.isDelivered)

        waiter.deliver(1)
        waiter.deliver(2)  // ignored
        #expect(waiter.isDelivered)
        #expect(waiter.waitingCount == 0)

        var answers: [Int] = []
        for task in early { answers.append(await task.value) }
        for _ in 0..<row.after { answers.append(await waiter.response(cancelling: nil)) }
        #expect(answers == Array(repeating: 1, count: row.before + row.after))
        #expect(waiter.delivered == 1)
    }
}
