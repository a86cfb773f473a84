// The single JSON line a peer prints on stdout (README.md, "Output").

/// Result of one workload run, printed by ``BenchResult/jsonLine``.
///
/// Fields that do not apply to a workload stay nil and are omitted from the line.
public struct BenchResult: Sendable {
    /// Peer name, e.g. `"ahc"`.
    public var client: String
    /// The workload that ran.
    public var workload: Workload
    /// Requests per second over the timed phase (connections per second for `https-new-conn`).
    public var rps: Double?
    /// Median request latency in microseconds.
    public var p50Micros: Double?
    /// 99th-percentile request latency in microseconds.
    public var p99Micros: Double?
    /// Body throughput in MB/s, where 1 MB = 1,000,000 bytes.
    public var mbps: Double?
    /// Peak resident set size (`VmHWM`) in KiB at the end of the run.
    public var peakRSSKiB: Int?
    /// Timed requests.
    public var requests: Int
    /// Body bytes moved in the timed phase (received, or sent for `upload`).
    public var bytes: Int
    /// Length of the timed phase in seconds.
    public var seconds: Double
    /// For TLS workloads: whether the client was allowed to resume sessions (`on`/`off`).
    public var tlsResumption: String?

    /// Creates a result with only the always-present fields.
    /// - Parameters:
    ///   - client: peer name.
    ///   - workload: the workload.
    ///   - requests: timed requests.
    ///   - bytes: body bytes moved.
    ///   - seconds: timed phase length.
    public init(client: String, workload: Workload, requests: Int, bytes: Int, seconds: Double) {
        self.client = client
        self.workload = workload
        self.requests = requests
        self.bytes = bytes
        self.seconds = seconds
    }

    /// The result as one line of JSON, keys in a fixed order, without a trailing newline.
    public var jsonLine: String {
        var fields: [String] = [
            "\"client\":\(quoted(client))",
            "\"workload\":\(quoted(workload.rawValue))",
        ]
        if let rps { fields.append("\"rps\":\(number(rps))") }
        if let p50Micros { fields.append("\"p50_us\":\(number(p50Micros))") }
        if let p99Micros { fields.append("\"p99_us\":\(number(p99Micros))") }
        if let mbps { fields.append("\"mbps\":\(number(mbps))") }
        if let peakRSSKiB { fields.append("\"peak_rss_kib\":\(peakRSSKiB)") }
        fields.append("\"requests\":\(requests)")
        fields.append("\"bytes\":\(bytes)")
        fields.append("\"seconds\":\(number(seconds))")
        if let tlsResumption { fields.append("\"tls_resumption\":\(quoted(tlsResumption))") }
        return "{" + fields.joined(separator: ",") + "}"
    }
}

/// A finite number with three decimals at most; JSON has no NaN or infinity, so those become 0.
private func number(_ value: Double) -> String {
    guard value.isFinite else { return "0" }
    let scaled = (value * 1_000).rounded() / 1_000
    if scaled == scaled.rounded(), abs(scaled) < 1e15 { return String(Int64(scaled)) }
    return String(scaled)
}

/// A JSON string literal; peer and workload names are ASCII, but escape defensively.
private func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where scalar.value < 0x20: out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
