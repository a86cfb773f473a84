// Events of Alamofire's `EventMonitor` whose argument types arrive with other features of this
// batch; each lands in `EventMonitor`, `CompositeEventMonitor` and `ClosureEventMonitor` at merge,
// with its default, its forwarding and its closure, like the others:
//
// MERGE: redirect-auth (URLAuthenticationChallenge):
//   urlSession(_:task:didReceive challenge:) — closure `taskDidReceiveChallenge`
// MERGE: resume-cache (CachedURLResponse):
//   urlSession(_:dataTask:willCacheResponse:) — closure `dataTaskWillCacheResponse`
// MERGE: streams (DataStreamRequest):
//   request(_:didValidateRequest:response:withResult:) for DataStreamRequest — closure
//   `requestDidValidateRequestResponseWithResult`; request(_:didParseStream:) (generic, no closure)
// MERGE: progress-metrics: `request(_:didGatherMetrics:)` and `urlSession(_:task:didFinishCollecting:)`
//   are declared; fire them where each attempt's metrics are recorded (`Request.record(summary:failure:)`):
//   `emit { $0.urlSession(session.session, task: task, didFinishCollecting: m) }` then
//   `emit { $0.request(self, didGatherMetrics: m) }`, before `taskEnded(bytesSent:)`.
//   `urlSession(_:task:didSendBodyData:...)` and `urlSession(_:downloadTask:didWriteData:...)`
//   belong with upload and download progress.
// MERGE: redirect-auth: `urlSession(_:task:willPerformHTTPRedirection:newRequest:)` where a redirect is followed.
// MERGE: resume-cache: `urlSession(_:downloadTask:didResumeAtOffset:expectedTotalBytes:)` when a download resumes.
// MERGE: streams: `request(_:didProvideInputStream:)` when an InputStream upload starts.
