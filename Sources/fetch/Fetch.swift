// fetch: a curl-compatible command-line client built on Lariat's Alamofire API, like any user's
// program. Options are spelled as curl spells them so scripts and healthchecks can switch; the
// parser is OptionTable + ArgumentWalker + ConfigFile, requests come from RequestBuilder and
// RequestBody, bytes go out through Output.
//
// Exit status: curl's. 0 success, 1 unsupported protocol, 2 usage (and options that need Client
// features not there yet), 3 malformed URL, 6 unknown host, 7 connection refused, 8 malformed
// response, 22 HTTP error with -f, 23 write error, 26 read error, 28 timeout, 35 TLS handshake,
// 56 connection lost, 58 client certificate, 59 cipher list, 60 untrusted certificate, 63
// --max-filesize exceeded, 77 CA file, 82 CRL file, 90 pinned key mismatch, 91 --cert-status,
// 49 bad --resolve.

import Client
import FoundationEssentials
#if FullFoundation
import Foundation  // URLError is Foundation's own in the default build; Client's without the trait
#endif
#if canImport(Glibc)
import Glibc
#endif

/// fetch's version, printed by `-V` and sent in the User-Agent.
enum FetchVersion {
    /// The version number.
    static let number = "0.2.0"
    /// `-V`'s text, shaped like curl's.
    static let text = """
        fetch \(number) (Lariat, HTTP/1.1 on epoll, OpenSSL)
        Protocols: http https
        Features: IPv6 SSL
        """
}

@main
struct Fetch {
    static func main() async {
        // A reader that goes away (`fetch URL | head -c 10`) is a write error, exit 23 with
        // curl's message, not death by SIGPIPE (141).
        signal(SIGPIPE, SIG_IGN)
        let invocation: Invocation
        do {
            invocation = try ArgumentWalker.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            error.lines.forEach(printError)
            exit(error.status)
        }
        let options: FetchOptions
        switch invocation {
        case .help: print(Usage.text); exit(0)
        case .version: print(FetchVersion.text); exit(0)
        case .run(let parsed): options = parsed
        }
        if let first = options.unsupported.first {
            fail("fetch: option \(first)", status: 2)
        }
        var planned: [PlannedRequest?] = []
        var status: Int32 = 0
        let builder = RequestBuilder()
        var errors: [Int: TransferError] = [:]
        for (index, url) in options.urls.enumerated() {
            do throws(TransferError) {
                planned.append(try builder.request(url, options: options))
            } catch {
                planned.append(nil)
                errors[index] = error
            }
        }
        let session: Session
        do throws(FetchSetupError) {
            session = try makeSession(options, requests: planned.compactMap { $0 })
        } catch {
            planned.forEach { $0?.removeBodyFile() }
            fail("fetch: \(error)", status: error.status)
        }
        for (index, request) in planned.enumerated() {
            let result: Int32
            if let request {
                let output = index < options.outputs.count ? options.outputs[index] : nil
                let transfer = Transfer(options: options, request: request, output: output)
                result = await transfer.run(session)
                request.removeBodyFile()
                if let format = options.writeOut { writeOut(format, transfer.writeOutValues(status: result)) }
            } else {
                let error = errors[index]!
                if options.showsErrors { printError("fetch: (\(error.status)) \(error.message)") }
                result = error.status
                if let format = options.writeOut {
                    writeOut(format, WriteOut.Values(exitCode: error.status, errorMessage: error.message, url: options.urls[index]))
                }
            }
            // As curl: every URL is tried; the run's status is the last transfer's.
            status = result
        }
        options.cookies.save(from: session.configuration, showsWarnings: !options.silent)
        exit(status)
    }

    /// `-w`: the rendered format on standard output; unknown variables warned about (as curl).
    static func writeOut(_ format: String, _ values: WriteOut.Values) {
        let rendered = WriteOut.renderPieces(format, values)
        for name in rendered.unknown { printError("fetch: unknown --write-out variable: '\(name)'") }
        for (stream, text) in rendered.pieces { _ = writeAll(stream == .stdout ? 1 : 2, Data(text.utf8)) }
    }

