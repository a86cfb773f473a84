#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Synchronization

// Monitor events of the features that joined the lifecycle late: follow-ups (redirects and
// challenges), per-hop metrics, upload and download byte counts, resumed downloads, cached
// responses. Each hook is called from one line where its feature happens; the decision is made
// under a lock and the event sent outside it.

extension Request {
    // MARK: Follow-ups

    /// A follow-up is about to be built: reports the redirect (`willPerformHTTPRedirection`
    /// with the request that follows) or the challenge (`didReceive challenge`) that caused it,
    /// for the hop's task. Runs on the request's queue, before the next hop's task exists.
    func reportFollowUp(_ pending: FollowUp) {
        let (response, followUp) = mutable.withLock { ($0.response, $0.followUp) }
        guard let response, let task else { return }
        if response.statusCode == 401 {
            guard let challenge = authenticationChallenge(for: response, followUp: followUp) else { return }
            if isTaskMonitored(.taskDidReceiveChallenge) { emitTaskEvent(.taskDidReceiveChallenge) { [self] in $0.urlSession(context.urlSession, task: task, didReceive: challenge) } }
        } else {
            if isTaskMonitored(.taskWillPerformHTTPRedirection) { emitTaskEvent(.taskWillPerformHTTPRedirection) { [self] in $0.urlSession(context.urlSession, task: task, willPerformHTTPRedirection: response, newRequest: pending.request) } }
        }
    }

    /// The challenge a 401 carries, as monitors see it: its protection space, the credential
    /// that answers it, and how many answers came before.
    private func authenticationChallenge(for response: HTTPURLResponse, followUp: FollowUpState) -> URLAuthenticationChallenge? {
        let values = response.headers.filter { $0.name.lowercased() == "www-authenticate" }.map(\.value)
        guard let url = response.url ?? request?.url, let (_, space, credential) = challengeChoice(values, url: url, followUp: followUp) else {
            return nil
        }
        return URLAuthenticationChallenge(protectionSpace: space, proposedCredential: credential,
                                          previousFailureCount: max(0, followUp.challengesAnswered - 1),
                                          failureResponse: response, error: nil)
    }

    // MARK: Metrics

    /// Records one exchange's transaction. A hop that a follow-up continues (a redirect or an
    /// answered challenge) is kept for the attempt's metrics; the attempt's last exchange
    /// (`failed`, or no follow-up pending) makes the attempt's metrics, one transaction per hop
    /// and `redirectCount` the hops before it, which the task's end reports once
    /// (`urlSession(_:task:didFinishCollecting:)`, then `request(_:didGatherMetrics:)`).
    func recordMetrics(_ record: TransactionRecord, failed: Bool) {
        var record = record
        let isHop = !failed && mutable.withLock { $0.machine.isFollowingUp }
        let earlier = lifecycle.state.withLock { state -> [TransactionRecord] in
            record.decodedBodyBytes = state.decodedBodyBytes
            state.decodedBodyBytes = nil
            let earlier = state.earlierHops
            if isHop { state.earlierHops.append(record) } else { state.earlierHops = [] }
            return earlier
        }
        guard let task else { return }  // an exchange runs in a task: never taken
        let metrics = recorded(TaskMetricsRecord(last: record, earlier: earlier))
        task.recordMetrics(metrics)
        mutable.withLock { $0.metricsTask = task }
        guard !isHop else { return }
        // Reported when the task ends (`taskEnded`), after willCacheResponse.
        lifecycle.state.withLock { state in
            guard case .running(let since, _) = state.taskPhase, state.tasks.last === task else { return }
            state.taskPhase = .running(since: since, metrics: metrics)
        }
    }

    /// The attempt's metrics as the request keeps them: built now when a monitor will be given
    /// them (so it and ``Request/metrics`` see one object), else left as a record, built when read.
    private func recorded(_ record: TaskMetricsRecord) -> TaskMetrics {
        guard isTaskMonitored(.taskDidFinishCollectingMetrics) || isMonitored(.didGatherMetrics) else { return .recorded(record) }
        return .built(URLSessionTaskMetrics(record: record))
    }

