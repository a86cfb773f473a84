// Monitors that implement only some events (`SelectiveEventMonitor`, package access: how
// ClientObservability's monitors avoid a tax per request, issue 20): the events they do not
// implement are not built (the request's `isMonitored` gate stays shut, body chunks are not
// copied), a plain monitor beside them still hears everything, and an inline monitor gets its
// events on its queue, in Alamofire's order, on the producing thread.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Dispatch
import Synchronization
import Testing
import LariatTestSupport
@testable import Client

/// Records the events of a GET it is delivered, and whether each ran on its queue.
private final class SelectiveRecorder: SelectiveEventMonitor {
    let queue: DispatchQueue
    let handledEvents: MonitoredEvents
    let deliversInline: Bool
    private let key = DispatchSpecificKey<Int>()
    private let log = Mutex<[String]>([])
    private let offQueue = Atomic<Int>(0)

    init(handling handledEvents: MonitoredEvents, inline: Bool) {
        queue = DispatchQueue(label: "org.lariat.test.selectiveRecorder")
        queue.setSpecific(key: key, value: 1)
        self.handledEvents = handledEvents
        deliversInline = inline
    }

    /// The events so far, runs of chunk events collapsed.
    var events: [String] {
        queue.sync {}
        return log.withLock { entries in
            entries.enumerated().filter { index, name in
                !(index > 0 && name == entries[index - 1] && name == "dataTaskDidReceiveData")
            }.map(\.element)
        }
    }
    var eventsOffQueue: Int { queue.sync {}; return offQueue.load(ordering: .relaxed) }

    private func record(_ name: String) {
        if DispatchQueue.getSpecific(key: key) != 1 { offQueue.add(1, ordering: .relaxed) }
        log.withLock { $0.append(name) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) { record("taskDidComplete") }
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) { record("dataTaskDidReceiveResponse") }
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) { record("dataTaskDidReceiveData") }
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) { record("didFinishCollecting") }
    func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) { record("didCreateInitialURLRequest") }
    func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) { record("didCreateURLRequest") }
    func request(_ request: Request, didCreateTask task: URLSessionTask) { record("didCreateTask") }
    func request(_ request: Request, didGatherMetrics metrics: URLSessionTaskMetrics) { record("didGatherMetrics") }
    func request(_ request: Request, didCompleteTask task: URLSessionTask, with error: AFError?) { record("didCompleteTask") }
    func requestDidFinish(_ request: Request) { record("requestDidFinish") }
    func requestDidResume(_ request: Request) { record("requestDidResume") }
    func request(_ request: Request, didResumeTask task: URLSessionTask) { record("didResumeTask") }
    func request(_ request: DataRequest, didValidateRequest urlRequest: URLRequest?, response: HTTPURLResponse, data: Data?,
                 withResult result: Request.ValidationResult) { record("didValidate") }
    func request<Value: Sendable>(_ request: DataRequest, didParseResponse response: DataResponse<Value, AFError>) { record("didParseResponse") }
}

/// Every single event but those in `events`.
private func everyEvent(except events: MonitoredEvents) -> [MonitoredEvents] {
    (0..<64).map { MonitoredEvents(rawValue: 1 << $0) }.filter { MonitoredEvents.all.contains($0) && !events.contains($0) }
}

extension ClientIntegrationTests {
    @Suite("Selective event monitors")
    struct SelectiveEventMonitorTests {
        @Test("a monitor that implements only requestDidFinish gets no other event built or delivered")
        func finishOnly() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse(String(repeating: "x", count: 4096))])
            defer { server.stop() }
            let monitor = SelectiveRecorder(handling: .didFinish, inline: false)
            let session = Session(eventMonitors: [AlamofireNotifications(), monitor])
            let request = session.request("http://127.0.0.1:\(server.port)/").validate()
            let response = await request.serializingString().response
            #expect(response.value?.utf8.count == 4096)
            #expect(await eventually { monitor.events == ["requestDidFinish"] })
            #expect(monitor.events == ["requestDidFinish"])
            // The gate every event passes before it is built: shut for all the others, so no
            // closure is made and no body chunk copied for this monitor.
            for event in everyEvent(except: .didFinish) {
                #expect(!request.isMonitored(event), "event bit \(event.rawValue) would be built")
            }
            #expect(request.isMonitored(.didFinish))
            let copiesChunks = request.lifecycle.reportsChunks.load(ordering: .relaxed)
            #expect(!copiesChunks)
        }

        @Test("a plain monitor beside a selective one still hears every event, in order")
        func plainBesideSelective() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("hello")])
            defer { server.stop() }
            let selective = SelectiveRecorder(handling: .didFinish, inline: true)
            let plain = RecordingMonitor()
            let session = Session(eventMonitors: [selective, plain])
            let response = await session.request("http://127.0.0.1:\(server.port)/").validate().serializingString().response
            #expect(response.value == "hello")
            #expect(plain.events == ["requestDidResume", "didCreateInitialURLRequest", "didCreateURLRequest", "didCreateTask",
                                     "didResumeTask", "dataTaskDidReceiveResponse", "dataTaskDidReceiveData", "taskDidComplete",
                                     "didValidate", "didCompleteTask", "requestDidFinish", "didParseResponse"])
            #expect(selective.events == ["requestDidFinish"])
        }

        @Test("an inline monitor gets its events on its queue, in Alamofire's order, before the response handler runs")
        func inlineOrder() async throws {
            let server = try ScriptedServer(script: [.expectRequest, cannedResponse("hello")])
            defer { server.stop() }
            let monitor = SelectiveRecorder(handling: .all, inline: true)
            let session = Session(eventMonitors: [monitor])
            let response = await session.request("http://127.0.0.1:\(server.port)/").validate().serializingString().response
            #expect(response.value == "hello")
            #expect(monitor.events == ["requestDidResume", "didCreateInitialURLRequest", "didCreateURLRequest", "didCreateTask",
                                       "didResumeTask", "dataTaskDidReceiveResponse", "dataTaskDidReceiveData",
                                       "didFinishCollecting", "didGatherMetrics", "taskDidComplete",
                                       "didValidate", "didCompleteTask", "requestDidFinish", "didParseResponse"])
            #expect(monitor.eventsOffQueue == 0)
        }
    }
}

/// Waits (up to 5 s) until `condition` holds; whether it did.
private func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<1000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
