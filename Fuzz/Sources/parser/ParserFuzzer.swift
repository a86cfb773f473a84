// libFuzzer target: a response stream answering 1-3 requests (see StreamInput.swift for the layout).
import FuzzHarness

@main
enum ParserFuzzer {
    static func main() {
        FuzzEntry.run { data, count in
            StreamOracles.check(StreamCase(parserInput: fuzzBytes(data, count)))
            return 0
        }
    }
}