    /// Sends the attempt's metrics to the monitors.
    func reportMetrics(_ metrics: TaskMetrics, for task: URLSessionTask) {
        guard isTaskMonitored(.taskDidFinishCollectingMetrics) || isMonitored(.didGatherMetrics) else { return }
        let metrics = metrics.value
        if isTaskMonitored(.taskDidFinishCollectingMetrics) { emitTaskEvent(.taskDidFinishCollectingMetrics) { [self] in $0.urlSession(context.urlSession, task: task, didFinishCollecting: metrics) } }
        guard isMonitored(.didGatherMetrics) else { return }
        emit(.didGatherMetrics) { [self] in $0.request(self, didGatherMetrics: metrics) }
    }

    /// The task ends with no exchange recorded (cancelled while held, queued or connecting):
    /// reports metrics spanning the task's life with no transactions, as URLSession reports
    /// metrics for every task, a cancelled one too.
    func reportMetricsWithoutTransactions(for task: URLSessionTask, since start: Date) {
        let metrics = TaskMetrics.built(URLSessionTaskMetrics(taskInterval: DateInterval(start: start, end: max(start, Date()))))
        task.recordMetrics(metrics, replacing: false)
        mutable.withLock { $0.metricsTask = $0.metricsTask ?? task }
        reportMetrics(metrics, for: task)
    }

    /// A redirect handler declined a redirect after its exchange ended: that exchange, recorded
    /// as a hop, is the attempt's last, so its metrics are reported now. (A decline before the
    /// end leaves nothing here: the end then sees no follow-up pending and reports.)
    func redirectDeclined() {
        let hops = lifecycle.state.withLock { state in
            defer { state.earlierHops = [] }
            return state.earlierHops
        }
        guard let last = hops.last, let task else { return }
        let metrics = recorded(TaskMetricsRecord(last: last, earlier: Array(hops.dropLast())))
        task.recordMetrics(metrics)
        mutable.withLock { $0.metricsTask = task }
        reportMetrics(metrics, for: task)
    }

    /// The content decoder produced `count` bytes for the current exchange's body.
    func recordDecodedBodyBytes(_ count: Int) {
        lifecycle.state.withLock { $0.decodedBodyBytes = Int64(count) }
    }

    // MARK: Bytes

    /// `bytesSent` more request body bytes are out, `totalBytesSent` in all of
    /// `totalBytesExpectedToSend` (`-1`: unknown).
    func reportBodySent(_ bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        guard bytesSent > 0, lifecycle.reportsChunks.load(ordering: .relaxed), let task else { return }
        if isTaskMonitored(.taskDidSendBodyData) { emitTaskEvent(.taskDidSendBodyData) { [self] in
            $0.urlSession(context.urlSession, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
                          totalBytesExpectedToSend: totalBytesExpectedToSend)
        } }
    }
}

extension DownloadRequest {
    /// `bytesWritten` more bytes reached the file: reports them with the file's bytes so far
    /// and the response's expected length (`-1`: unknown).
    func reportDataWritten(_ bytesWritten: Int64) {
        guard bytesWritten > 0, lifecycle.reportsChunks.load(ordering: .relaxed), let task = task as? URLSessionDownloadTask else { return }
        let totalBytesWritten = Int64(sink.bytesWritten)
        let totalBytesExpectedToWrite = task.countOfBytesExpectedToReceive
        if isTaskMonitored(.downloadTaskDidWriteData) { emitTaskEvent(.downloadTaskDidWriteData) { [self] in
            $0.urlSession(context.urlSession, downloadTask: task, didWriteData: bytesWritten, totalBytesWritten: totalBytesWritten,
                          totalBytesExpectedToWrite: totalBytesExpectedToWrite)
        } }
    }

    /// The server agreed to resume at `offset` (a 206 for the resume `Range`); `expectedTotal`
    /// is the whole file's size from `Content-Range`, `-1` when the server did not give it.
    func reportResumed(atOffset offset: Int64, expectedTotal: Int64) {
        guard let task = task as? URLSessionDownloadTask else { return }
        if isTaskMonitored(.downloadTaskDidResume) { emitTaskEvent(.downloadTaskDidResume) { [self] in $0.urlSession(context.urlSession, downloadTask: task, didResumeAtOffset: offset, expectedTotalBytes: expectedTotal) } }
    }
}
