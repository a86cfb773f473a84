// HTTP caching in the request path against ScriptedServer: a fresh hit never touches the
// network, a stale one goes out conditional and a 304 answers with the stored body, the cache
// policies, CachedResponseHandler, and the default configuration's cache. httpbin's /cache,
// /cache/n and /etag when LARIAT_HTTPBIN is set.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Synchronization
import Testing
import LariatTestSupport
@testable import Client

/// A session with a cache and cookies of its own (tests must not share URLCache.shared).
private func cachingSession(_ cache: URLCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0),
                            handler: (any CachedResponseHandler)? = nil) -> Session {
    let configuration = URLSessionConfiguration.af.default
    configuration.urlCache = cache
    // Its own cookie storage: cookies other suites leave for 127.0.0.1 in the shared one would
    // make every request credentialed, and such responses are not stored without `public`.
    configuration.httpCookieStorage = HTTPCookieStorage()
    return Session(configuration: configuration, cachedResponseHandler: handler)
}

private func ok(_ body: String, _ extra: String) -> ScriptedServer.Step {
    .send("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\(extra)\r\n\(body)")
}

private let httpbinForCache: String? = ProcessInfo.processInfo.environment["LARIAT_HTTPBIN"].flatMap { $0.isEmpty ? nil : $0 }

extension ClientIntegrationTests {
    @Suite("HTTP caching")
    struct CacheRequestTests {
        @Test("a fresh hit is served without touching the network")
        func freshHit() async throws {
            let server = try ScriptedServer(script: [.expectRequest, ok("cached body", "Cache-Control: max-age=600\r\n")])
            defer { server.stop() }
            let session = cachingSession()
            let first = await session.request(loopbackURL(server, "/fresh")).serializingString().response
            #expect(first.value == "cached body")
            let second = await session.request(loopbackURL(server, "/fresh")).serializingString().response
            #expect(second.value == "cached body", "\(second.result)")
            #expect(second.response?.statusCode == 200)
            #expect(server.connectionCount == 1)
            #expect(server.requests(onConnection: 0).count == 1, "the second request reached the server")
        }

        @Test("a stale entry is revalidated with If-None-Match and If-Modified-Since; the 304 answers with the stored body")
        func revalidation() async throws {
            let lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"
            let server = try ScriptedServer(script: [
                .expectRequest, ok("version one", "Cache-Control: max-age=0\r\nETag: \"v1\"\r\nLast-Modified: \(lastModified)\r\nX-Step: first\r\n"),
                .expectRequest, .send("HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\nX-Step: refreshed\r\nCache-Control: max-age=600\r\n\r\n"),
            ])
            defer { server.stop() }
            let session = cachingSession()
            _ = await session.request(loopbackURL(server, "/etag")).serializingString().response
            let second = await session.request(loopbackURL(server, "/etag")).serializingString().response
            #expect(second.value == "version one", "\(second.result)")
            #expect(second.response?.statusCode == 200)
            #expect(second.response?.headers.value(for: "X-Step") == "refreshed", "the 304's fields replace the stored ones")
            let sent = String(decoding: server.requests(onConnection: 0).last ?? [], as: UTF8.self)
            #expect(sent.contains("If-None-Match: \"v1\"\r\n"), "\(sent)")
            #expect(sent.contains("If-Modified-Since: \(lastModified)\r\n"), "\(sent)")
            // Refreshed with max-age=600: a third request is a fresh hit.
            let third = await session.request(loopbackURL(server, "/etag")).serializingString().response
            #expect(third.value == "version one")
            #expect(server.requests(onConnection: 0).count == 2)
        }

        @Test("returnCacheDataDontLoad with nothing stored: resourceUnavailable, no connection")
        func dontLoadMiss() async throws {
            let server = try ScriptedServer(script: [.expectRequest, ok("x", "")])
            defer { server.stop() }
            var request = try URLRequest(url: loopbackURL(server, "/none"), method: .get)
            request.cachePolicy = .returnCacheDataDontLoad
            let response = await retained(cachingSession()).request(request).serializingData().response
            #expect(sessionTaskURLError(response.result)?.code == .resourceUnavailable, "\(response.result)")
            #expect(server.connectionCount == 0)
        }

