// libFuzzer target: request heads from arbitrary strings (see SerializerOracles.swift for the layout).
import FuzzHarness

@main
enum SerializerFuzzer {
    static func main() {
        FuzzEntry.run { data, count in
            SerializerOracles.check(SerializerCase(fuzzBytes(data, count)))
            return 0
        }
    }
}
