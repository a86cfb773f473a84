// fetch's proxy options without the network: the argument vector's proxy model, and the
// session's ProxyConfiguration from the model and an environment (curl's precedence).
import FoundationEssentials
import Testing
import Client
@testable import fetch

@Suite("fetch proxy options")
struct FetchProxyOptionsTests {
    /// (arguments, expected model).
    static let parseRows: [([String], FetchProxyOptions)] = [
        (["-x", "p:1"], FetchProxyOptions(proxy: "p:1")),
        (["-px", "socks5h://p"], FetchProxyOptions(proxy: "socks5h://p", tunnel: true)),
        (["--proxy", "a", "--socks5", "b:2"], FetchProxyOptions(proxy: "socks5://b:2")),              // last wins
        (["--socks5-hostname", "b", "-x", "c"], FetchProxyOptions(proxy: "c")),
        (["-U", "u:p", "--noproxy", "a,b", "--proxytunnel"], FetchProxyOptions(proxyUser: "u:p", noProxy: "a,b", tunnel: true)),
    ]

    @Test("proxy options parse", arguments: parseRows.indices)
    func parse(row: Int) throws {
        let (arguments, expected) = Self.parseRows[row]
        guard case .run(let options) = try ArgumentWalker.parse(arguments + ["http://h/"], readConfig: { _ in nil }) else {
            Issue.record("not a run")
            return
        }
        #expect(options.proxy == expected)
    }

    /// (options, environment, unix socket, http proxy, https proxy, exceptions, tunnels, setup error status).
    static let configurationRows: [(FetchProxyOptions, [String: String], Bool, String?, String?, [String], Bool, Int32?)] = [
        (FetchProxyOptions(), [:], false, nil, nil, [], false, nil),
        (FetchProxyOptions(), ["http_proxy": "e:1", "no_proxy": "x"], false, "http://e:1", nil, ["x"], false, nil),
        (FetchProxyOptions(proxy: "p:2"), ["http_proxy": "e:1", "no_proxy": "x"], false, "http://p:2", "http://p:2", ["x"], false, nil),
        (FetchProxyOptions(proxy: "p:2"), ["NO_PROXY": "z"], false, "http://p:2", "http://p:2", ["z"], false, nil),  // no proxy variable
        (FetchProxyOptions(proxy: ""), ["http_proxy": "e:1"], false, nil, nil, [], false, nil),           // -x "" disables
        (FetchProxyOptions(proxy: "p:2", noProxy: ""), ["no_proxy": "x"], false, "http://p:2", "http://p:2", [], false, nil),
        (FetchProxyOptions(noProxy: "y", tunnel: true), ["all_proxy": "socks5://s"], false, "socks5://s:1080", "socks5://s:1080", ["y"], true, nil),
        (FetchProxyOptions(proxy: "p:2"), [:], true, nil, nil, [], false, nil),                            // --unix-socket
        (FetchProxyOptions(proxy: "socks6://p"), [:], false, nil, nil, [], false, 7),
        (FetchProxyOptions(proxy: "socks4a://p"), [:], false, "socks4a://p:1080", "socks4a://p:1080", [], false, nil),
        (FetchProxyOptions(proxy: "http://p:x"), [:], false, nil, nil, [], false, 5),
    ]

    @Test("the session's proxies: -x over the environment, --noproxy over no_proxy", arguments: configurationRows.indices)
    func configuration(row: Int) {
        let (options, environment, unix, http, https, exceptions, tunnels, status) = Self.configurationRows[row]
        do throws(FetchSetupError) {
            let configuration = try options.configuration(environment: environment, bypassed: unix)
            #expect(status == nil)
            #expect(configuration?.httpProxy.map { "\($0.kind.rawValue)://\($0.host):\($0.port)" } == http)
            #expect(configuration?.httpsProxy.map { "\($0.kind.rawValue)://\($0.host):\($0.port)" } == https)
            #expect((configuration?.exceptions ?? []) == exceptions)
            #expect((configuration?.tunnelsHTTP ?? false) == tunnels)
        } catch {
            #expect(error.status == status, "\(error)")
        }
    }

    @Test("-U sets the credentials of whichever proxy is used")
    func proxyUser() throws {
        let configuration = try FetchProxyOptions(proxy: "p", proxyUser: "u:p:w").configuration(environment: [:], bypassed: false)
        #expect(configuration?.httpProxy?.username == "u" && configuration?.httpProxy?.password == "p:w")
        #expect(configuration?.httpsProxy?.username == "u")
    }
}
