import Client
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// fetch's command line, spelled like curl's.
struct FetchOptions {
    struct Invalid: Error, CustomStringConvertible { var description: String }

    static let usage = "usage: fetch URL [-X METHOD] [-H 'Name: value']... [-d DATA | --data-binary @FILE] [-o FILE] [-i] [-v] [--max-time S] [--connect-timeout S] [-f]"

    var url = ""
    var method = "GET"
    var methodGiven = false
    var headers = HTTPHeaders()
    var body: Data?
    var outputPath: String?
    var includeHeaders = false
    var verbose = false
    var maxTime: Double?
    var connectTimeout: Double?
    var failOnHTTPError = false

    init(_ arguments: [String]) throws(Invalid) {
        var iterator = arguments.makeIterator()
        func value(_ option: String) throws(Invalid) -> String {
            guard let next = iterator.next() else { throw Invalid(description: "\(option) needs a value") }
            return next
        }
        while let argument = iterator.next() {
            switch argument {
            case "-X", "--request": method = try value(argument).uppercased(); methodGiven = true
            case "-H", "--header":
                let line = try value(argument)
                guard let colon = line.firstIndex(of: ":") else { throw Invalid(description: "header \(line) has no colon") }
                let name = String(line[..<colon])
                let value = line[line.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" })
                headers.add(name: name, value: String(value))
            case "-d", "--data", "--data-raw": body = Data(try value(argument).utf8)
            case "--data-binary":
                let spec = try value(argument)
                if spec.hasPrefix("@") {
                    guard let data = readFile(String(spec.dropFirst())) else { throw Invalid(description: "cannot read \(spec.dropFirst())") }
                    body = data
                } else {
                    body = Data(spec.utf8)
                }
            case "-o", "--output": outputPath = try value(argument)
            case "-i", "--include": includeHeaders = true
            case "-v", "--verbose": verbose = true
            case "-f", "--fail": failOnHTTPError = true
            case "-m", "--max-time":
                guard let seconds = Double(try value(argument)), seconds > 0 else { throw Invalid(description: "--max-time needs a positive number") }
                maxTime = seconds
            case "--connect-timeout":
                guard let seconds = Double(try value(argument)), seconds > 0 else { throw Invalid(description: "--connect-timeout needs a positive number") }
                connectTimeout = seconds
            case "-h", "--help":
                print(FetchOptions.usage)
                exit(0)
            default:
                if argument.hasPrefix("-") { throw Invalid(description: "unknown option \(argument)") }
                guard url.isEmpty else { throw Invalid(description: "only one URL is supported") }
                url = argument
            }
        }
        guard !url.isEmpty else { throw Invalid(description: "no URL given") }
        if body != nil && !methodGiven { method = "POST" }
        if body != nil && headers.value(for: "Content-Type") == nil {
            headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        }
    }
}

/// Reads a whole file, or nil.
func readFile(_ path: String) -> Data? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 { if errno == EINTR { continue }; return nil }
        if n == 0 { return data }
        data.append(contentsOf: chunk[0..<n])
    }
}