    /// One session for every URL of the run.
    static func makeSession(_ options: FetchOptions, requests: [PlannedRequest]) throws(FetchSetupError) -> Session {
        // No Alamofire default headers: fetch sends curl's (User-Agent, Accept) itself.
        let configuration = URLSessionConfiguration.default
        configuration.headers = HTTPHeaders()
        // curl decodes only with --compressed; without it the coded bytes are the output.
        configuration.contentDecoding = options.compressed ? .automatic : .disabled
        if let maxTime = options.maxTime {
            // curl's --max-time bounds the whole transfer, connecting included: the total
            // (resource) deadline. curl has no idle timeout; a silence cannot outlast the total,
            // so the idle limit is raised to match rather than left at 60 s.
            configuration.timeoutIntervalForResource = maxTime
            configuration.timeoutIntervalForRequest = maxTime
        }
        if let connectTimeout = options.connectTimeout { configuration.timeoutIntervalForConnect = connectTimeout }
        configuration.proxy = try options.proxy.configuration(
            environment: ProcessInfo.processInfo.environment, bypassed: options.unixSocket != nil)
        options.cookies.configure(configuration)
        // curl's --max-redirs (50 by default, -1 for none); one more is exit 47.
        configuration.httpMaximumRedirects = options.maxRedirects < 0 ? Int.max : options.maxRedirects
        // fetch answers challenges only with -u/URL credentials, never from a shared store.
        configuration.urlCredentialStorage = nil
        if options.insecure && options.showsErrors { printError("fetch: warning: -k/--insecure: the server's certificate is NOT verified") }
        let trustManager: ServerTrustManager?
        do {
            trustManager = try options.serverTrustManager()
        } catch {
            throw FetchSetupError(status: 2, description: "--pinnedpubkey: \(error)")
        }
        // curl reads certificate files only for TLS transfers; so does fetch.
        let usesTLS = requests.contains { $0.url.lowercased().hasPrefix("https:") }
        let tlsConfiguration = usesTLS ? try options.tlsConfiguration() : TLSConfiguration()
        var resolver = try options.hostResolver()
        try AddressFamilyFilter(options.ipVersion).restrict(&resolver, for: requests.map(\.url))
        // One transfer at a time needs one loop: a second loop thread is only start-up time.
        return Session(
            configuration: configuration, serverTrustManager: trustManager, tlsConfiguration: tlsConfiguration,
            eventLoopGroup: EventLoopGroup(numberOfThreads: 1), resolver: resolver)
    }
}

/// `-h`'s text.
enum Usage {
    /// The options fetch knows, grouped.
    static let text = """
        Usage: fetch [options...] <url>...
         -X, --request METHOD     -H, --header 'Name: value' | 'Name:' | 'Name;' | @file
         -d, --data[-ascii|-raw|-binary|-urlencode] DATA   --json DATA   -F, --form name=value|@file|<file
         -G, --get  -I, --head  -A, --user-agent UA  -e, --referer URL  --compressed
         -o, --output FILE  -O, --remote-name  -J, --remote-header-name  --create-dirs  -N, --no-buffer
         -i, --include  -D, --dump-header FILE  -T, --upload-file FILE|-
         -f, --fail  --fail-with-body  -s, --silent  -S, --show-error  -v, --verbose
         -m, --max-time S  --connect-timeout S  --limit-rate RATE  --max-filesize SIZE
         -4, --ipv4  -6, --ipv6  --http1.1  --resolve HOST:PORT:ADDR[,ADDR]  -K, --config FILE
         --unix-socket PATH  --abstract-unix-socket NAME
         -x, --proxy [SCHEME://][USER:PASS@]HOST[:PORT]  -U, --proxy-user USER:PASS  --noproxy LIST
         -p, --proxytunnel  --socks5 HOST[:PORT]  --socks5-hostname HOST[:PORT]
         -C, --continue-at OFFSET|-  -r, --range RANGE
         -b, --cookie 'n=v; n2=v2'|FILE  -c, --cookie-jar FILE  -j, --junk-session-cookies
         --retry N  --retry-delay S  --retry-max-time S  --retry-connrefused  --retry-all-errors
         -L, --location  --location-trusted  --max-redirs N  -u, --user USER[:PASS]  --basic  --digest  --anyauth
         TLS: --cacert FILE --capath DIR -k --pinnedpubkey sha256//B64[;...]|FILE -E, --cert FILE[:PASS]
              --cert-type PEM|DER|P12 --key FILE --pass PHRASE --crlfile FILE --cert-status
              --ciphers LIST --tls13-ciphers LIST --tlsv1.2 | --tlsv1.3 --tls-max 1.2|1.3
         -V, --version  -h, --help
        """
}

/// Writes to standard error.
func printError(_ message: String) {
    _ = writeAll(2, Data((message + "\n").utf8))
}

/// Prints `message` to standard error and exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
    printError(message)
    exit(status)
}
