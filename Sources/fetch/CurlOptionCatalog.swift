// curl 7.88.1's option list as its `--help` prints it: the left column (short letter, long name,
// argument), the one-line description and the help categories, in curl's order. Generated from
// curl-7_88_1 src/tool_listhelp.c (itself generated from docs/cmdline-opts/*.d) so that
// `fetch --help all` has curl's layout and scripts probing it (`--help all | grep -q -- --X`)
// find the options fetch implements. Data only: which options fetch runs, ignores or refuses is
// decided in OptionTable and CurlOptionFate.

import Client
import Transport

/// The categories of curl's `--help CATEGORY` (curl's `CURLHELP_*` bits).
struct HelpCategories: OptionSet, Sendable {
    let rawValue: UInt32
    static let hidden = HelpCategories(rawValue: 1 << 0)
    static let auth = HelpCategories(rawValue: 1 << 1)
    static let connection = HelpCategories(rawValue: 1 << 2)
    static let curl = HelpCategories(rawValue: 1 << 3)
    static let dns = HelpCategories(rawValue: 1 << 4)
    static let file = HelpCategories(rawValue: 1 << 5)
    static let ftp = HelpCategories(rawValue: 1 << 6)
    static let http = HelpCategories(rawValue: 1 << 7)
    static let imap = HelpCategories(rawValue: 1 << 8)
    static let important = HelpCategories(rawValue: 1 << 9)
    static let misc = HelpCategories(rawValue: 1 << 10)
    static let output = HelpCategories(rawValue: 1 << 11)
    static let pop3 = HelpCategories(rawValue: 1 << 12)
    static let post = HelpCategories(rawValue: 1 << 13)
    static let proxy = HelpCategories(rawValue: 1 << 14)
    static let scp = HelpCategories(rawValue: 1 << 15)
    static let sftp = HelpCategories(rawValue: 1 << 16)
    static let smtp = HelpCategories(rawValue: 1 << 17)
    static let ssh = HelpCategories(rawValue: 1 << 18)
    static let telnet = HelpCategories(rawValue: 1 << 19)
    static let tftp = HelpCategories(rawValue: 1 << 20)
    static let tls = HelpCategories(rawValue: 1 << 21)
    static let upload = HelpCategories(rawValue: 1 << 22)
    static let verbose = HelpCategories(rawValue: 1 << 23)

    /// `--help category`'s list, in curl's order ("important" is the default page, not listed).
    static let named: [(name: String, summary: String, category: HelpCategories)] = [
        ("auth", "Different types of authentication methods", .auth),
        ("connection", "Low level networking operations", .connection),
        ("curl", "The command line tool itself", .curl),
        ("dns", "General DNS options", .dns),
        ("file", "FILE protocol options", .file),
        ("ftp", "FTP protocol options", .ftp),
        ("http", "HTTP and HTTPS protocol options", .http),
        ("imap", "IMAP protocol options", .imap),
        ("misc", "Options that don't fit into any other category", .misc),
        ("output", "Filesystem output", .output),
        ("pop3", "POP3 protocol options", .pop3),
        ("post", "HTTP Post specific options", .post),
        ("proxy", "All options related to proxies", .proxy),
        ("scp", "SCP protocol options", .scp),
        ("sftp", "SFTP protocol options", .sftp),
        ("smtp", "SMTP protocol options", .smtp),
        ("ssh", "SSH protocol options", .ssh),
        ("telnet", "TELNET protocol options", .telnet),
        ("tftp", "TFTP protocol options", .tftp),
        ("tls", "All TLS/SSL related options", .tls),
        ("upload", "All options for uploads", .upload),
        ("verbose", "Options related to any kind of command line output of curl", .verbose),
    ]
}

/// One line of curl's help.
struct CurlHelpEntry: Sendable {
    /// The left column as curl prints it (`-X, --request <method>`, `    --basic`).
    let column: String
    /// The description.
    let summary: String
    /// The categories it is listed under.
    let categories: HelpCategories

