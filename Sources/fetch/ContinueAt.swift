// curl's -C/--continue-at and -r/--range: the Range header sent, and what a response to a
// resumed transfer means, after curl 7.88 (lib/http.c):
//
// - `-C -` resumes from the size of the -o file (0 when it is missing, or when writing to
//   standard output); `-C N` from N. A zero offset sends no Range and writes as usual.
// - A response whose Content-Range starts at the offset is appended to the file.
// - 416 (Range Not Satisfiable) is success with the body ignored: the file is complete (but
//   -f still fails it with 22, as curl 7.88.1 does: checked side by side in FetchContinueTests).
// - Any other response without a matching Content-Range: if its length equals the offset the
//   file is already complete (success, nothing written), else exit 33, "HTTP server doesn't
//   seem to support byte ranges. Cannot resume."
// - `-r RANGE` sends `Range: bytes=RANGE` and writes whatever comes back (a lone number gets
//   curl's trailing dash). `-C` wins when both are given, as in curl.
import Client
#if canImport(Glibc)
import Glibc
#endif

extension FetchOptions {
    /// `-C`: where a transfer resumes.
    enum ContinueAt: Equatable {
        /// `-C -`: from the size of the output file.
        case outputSize
        /// `-C N`: from byte N.
        case offset(Int)

        /// Parses curl's `-C` value: `-` or a non-negative integer (curl's two messages: a
        /// negative number is not "positive", anything else not "proper").
        static func parse(_ text: String) throws(FetchUsageError) -> ContinueAt {
            if text == "-" { return .outputSize }
            guard let value = Int(text) else { throw .notNumeric("-C") }
            guard value >= 0 else { throw FetchUsageError(description: "option -C: expected a positive numerical parameter") }
            return .offset(value)
        }
    }

    /// curl's `-r` value: a lone number `N` becomes `N-` (curl warns and appends the dash).
    static func normalizedRange(_ text: String) -> String {
        text.contains("-") ? text : text + "-"
    }
}

/// A transfer's resume or range request, and what its response means.
struct ContinuePlan: Equatable {
    /// What to do with a response.
    enum Outcome: Equatable {
        /// Write as usual (truncating the output file).
        case write
        /// Append the body to the output file.
        case append
        /// 416: the head as usual (-i), the body ignored; success.
        case ignoreBody
        /// The file already holds the whole resource: nothing written; success.
        case alreadyComplete
        /// The server ignored the range: exit 33.
        case cannotResume
    }

    /// The resume offset; 0 when not resuming.
    let offset: Int
    /// The `Range` value to send, if any.
    let rangeHeader: String?

    /// The plan for `options` writing to `outputPath` (`nil` or `-` for standard output).
    init(options: FetchOptions, outputPath: String?) {
        switch options.continueAt {
        case .offset(let value)?:
            offset = value
        case .outputSize?:
            offset = outputPath.flatMap { $0 == "-" ? nil : ContinuePlan.fileSize($0) } ?? 0
        case nil:
            offset = 0
        }
        if offset > 0 {
            rangeHeader = "bytes=\(offset)-"
        } else if options.continueAt == nil, let range = options.range {
            rangeHeader = "bytes=\(range)"
        } else {
            rangeHeader = nil
        }
    }

    /// What a response with `status` and `headers` means for this plan.
    func outcome(status: Int, headers: HTTPHeaders) -> Outcome {
        guard offset > 0 else { return .write }
        if status == 416 { return .ignoreBody }
        if let start = headers.value(for: "Content-Range").flatMap(ContinuePlan.rangeStart), start == offset { return .append }
        if headers.value(for: "Content-Length").flatMap({ Int($0) }) == offset { return .alreadyComplete }
        return .cannotResume
    }

    /// curl's reading of Content-Range: the first number after the unit (`bytes 100-199/200`
    /// gives 100; `bytes */200` gives none).
    static func rangeStart(_ value: String) -> Int? {
        let rest = value.drop { !$0.isNumber && $0 != "*" }
        guard let first = rest.first, first.isNumber else { return nil }
        return Int(rest.prefix { $0.isASCII && $0.isNumber })
    }

    /// The size of the file at `path`, or nil when there is none.
    private static func fileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }
}
