// Micro benchmarks of Client's request-body encoders (package-benchmark): URL-encoded forms
// (`URLEncodedFormEncoder` alone, and `URLEncodedFormParameterEncoder` into a POST body and a GET
// query) and multipart (`MultipartFormData`: three appends and `encode()`).
//
// 1,000 encodings per iteration (`scalingFactor: .kilo`): the table prints per-encoding values
// (marked `*`). Allocation counts are the CI gate, with a tolerance of 1 per encoding (1,000 per
// iteration in the stored thresholds): Foundation's `Data` and `URL` grow their storage in steps
// that can shift by one when Foundation changes. Times are informative.
import Benchmark
import Client
import Foundation
import MicroSupport

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: MicroMetrics.all, scalingFactor: .kilo, maxDuration: .seconds(2),
        thresholds: MicroMetrics.mallocGate(allowedExtraMallocs: 1_000)
    )

    Benchmark("URLEncodedFormEncoder_encode", configuration: configuration) { benchmark in
        let encoder = URLEncodedFormEncoder()
        let form = SignUpForm.example
        try benchmark.measureWithARC {
            for _ in benchmark.scaledIterations {
                let text: String = try encoder.encode(form)
                blackHole(text)
            }
        }
    }

    Benchmark("URLEncodedFormParameterEncoder_POSTbody", configuration: configuration) { benchmark in
        let encoder = URLEncodedFormParameterEncoder.default
        let request = try URLRequest(url: "https://api.example.com/v1/signup", method: .post)
        let form = SignUpForm.example
        try benchmark.measureWithARC {
            for _ in benchmark.scaledIterations {
                blackHole(try encoder.encode(form, into: request))
            }
        }
    }

    Benchmark("URLEncodedFormParameterEncoder_GETquery", configuration: configuration) { benchmark in
        let encoder = URLEncodedFormParameterEncoder.default
        let request = try URLRequest(url: "https://api.example.com/v1/search?lang=en", method: .get)
        let form = SignUpForm.example
        try benchmark.measureWithARC {
            for _ in benchmark.scaledIterations {
                blackHole(try encoder.encode(form, into: request))
            }
        }
    }

    Benchmark("MultipartFormData_3parts_16KiB_encode", configuration: configuration) { benchmark in
        let file = Data(repeating: 0x61, count: 16 * 1024)
        let name = Data("Ada Lovelace".utf8), note = Data("first upload, please be gentle ✓".utf8)
        try benchmark.measureWithARC {
            for _ in benchmark.scaledIterations {
                // As an upload builds it: a fresh form (fixed boundary: no random bytes), then encode.
                let form = MultipartFormData(boundary: "lariat.boundary.0123456789abcdef")
                form.append(name, withName: "name")
                form.append(note, withName: "note")
                form.append(file, withName: "file", fileName: "photo.jpg", mimeType: "image/jpeg")
                blackHole(try form.encode())
            }
        }
    }
}

/// A typical sign-up form: strings needing escapes, a number, a bool, an array, a nested object.
struct SignUpForm: Encodable, Sendable {
    struct Address: Encodable, Sendable {
        var street: String
        var city: String
        var postalCode: String
    }

    var name: String
    var email: String
    var password: String
    var age: Int
    var newsletter: Bool
    var interests: [String]
    var address: Address
    var referrer: String?

    static let example = SignUpForm(
        name: "Ada Lovelace", email: "ada+lariat@example.com", password: "p@ss w0rd&more=yes",
        age: 36, newsletter: true, interests: ["engines", "poetry", "mathématiques"],
        address: Address(street: "12 St James's Square", city: "London", postalCode: "SW1Y 4JH"),
        referrer: nil
    )
}