    /// The long name without `--`.
    var long: String {
        // A scan, not `split(separator: "--")`: a String separator links the regex engine.
        let afterDashes = column.firstOccurrence(of: "--").map { column[$0.upperBound...] } ?? column[...]
        return String(afterDashes.prefix { $0 != " " })
    }

    /// The short letter, if any.
    var short: Character? { column.hasPrefix("-") ? column.dropFirst().first : nil }

    /// Whether the option takes a value (`<...>` follows its name).
    var takesValue: Bool { column.contains("<") }
}

/// curl 7.88.1's 250 documented options.
enum CurlOptionCatalog {
    /// Every documented option, in curl's order.
    static let entries: [CurlHelpEntry] = rows.map { CurlHelpEntry(column: $0.0, summary: $0.1, categories: $0.2) }

    /// curl's long names, for lookups.
    static let byLong: [String: CurlHelpEntry] = Dictionary(entries.map { ($0.long, $0) }, uniquingKeysWith: { first, _ in first })
    /// curl's short letters.
    static let byShort: [Character: CurlHelpEntry] = Dictionary(
        entries.compactMap { entry in entry.short.map { ($0, entry) } }, uniquingKeysWith: { first, _ in first })

    private static let rows: [(String, String, HelpCategories)] = [
        ("    --abstract-unix-socket <path>", "Connect via abstract Unix domain socket", [.connection]),
        ("    --alt-svc <file name>", "Enable alt-svc with this cache file", [.http]),
        ("    --anyauth", "Pick any authentication method", [.http, .proxy, .auth]),
        ("-a, --append", "Append to target file when uploading", [.ftp, .sftp]),
        ("    --aws-sigv4 <provider1[:provider2[:region[:service]]]>", "Use AWS V4 signature authentication", [.auth, .http]),
        ("    --basic", "Use HTTP Basic Authentication", [.auth]),
        ("    --cacert <file>", "CA certificate to verify peer against", [.tls]),
        ("    --capath <dir>", "CA directory to verify peer against", [.tls]),
        ("-E, --cert <certificate[:password]>", "Client certificate file and password", [.tls]),
        ("    --cert-status", "Verify the status of the server cert via OCSP-staple", [.tls]),
        ("    --cert-type <type>", "Certificate type (DER/PEM/ENG/P12)", [.tls]),
        ("    --ciphers <list of ciphers>", "SSL ciphers to use", [.tls]),
        ("    --compressed", "Request compressed response", [.http]),
        ("    --compressed-ssh", "Enable SSH compression", [.scp, .ssh]),
        ("-K, --config <file>", "Read config from a file", [.curl]),
        ("    --connect-timeout <fractional seconds>", "Maximum time allowed for connection", [.connection]),
        ("    --connect-to <HOST1:PORT1:HOST2:PORT2>", "Connect to host", [.connection]),
        ("-C, --continue-at <offset>", "Resumed transfer offset", [.connection]),
        ("-b, --cookie <data|filename>", "Send cookies from string/file", [.http]),
        ("-c, --cookie-jar <filename>", "Write cookies to <filename> after operation", [.http]),
        ("    --create-dirs", "Create necessary local directory hierarchy", [.curl]),
        ("    --create-file-mode <mode>", "File mode for created files", [.sftp, .scp, .file, .upload]),
        ("    --crlf", "Convert LF to CRLF in upload", [.ftp, .smtp]),
        ("    --crlfile <file>", "Use this CRL list", [.tls]),
        ("    --curves <algorithm list>", "(EC) TLS key exchange algorithm(s) to request", [.tls]),
        ("-d, --data <data>", "HTTP POST data", [.important, .http, .post, .upload]),
        ("    --data-ascii <data>", "HTTP POST ASCII data", [.http, .post, .upload]),
        ("    --data-binary <data>", "HTTP POST binary data", [.http, .post, .upload]),
        ("    --data-raw <data>", "HTTP POST data, '@' allowed", [.http, .post, .upload]),
        ("    --data-urlencode <data>", "HTTP POST data URL encoded", [.http, .post, .upload]),
        ("    --delegation <LEVEL>", "GSS-API delegation permission", [.auth]),
        ("    --digest", "Use HTTP Digest Authentication", [.proxy, .auth, .http]),
        ("-q, --disable", "Disable .curlrc", [.curl]),
        ("    --disable-eprt", "Inhibit using EPRT or LPRT", [.ftp]),
        ("    --disable-epsv", "Inhibit using EPSV", [.ftp]),
        ("    --disallow-username-in-url", "Disallow username in URL", [.curl, .http]),
        ("    --dns-interface <interface>", "Interface to use for DNS requests", [.dns]),
        ("    --dns-ipv4-addr <address>", "IPv4 address to use for DNS requests", [.dns]),
        ("    --dns-ipv6-addr <address>", "IPv6 address to use for DNS requests", [.dns]),
        ("    --dns-servers <addresses>", "DNS server addrs to use", [.dns]),
        ("    --doh-cert-status", "Verify the status of the DoH server cert via OCSP-staple", [.dns, .tls]),
        ("    --doh-insecure", "Allow insecure DoH server connections", [.dns, .tls]),
        ("    --doh-url <URL>", "Resolve host names over DoH", [.dns]),
        ("-D, --dump-header <filename>", "Write the received headers to <filename>", [.http, .ftp]),
        ("    --egd-file <file>", "EGD socket path for random data", [.tls]),
        ("    --engine <name>", "Crypto engine to use", [.tls]),
        ("    --etag-compare <file>", "Pass an ETag from a file as a custom header", [.http]),
        ("    --etag-save <file>", "Parse ETag from a request and save it to a file", [.http]),
        ("    --expect100-timeout <seconds>", "How long to wait for 100-continue", [.http]),
        ("-f, --fail", "Fail fast with no output on HTTP errors", [.important, .http]),
        ("    --fail-early", "Fail on first transfer error, do not continue", [.curl]),
        ("    --fail-with-body", "Fail on HTTP errors but save the body", [.http, .output]),
        ("    --false-start", "Enable TLS False Start", [.tls]),
        ("-F, --form <name=content>", "Specify multipart MIME data", [.http, .upload]),
        ("    --form-escape", "Escape multipart form field/file names using backslash", [.http, .upload]),
        ("    --form-string <name=string>", "Specify multipart MIME data", [.http, .upload]),
        ("    --ftp-account <data>", "Account data string", [.ftp, .auth]),
        ("    --ftp-alternative-to-user <command>", "String to replace USER [name]", [.ftp]),
        ("    --ftp-create-dirs", "Create the remote dirs if not present", [.ftp, .sftp, .curl]),
        ("    --ftp-method <method>", "Control CWD usage", [.ftp]),
        ("    --ftp-pasv", "Use PASV/EPSV instead of PORT", [.ftp]),
        ("-P, --ftp-port <address>", "Use PORT instead of PASV", [.ftp]),
        ("    --ftp-pret", "Send PRET before PASV", [.ftp]),
        ("    --ftp-skip-pasv-ip", "Skip the IP address for PASV", [.ftp]),
        ("    --ftp-ssl-ccc", "Send CCC after authenticating", [.ftp, .tls]),
        ("    --ftp-ssl-ccc-mode <active/passive>", "Set CCC mode", [.ftp, .tls]),
        ("    --ftp-ssl-control", "Require SSL/TLS for FTP login, clear for transfer", [.ftp, .tls]),
        ("-G, --get", "Put the post data in the URL and use GET", [.http, .upload]),
        ("-g, --globoff", "Disable URL sequences and ranges using {} and []", [.curl]),
        ("    --happy-eyeballs-timeout-ms <milliseconds>", "Time for IPv6 before trying IPv4", [.connection]),
        ("    --haproxy-protocol", "Send HAProxy PROXY protocol v1 header", [.http, .proxy]),
        ("-I, --head", "Show document info only", [.http, .ftp, .file]),
        ("-H, --header <header/@file>", "Pass custom header(s) to server", [.http, .imap, .smtp]),
        ("-h, --help <category>", "Get help for commands", [.important, .curl]),
        ("    --hostpubmd5 <md5>", "Acceptable MD5 hash of the host public key", [.sftp, .scp]),
        ("    --hostpubsha256 <sha256>", "Acceptable SHA256 hash of the host public key", [.sftp, .scp]),
        ("    --hsts <file name>", "Enable HSTS with this cache file", [.http]),
        ("    --http0.9", "Allow HTTP 0.9 responses", [.http]),
        ("-0, --http1.0", "Use HTTP 1.0", [.http]),
        ("    --http1.1", "Use HTTP 1.1", [.http]),
        ("    --http2", "Use HTTP 2", [.http]),
        ("    --http2-prior-knowledge", "Use HTTP 2 without HTTP/1.1 Upgrade", [.http]),
        ("    --http3", "Use HTTP v3", [.http]),
        ("    --http3-only", "Use HTTP v3 only", [.http]),
        ("    --ignore-content-length", "Ignore the size of the remote resource", [.http, .ftp]),
        ("-i, --include", "Include protocol response headers in the output", [.important, .verbose]),
        ("-k, --insecure", "Allow insecure server connections", [.tls, .sftp, .scp]),
        ("    --interface <name>", "Use network INTERFACE (or address)", [.connection]),
        ("-4, --ipv4", "Resolve names to IPv4 addresses", [.connection, .dns]),
        ("-6, --ipv6", "Resolve names to IPv6 addresses", [.connection, .dns]),
        ("    --json <data>", "HTTP POST JSON", [.http, .post, .upload]),
        ("-j, --junk-session-cookies", "Ignore session cookies read from file", [.http]),
        ("    --keepalive-time <seconds>", "Interval time for keepalive probes", [.connection]),
        ("    --key <key>", "Private key file name", [.tls, .ssh]),
        ("    --key-type <type>", "Private key file type (DER/PEM/ENG)", [.tls]),
        ("    --krb <level>", "Enable Kerberos with security <level>", [.ftp]),
        ("    --libcurl <file>", "Dump libcurl equivalent code of this command line", [.curl]),
        ("    --limit-rate <speed>", "Limit transfer speed to RATE", [.connection]),
        ("-l, --list-only", "List only mode", [.ftp, .pop3]),
        ("    --local-port <num/range>", "Force use of RANGE for local port numbers", [.connection]),
        ("-L, --location", "Follow redirects", [.http]),
        ("    --location-trusted", "Like --location, and send auth to other hosts", [.http, .auth]),
        ("    --login-options <options>", "Server login options", [.imap, .pop3, .smtp, .auth]),
        ("    --mail-auth <address>", "Originator address of the original email", [.smtp]),
        ("    --mail-from <address>", "Mail from this address", [.smtp]),
        ("    --mail-rcpt <address>", "Mail to this address", [.smtp]),
        ("    --mail-rcpt-allowfails", "Allow RCPT TO command to fail for some recipients", [.smtp]),
        ("-M, --manual", "Display the full manual", [.curl]),
        ("    --max-filesize <bytes>", "Maximum file size to download", [.connection]),
        ("    --max-redirs <num>", "Maximum number of redirects allowed", [.http]),
        ("-m, --max-time <fractional seconds>", "Maximum time allowed for transfer", [.connection]),
        ("    --metalink", "Process given URLs as metalink XML file", [.misc]),
        ("    --negotiate", "Use HTTP Negotiate (SPNEGO) authentication", [.auth, .http]),
        ("-n, --netrc", "Must read .netrc for user name and password", [.curl]),
        ("    --netrc-file <filename>", "Specify FILE for netrc", [.curl]),
        ("    --netrc-optional", "Use either .netrc or URL", [.curl]),
        ("-:, --next", "Make next URL use its separate set of options", [.curl]),
        ("    --no-alpn", "Disable the ALPN TLS extension", [.tls, .http]),
        ("-N, --no-buffer", "Disable buffering of the output stream", [.curl]),
        ("    --no-clobber", "Do not overwrite files that already exist", [.curl, .output]),
        ("    --no-keepalive", "Disable TCP keepalive on the connection", [.connection]),
        ("    --no-npn", "Disable the NPN TLS extension", [.tls, .http]),
        ("    --no-progress-meter", "Do not show the progress meter", [.verbose]),
        ("    --no-sessionid", "Disable SSL session-ID reusing", [.tls]),
        ("    --noproxy <no-proxy-list>", "List of hosts which do not use proxy", [.proxy]),
        ("    --ntlm", "Use HTTP NTLM authentication", [.auth, .http]),
        ("    --ntlm-wb", "Use HTTP NTLM authentication with winbind", [.auth, .http]),
        ("    --oauth2-bearer <token>", "OAuth 2 Bearer Token", [.auth]),
        ("-o, --output <file>", "Write to file instead of stdout", [.important, .curl]),
        ("    --output-dir <dir>", "Directory to save files in", [.curl]),
        ("-Z, --parallel", "Perform transfers in parallel", [.connection, .curl]),
        ("    --parallel-immediate", "Do not wait for multiplexing (with --parallel)", [.connection, .curl]),
        ("    --parallel-max <num>", "Maximum concurrency for parallel transfers", [.connection, .curl]),
        ("    --pass <phrase>", "Pass phrase for the private key", [.ssh, .tls, .auth]),
        ("    --path-as-is", "Do not squash .. sequences in URL path", [.curl]),
        ("    --pinnedpubkey <hashes>", "FILE/HASHES Public key to verify peer against", [.tls]),
        ("    --post301", "Do not switch to GET after following a 301", [.http, .post]),
        ("    --post302", "Do not switch to GET after following a 302", [.http, .post]),
        ("    --post303", "Do not switch to GET after following a 303", [.http, .post]),
        ("    --preproxy [protocol://]host[:port]", "Use this proxy first", [.proxy]),
        ("-#, --progress-bar", "Display transfer progress as a bar", [.verbose]),
        ("    --proto <protocols>", "Enable/disable PROTOCOLS", [.connection, .curl]),
        ("    --proto-default <protocol>", "Use PROTOCOL for any URL missing a scheme", [.connection, .curl]),
        ("    --proto-redir <protocols>", "Enable/disable PROTOCOLS on redirect", [.connection, .curl]),
        ("-x, --proxy [protocol://]host[:port]", "Use this proxy", [.proxy]),
        ("    --proxy-anyauth", "Pick any proxy authentication method", [.proxy, .auth]),
        ("    --proxy-basic", "Use Basic authentication on the proxy", [.proxy, .auth]),
        ("    --proxy-cacert <file>", "CA certificate to verify peer against for proxy", [.proxy, .tls]),
        ("    --proxy-capath <dir>", "CA directory to verify peer against for proxy", [.proxy, .tls]),
        ("    --proxy-cert <cert[:passwd]>", "Set client certificate for proxy", [.proxy, .tls]),
        ("    --proxy-cert-type <type>", "Client certificate type for HTTPS proxy", [.proxy, .tls]),
        ("    --proxy-ciphers <list>", "SSL ciphers to use for proxy", [.proxy, .tls]),
        ("    --proxy-crlfile <file>", "Set a CRL list for proxy", [.proxy, .tls]),
        ("    --proxy-digest", "Use Digest authentication on the proxy", [.proxy, .tls]),
        ("    --proxy-header <header/@file>", "Pass custom header(s) to proxy", [.proxy]),
        ("    --proxy-insecure", "Do HTTPS proxy connections without verifying the proxy", [.proxy, .tls]),
        ("    --proxy-key <key>", "Private key for HTTPS proxy", [.proxy, .tls]),
        ("    --proxy-key-type <type>", "Private key file type for proxy", [.proxy, .tls]),
        ("    --proxy-negotiate", "Use HTTP Negotiate (SPNEGO) authentication on the proxy", [.proxy, .auth]),
        ("    --proxy-ntlm", "Use NTLM authentication on the proxy", [.proxy, .auth]),
        ("    --proxy-pass <phrase>", "Pass phrase for the private key for HTTPS proxy", [.proxy, .tls, .auth]),
        ("    --proxy-pinnedpubkey <hashes>", "FILE/HASHES public key to verify proxy with", [.proxy, .tls]),
        ("    --proxy-service-name <name>", "SPNEGO proxy service name", [.proxy, .tls]),
        ("    --proxy-ssl-allow-beast", "Allow security flaw for interop for HTTPS proxy", [.proxy, .tls]),
        ("    --proxy-ssl-auto-client-cert", "Use auto client certificate for proxy (Schannel)", [.proxy, .tls]),
        ("    --proxy-tls13-ciphers <ciphersuite list>", "TLS 1.3 proxy cipher suites", [.proxy, .tls]),
        ("    --proxy-tlsauthtype <type>", "TLS authentication type for HTTPS proxy", [.proxy, .tls, .auth]),
        ("    --proxy-tlspassword <string>", "TLS password for HTTPS proxy", [.proxy, .tls, .auth]),
        ("    --proxy-tlsuser <name>", "TLS username for HTTPS proxy", [.proxy, .tls, .auth]),
        ("    --proxy-tlsv1", "Use TLSv1 for HTTPS proxy", [.proxy, .tls, .auth]),
        ("-U, --proxy-user <user:password>", "Proxy user and password", [.proxy, .auth]),
        ("    --proxy1.0 <host[:port]>", "Use HTTP/1.0 proxy on given port", [.proxy]),
        ("-p, --proxytunnel", "Operate through an HTTP proxy tunnel (using CONNECT)", [.proxy]),
        ("    --pubkey <key>", "SSH Public key file name", [.sftp, .scp, .auth]),
        ("-Q, --quote <command>", "Send command(s) to server before transfer", [.ftp, .sftp]),
        ("    --random-file <file>", "File for reading random data from", [.misc]),
        ("-r, --range <range>", "Retrieve only the bytes within RANGE", [.http, .ftp, .sftp, .file]),
        ("    --rate <max request rate>", "Request rate for serial transfers", [.connection]),
        ("    --raw", "Do HTTP \"raw\"; no transfer decoding", [.http]),
        ("-e, --referer <URL>", "Referrer URL", [.http]),
        ("-J, --remote-header-name", "Use the header-provided filename", [.output]),
        ("-O, --remote-name", "Write output to a file named as the remote file", [.important, .output]),
        ("    --remote-name-all", "Use the remote file name for all URLs", [.output]),
        ("-R, --remote-time", "Set the remote file's time on the local output", [.output]),
        ("    --remove-on-error", "Remove output file on errors", [.curl]),
        ("-X, --request <method>", "Specify request method to use", [.connection]),
        ("    --request-target <path>", "Specify the target for this request", [.http]),
        ("    --resolve <[+]host:port:addr[,addr]...>", "Resolve the host+port to this address", [.connection, .dns]),
        ("    --retry <num>", "Retry request if transient problems occur", [.curl]),
        ("    --retry-all-errors", "Retry all errors (use with --retry)", [.curl]),
        ("    --retry-connrefused", "Retry on connection refused (use with --retry)", [.curl]),
        ("    --retry-delay <seconds>", "Wait time between retries", [.curl]),
        ("    --retry-max-time <seconds>", "Retry only within this period", [.curl]),
        ("    --sasl-authzid <identity>", "Identity for SASL PLAIN authentication", [.auth]),
        ("    --sasl-ir", "Enable initial response in SASL authentication", [.auth]),
        ("    --service-name <name>", "SPNEGO service name", [.misc]),
        ("-S, --show-error", "Show error even when -s is used", [.curl]),
        ("-s, --silent", "Silent mode", [.important, .verbose]),
        ("    --socks4 <host[:port]>", "SOCKS4 proxy on given host + port", [.proxy]),
        ("    --socks4a <host[:port]>", "SOCKS4a proxy on given host + port", [.proxy]),
        ("    --socks5 <host[:port]>", "SOCKS5 proxy on given host + port", [.proxy]),
        ("    --socks5-basic", "Enable username/password auth for SOCKS5 proxies", [.proxy, .auth]),
        ("    --socks5-gssapi", "Enable GSS-API auth for SOCKS5 proxies", [.proxy, .auth]),
        ("    --socks5-gssapi-nec", "Compatibility with NEC SOCKS5 server", [.proxy, .auth]),
        ("    --socks5-gssapi-service <name>", "SOCKS5 proxy service name for GSS-API", [.proxy, .auth]),
        ("    --socks5-hostname <host[:port]>", "SOCKS5 proxy, pass host name to proxy", [.proxy]),
        ("-Y, --speed-limit <speed>", "Stop transfers slower than this", [.connection]),
        ("-y, --speed-time <seconds>", "Trigger 'speed-limit' abort after this time", [.connection]),
        ("    --ssl", "Try SSL/TLS", [.tls]),
        ("    --ssl-allow-beast", "Allow security flaw to improve interop", [.tls]),
        ("    --ssl-auto-client-cert", "Use auto client certificate (Schannel)", [.tls]),
        ("    --ssl-no-revoke", "Disable cert revocation checks (Schannel)", [.tls]),
        ("    --ssl-reqd", "Require SSL/TLS", [.tls]),
        ("    --ssl-revoke-best-effort", "Ignore missing/offline cert CRL dist points", [.tls]),
        ("-2, --sslv2", "Use SSLv2", [.tls]),
        ("-3, --sslv3", "Use SSLv3", [.tls]),
        ("    --stderr <file>", "Where to redirect stderr", [.verbose]),
        ("    --styled-output", "Enable styled output for HTTP headers", [.verbose]),
        ("    --suppress-connect-headers", "Suppress proxy CONNECT response headers", [.proxy]),
        ("    --tcp-fastopen", "Use TCP Fast Open", [.connection]),
        ("    --tcp-nodelay", "Use the TCP_NODELAY option", [.connection]),
        ("-t, --telnet-option <opt=val>", "Set telnet option", [.telnet]),
        ("    --tftp-blksize <value>", "Set TFTP BLKSIZE option", [.tftp]),
        ("    --tftp-no-options", "Do not send any TFTP options", [.tftp]),
        ("-z, --time-cond <time>", "Transfer based on a time condition", [.http, .ftp]),
        ("    --tls-max <VERSION>", "Set maximum allowed TLS version", [.tls]),
        ("    --tls13-ciphers <ciphersuite list>", "TLS 1.3 cipher suites to use", [.tls]),
        ("    --tlsauthtype <type>", "TLS authentication type", [.tls, .auth]),
        ("    --tlspassword <string>", "TLS password", [.tls, .auth]),
        ("    --tlsuser <name>", "TLS user name", [.tls, .auth]),
        ("-1, --tlsv1", "Use TLSv1.0 or greater", [.tls]),
        ("    --tlsv1.0", "Use TLSv1.0 or greater", [.tls]),
        ("    --tlsv1.1", "Use TLSv1.1 or greater", [.tls]),
        ("    --tlsv1.2", "Use TLSv1.2 or greater", [.tls]),
        ("    --tlsv1.3", "Use TLSv1.3 or greater", [.tls]),
        ("    --tr-encoding", "Request compressed transfer encoding", [.http]),
        ("    --trace <file>", "Write a debug trace to FILE", [.verbose]),
        ("    --trace-ascii <file>", "Like --trace, but without hex output", [.verbose]),
        ("    --trace-time", "Add time stamps to trace/verbose output", [.verbose]),
        ("    --unix-socket <path>", "Connect through this Unix domain socket", [.connection]),
        ("-T, --upload-file <file>", "Transfer local FILE to destination", [.important, .upload]),
        ("    --url <url>", "URL to work with", [.curl]),
        ("    --url-query <data>", "Add a URL query part", [.http, .post, .upload]),
        ("-B, --use-ascii", "Use ASCII/text transfer", [.misc]),
        ("-u, --user <user:password>", "Server user and password", [.important, .auth]),
        ("-A, --user-agent <name>", "Send User-Agent <name> to server", [.important, .http]),
        ("-v, --verbose", "Make the operation more talkative", [.important, .verbose]),
        ("-V, --version", "Show version number and quit", [.important, .curl]),
        ("-w, --write-out <format>", "Use output FORMAT after completion", [.verbose]),
        ("    --xattr", "Store metadata in extended file attributes", [.misc]),
    ]
}