        @Test("returnCacheDataElseLoad serves a stale entry; reloadIgnoringLocalCacheData goes to the network")
        func policies() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, ok("old", "Cache-Control: max-age=0\r\nETag: \"a\"\r\n"),
                .expectRequest, ok("new", "Cache-Control: max-age=0\r\nETag: \"b\"\r\n"),
            ])
            defer { server.stop() }
            let session = cachingSession()
            _ = await session.request(loopbackURL(server, "/p")).serializingString().response
            var elseLoad = try URLRequest(url: loopbackURL(server, "/p"), method: .get)
            elseLoad.cachePolicy = .returnCacheDataElseLoad
            #expect(await session.request(elseLoad).serializingString().response.value == "old")
            var reload = try URLRequest(url: loopbackURL(server, "/p"), method: .get)
            reload.cachePolicy = .reloadIgnoringLocalCacheData
            #expect(await session.request(reload).serializingString().response.value == "new")
            let sent = String(decoding: server.requests(onConnection: 0).last ?? [], as: UTF8.self)
            #expect(!sent.contains("If-None-Match"), "a reload is not conditional")
        }

        @Test("ResponseCacher.doNotCache on the request, .modify on the session")
        func handlers() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, ok("one", "Cache-Control: max-age=600\r\n"),
                .expectRequest, ok("two", "Cache-Control: max-age=600\r\n"),
            ])
            defer { server.stop() }
            let modified = ResponseCacher.modify { _, response in
                CachedURLResponse(response: response.response, data: Data("changed".utf8))
            }
            let session = cachingSession(handler: modified)
            _ = await session.request(loopbackURL(server, "/h")).cacheResponse(using: .doNotCache).serializingString().response
            #expect(await session.request(loopbackURL(server, "/h")).serializingString().response.value == "two")
            #expect(await session.request(loopbackURL(server, "/h")).serializingString().response.value == "changed")
        }

        @Test("a CachedResponseHandler is offered, and can store, a response without freshness or validators (as URLSession stores every storable one)")
        func handlerSeesPlainResponses() async throws {
            let server = try ScriptedServer(script: [.expectRequest, ok("plain", "")])
            defer { server.stop() }
            let offered = Atomic<Bool>(false)
            let recorder = ResponseCacher.modify { _, response in offered.store(true, ordering: .relaxed); return response }
            let cache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0)
            let session = cachingSession(cache, handler: recorder)
            let request = session.request(loopbackURL(server, "/plain"))
            #expect(await request.serializingString().response.value == "plain")
            let wasOffered = offered.load(ordering: .relaxed)
            #expect(wasOffered)
            let stored = try #require(request.request)
            #expect(cache.cachedResponse(for: stored).map { String(decoding: $0.data, as: UTF8.self) } == "plain")
        }

        @Test("without a handler, a response with no freshness and no validator is still not kept")
        func plainResponsesNotKeptWithoutHandler() async throws {
            let server = try ScriptedServer(script: [.expectRequest, ok("plain", "")])
            defer { server.stop() }
            let cache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0)
            let session = cachingSession(cache)
            let request = session.request(loopbackURL(server, "/plain"))
            #expect(await request.serializingString().response.value == "plain")
            #expect(cache.cachedResponse(for: try #require(request.request)) == nil)
        }

        @Test("a response whose Cache-Control says public, private or no-cache (no max-age, no validator) is kept, as URLSession keeps it",
              arguments: ["public", "private", "no-cache"])
        func explicitDirectivesAreKept(directive: String) async throws {
            let server = try ScriptedServer(script: [.expectRequest, ok("kept", "Cache-Control: \(directive)\r\n")])
            defer { server.stop() }
            let session = cachingSession()
            _ = await session.request(loopbackURL(server, "/d")).serializingString().response
            var elseLoad = try URLRequest(url: loopbackURL(server, "/d"), method: .get)
            elseLoad.cachePolicy = .returnCacheDataDontLoad
            #expect(await session.request(elseLoad).serializingString().response.value == "kept")
        }

        @Test("no-store is never stored")
        func noStore() async throws {
            let server = try ScriptedServer(script: [
                .expectRequest, ok("secret", "Cache-Control: no-store, max-age=600\r\n"),
                .expectRequest, ok("again", "Cache-Control: no-store\r\n"),
            ])
            defer { server.stop() }
            let session = cachingSession()
            _ = await session.request(loopbackURL(server, "/s")).serializingString().response
            #expect(await session.request(loopbackURL(server, "/s")).serializingString().response.value == "again")
        }

        @Test("each default configuration has a memory cache of its own, not URLCache.shared (issue 25); shared only when passed")
        func defaults() {
            let first = URLSessionConfiguration.default.urlCache, second = URLSessionConfiguration.default.urlCache
            #expect(first != nil && first !== URLCache.shared && first !== second)
            #expect(first?.diskCapacity == 0 && first?.memoryCapacity == 512 * 1024)
            #expect(URLSessionConfiguration.af.default.urlCache !== URLCache.shared)
            #expect(URLCache.shared.diskCapacity == 0 && URLCache.shared.memoryCapacity == 512 * 1024)
            let ephemeral = URLSessionConfiguration.ephemeral.urlCache
            #expect(ephemeral != nil && ephemeral !== URLCache.shared && ephemeral?.diskCapacity == 0)
            let explicit = URLSessionConfiguration.default
            explicit.urlCache = URLCache.shared
            #expect(Session(configuration: explicit).urlCache === URLCache.shared)
            #expect(Session().urlCache !== Session().urlCache)
        }

        @Test("httpbin /cache, /cache/n and /etag", .enabled(if: httpbinForCache != nil, "needs LARIAT_HTTPBIN"))
        func httpbin() async throws {
            let base = try #require(httpbinForCache)
            let session = cachingSession()
            // /cache/60: Cache-Control: public, max-age=60 → the second is a hit (same body, same date).
            let first = await session.request("\(base)/cache/60").serializingData().response
            let second = await session.request("\(base)/cache/60").serializingData().response
            #expect(first.data != nil && first.data == second.data)
            // /etag/{etag}: revalidated with If-None-Match, 304 answered from the store.
            let etagFirst = await session.request("\(base)/etag/abc").serializingData().response
            #expect(etagFirst.response?.headers.value(for: "ETag") != nil)
            var revalidate = try URLRequest(url: "\(base)/etag/abc", method: .get)
            revalidate.cachePolicy = .reloadRevalidatingCacheData
            let etagSecond = await session.request(revalidate).serializingData().response
            #expect(etagSecond.response?.statusCode == 200)
            #expect(etagSecond.data == etagFirst.data)
            // /cache: Last-Modified and ETag; revalidated the same way.
            let cacheFirst = await session.request("\(base)/cache").serializingData().response
            var again = try URLRequest(url: "\(base)/cache", method: .get)
            again.cachePolicy = .reloadRevalidatingCacheData
            let cacheSecond = await session.request(again).serializingData().response
            #expect(cacheSecond.response?.statusCode == 200 && cacheSecond.data == cacheFirst.data)
        }
    }
}
