// libFuzzer target: a chunked body (and whatever follows it) behind a fixed chunked head.
import FuzzHarness

@main
enum ChunkedFuzzer {
    static func main() {
        FuzzEntry.run { data, count in
            StreamOracles.check(StreamCase(chunkedInput: fuzzBytes(data, count)))
            return 0
        }
    }
}
