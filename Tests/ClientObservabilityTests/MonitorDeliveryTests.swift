// How ClientObservability's monitors are delivered events (issue 20 §2, no tax): inline only
// with their own private queue, Alamofire's hop with a queue the caller passes, only the events
// they implement, and the logging monitor declining at a level that drops the line. No network.
import Dispatch
import Testing
import Logging
import MetricsTestKit
import Tracing
@testable import Client
import ClientObservability

@Suite("Observability monitor delivery")
struct MonitorDeliveryTests {
    @Test("inline with the default private queue, a hop with a queue the caller passes")
    func inlineOnlyWithOwnQueue() {
        let logger = Logger(label: "test")
        let callers = DispatchQueue(label: "caller")
        #expect(LoggingEventMonitor(logger: logger).deliversInline)
        #expect(!LoggingEventMonitor(logger: logger, queue: callers).deliversInline)
        #expect(MetricsEventMonitor(factory: TestMetrics()).deliversInline)
        #expect(!MetricsEventMonitor(factory: TestMetrics(), queue: callers).deliversInline)
        #expect(TracingEventMonitor(tracer: NoOpTracer()).deliversInline)
        #expect(!TracingEventMonitor(tracer: NoOpTracer(), queue: callers).deliversInline)
    }

    @Test("the logging monitor takes requestDidFinish from .debug and the steps only at .trace")
    func loggingDeclinesByLevel() {
        for (level, finish, steps) in [(Logger.Level.info, false, false), (.debug, true, false), (.trace, true, true)] {
            var logger = Logger(label: "test")
            logger.logLevel = level
            let monitor = LoggingEventMonitor(logger: logger)
            #expect(monitor.isHandling(.didFinish) == finish, "\(level)")
            #expect(monitor.isHandling(.didGatherMetrics) == steps, "\(level)")
            #expect(monitor.isHandling(.dataTaskDidReceiveResponse) == steps, "\(level)")
        }
    }

    @Test("a session with the three monitors builds neither body chunks nor events none implements")
    func sessionGate() {
        let metrics = MetricsEventMonitor(factory: TestMetrics())
        let composite = CompositeEventMonitor(monitors: [AlamofireNotifications(), LoggingEventMonitor(logger: Logger(label: "test")),
                                                         metrics, TracingEventMonitor(tracer: NoOpTracer())])
        #expect(!composite.wantsAny(of: .chunks))
        for event: MonitoredEvents in [.didCreateTask, .didValidateData, .didParseDataResponse, .taskDidComplete, .didResume] {
            #expect(!composite.wants(event), "bit \(event.rawValue)")
        }
        for event: MonitoredEvents in [.didFinish, .didGatherMetrics, .isRetrying, .didCreateInitialURLRequest, .didCreateURLRequest] {
            #expect(composite.wants(event), "bit \(event.rawValue)")
        }
    }
}
