#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Testing
@testable import Client

private struct Simple: Encodable, Sendable {
    let name: String
    let count: Int
}

private struct Nested: Encodable {
    struct Inner: Encodable { let leaf: String; let deeper: [String: Int] }
    let outer: Inner
    let list: [Int]
}

private struct Optionals: Encodable {
    let present: String?
    let absent: String?
    let absentInt: Int?
}

private struct CamelKeys: Encodable {
    let oneTwo: Int
    let myURLValue: Int
}

private struct Flags: Encodable {
    let on: Bool
    let off: Bool
}

private struct Objects: Encodable {
    struct Item: Encodable { let id: Int }
    let items: [Item]
    let matrix: [[Int]]
}

private struct Throwing: Encodable {
    struct Failure: Error {}
    func encode(to encoder: any Encoder) throws { throw Failure() }
}

/// Encodes with a fresh encoder, alphabetized unless told otherwise.
private func encode(_ value: some Encodable, _ encoder: URLEncodedFormEncoder = URLEncodedFormEncoder()) throws -> String {
    try encoder.encode(value)
}

/// A parent class that writes itself by hand.
private class HandWrittenParent: Encodable {
    enum Keys: String, CodingKey { case id, tag }
    let id = 7
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(id, forKey: .id)
    }
}

/// Writes its own key, then its parent's through `superEncoder()`.
private final class HandWrittenChild: HandWrittenParent {
    let tag = "t"
    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(tag, forKey: .tag)
        try super.encode(to: container.superEncoder())
    }
}

/// Opens two keyed containers for the same key, and a keyed container through an unkeyed one's `superEncoder()`.
private struct TwoContainersOneKey: Encodable {
    enum Keys: String, CodingKey { case box, list, x, y, n }
    func encode(to encoder: any Encoder) throws {
        var root = encoder.container(keyedBy: Keys.self)
        var first = root.nestedContainer(keyedBy: Keys.self, forKey: .box)
        try first.encode(1, forKey: .x)
        var second = root.nestedContainer(keyedBy: Keys.self, forKey: .box)
        try second.encode(2, forKey: .y)
        var list = root.nestedUnkeyedContainer(forKey: .list)
        var viaSuper = list.superEncoder().container(keyedBy: Keys.self)
        try viaSuper.encode(5, forKey: .n)
    }
}

@Suite("URLEncodedFormEncoder")
struct URLEncodedFormEncoderTests {
    @Test("flat struct, alphabetized by default")
    func flat() throws {
        #expect(try encode(Simple(name: "a", count: 2)) == "count=2&name=a")
    }

    @Test("declaration order kept without alphabetizing")
    func unalphabetized() throws {
        #expect(try encode(Simple(name: "a", count: 2), URLEncodedFormEncoder(alphabetizeKeyValuePairs: false)) == "name=a&count=2")
    }

    @Test("dictionary keys are sorted, making output deterministic")
    func dictionarySorted() throws {
        #expect(try encode(["b": 1, "a": 2, "c": 3]) == "a=2&b=1&c=3")
    }

    @Test("nested objects and arrays, brackets everywhere")
    func nested() throws {
        let value = Nested(outer: .init(leaf: "x", deeper: ["k": 1]), list: [1, 2])
        #expect(try encode(value) == "list%5B%5D=1&list%5B%5D=2&outer%5Bdeeper%5D%5Bk%5D=1&outer%5Bleaf%5D=x")
    }

    @Test("array encodings", arguments: [
        (URLEncodedFormEncoder.ArrayEncoding.brackets, "a%5B%5D=1&a%5B%5D=2&a%5B%5D=3"),
        (.noBrackets, "a=1&a=2&a=3"),
        (.indexInBrackets, "a%5B0%5D=1&a%5B1%5D=2&a%5B2%5D=3"),
        (.custom { key, index in "\(key).\(index)" }, "a.0=1&a.1=2&a.2=3"),
    ])
    func arrayEncodings(encoding: URLEncodedFormEncoder.ArrayEncoding, expected: String) throws {
        #expect(try encode(["a": [1, 2, 3]], URLEncodedFormEncoder(arrayEncoding: encoding)) == expected)
    }

    @Test("alphabetizing sorts each array's segments as text, as Alamofire; without it arrays keep their order")
    func arraySegmentsSorted() throws {
        // Alamofire sorts the serialized segments of objects and arrays alike, so index 10 sorts
        // before index 2 and bracketed values come out sorted (its ManuallyEncodableStruct test).
        let indexed = try encode(["a": Array(0...11)], URLEncodedFormEncoder(arrayEncoding: .indexInBrackets))
        #expect(indexed.split(separator: "&").map { String($0.split(separator: "=")[1]) }
            == ["0", "1", "10", "11", "2", "3", "4", "5", "6", "7", "8", "9"])
        #expect(try encode(["a": ["z", "y"]]) == "a%5B%5D=y&a%5B%5D=z")
        #expect(try encode(["a": ["z", "y"]], URLEncodedFormEncoder(alphabetizeKeyValuePairs: false)) == "a%5B%5D=z&a%5B%5D=y")
    }

    @Test("a subclass writing its parent through superEncoder() lands in the same object, as Alamofire")
    func superEncoderSharesTheObject() throws {
        // Failed before: superEncoder() nested the parent under a `super` key ("super[id]=7&tag=t").
        #expect(try encode(HandWrittenChild()) == "id=7&tag=t")
    }

    @Test("two containers for one key merge; an unkeyed container's superEncoder writes at the array's path")
    func containersMergeByPath() throws {
        // Failed before: the second nestedContainer for "box" replaced the first's members ("box[y]=2").
        #expect(try encode(TwoContainersOneKey()) == "box%5Bx%5D=1&box%5By%5D=2&list%5Bn%5D=5")
    }

    @Test("arrays of objects and nested arrays")
    func objectsInArrays() throws {
        let encoder = URLEncodedFormEncoder(arrayEncoding: .indexInBrackets, allowedCharacters: .afURLQueryAllowed.union(CharacterSet(charactersIn: "[]")))
        let text = try encode(Objects(items: [.init(id: 1), .init(id: 2)], matrix: [[1, 2], [3]]), encoder)
        #expect(text == "items[0][id]=1&items[1][id]=2&matrix[0][0]=1&matrix[0][1]=2&matrix[1][0]=3")
    }

    @Test("bool encodings", arguments: [
        (URLEncodedFormEncoder.BoolEncoding.numeric, "off=0&on=1"),
        (.literal, "off=false&on=true"),
    ])
    func boolEncodings(encoding: URLEncodedFormEncoder.BoolEncoding, expected: String) throws {
        #expect(try encode(Flags(on: true, off: false), URLEncodedFormEncoder(boolEncoding: encoding)) == expected)
    }

    @Test("data encodings", arguments: [
        (URLEncodedFormEncoder.DataEncoding.base64, "d=AQID"),
        (.deferredToData, "d%5B%5D=1&d%5B%5D=2&d%5B%5D=3"),
        (.custom { data in data.map { String($0) }.joined(separator: "-") }, "d=1-2-3"),
    ])
    func dataEncodings(encoding: URLEncodedFormEncoder.DataEncoding, expected: String) throws {
        #expect(try encode(["d": Data([1, 2, 3])], URLEncodedFormEncoder(dataEncoding: encoding)) == expected)
    }

    @Test("date encodings", arguments: [
        (URLEncodedFormEncoder.DateEncoding.deferredToDate, "d=-978307198.5"),
        (.secondsSince1970, "d=1.5"),
        (.millisecondsSince1970, "d=1500.0"),
        (.iso8601, "d=1970-01-01T00%3A00%3A01Z"),
        (.custom { date in "t\(Int(date.timeIntervalSince1970))" }, "d=t1"),
    ])
    func dateEncodings(encoding: URLEncodedFormEncoder.DateEncoding, expected: String) throws {
        let date = Date(timeIntervalSince1970: 1.5)
        #expect(try encode(["d": date], URLEncodedFormEncoder(dateEncoding: encoding)) == expected)
    }

    #if FullFoundation
    @Test("formatted date encoding uses the DateFormatter")
    func formattedDate() throws {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy"
        formatter.timeZone = TimeZone(identifier: "UTC")
        #expect(try encode(["d": Date(timeIntervalSince1970: 0)], URLEncodedFormEncoder(dateEncoding: .formatted(formatter))) == "d=1970")
    }
    #endif

    @Test("key encodings", arguments: [
        (URLEncodedFormEncoder.KeyEncoding.useDefaultKeys, "myURLValue=2&oneTwo=1"),
        (.convertToSnakeCase, "my_url_value=2&one_two=1"),
        (.convertToKebabCase, "my-url-value=2&one-two=1"),
        (.capitalized, "MyURLValue=2&OneTwo=1"),
        (.uppercased, "MYURLVALUE=2&ONETWO=1"),
        (.lowercased, "myurlvalue=2&onetwo=1"),
        (.custom { "k_" + $0 }, "k_myURLValue=2&k_oneTwo=1"),
    ])
    func keyEncodings(encoding: URLEncodedFormEncoder.KeyEncoding, expected: String) throws {
        #expect(try encode(CamelKeys(oneTwo: 1, myURLValue: 2), URLEncodedFormEncoder(keyEncoding: encoding)) == expected)
    }

    @Test("snake-case word splitting", arguments: [
        ("oneTwoThree", "one_two_three"), ("myURLProperty", "my_url_property"), ("URLValue", "url_value"),
        ("already_snake", "already_snake"), ("a1B", "a1_b"), ("ABC", "abc"), ("", ""),
    ])
    func snakeCase(input: String, expected: String) {
        #expect(URLEncodedFormEncoder.KeyEncoding.convertToSnakeCase.encode(input) == expected)
    }

    @Test("key encoding applies to nested keys too")
    func keyEncodingNested() throws {
        let encoder = URLEncodedFormEncoder(keyEncoding: .convertToSnakeCase, keyPathEncoding: .dots)
        #expect(try encode(["outerKey": ["innerKey": 1]], encoder) == "outer_key.inner_key=1")
    }

    @Test("key path encodings", arguments: [
        (URLEncodedFormEncoder.KeyPathEncoding.brackets, "a%5Bb%5D%5Bc%5D=1"),
        (.dots, "a.b.c=1"),
        (.init { "/\($0)" }, "a/b/c=1"),
    ])
    func keyPathEncodings(encoding: URLEncodedFormEncoder.KeyPathEncoding, expected: String) throws {
        #expect(try encode(["a": ["b": ["c": 1]]], URLEncodedFormEncoder(keyPathEncoding: encoding)) == expected)
    }

    @Test("nil encodings apply to optional properties", arguments: [
        (URLEncodedFormEncoder.NilEncoding.dropKey, "present=p"),
        (.dropValue, "absent=&absentInt=&present=p"),
        (.null, "absent=null&absentInt=null&present=p"),
        (.init { "none" }, "absent=none&absentInt=none&present=p"),
    ])
    func nilEncodings(encoding: URLEncodedFormEncoder.NilEncoding, expected: String) throws {
        #expect(try encode(Optionals(present: "p", absent: nil, absentInt: nil), URLEncodedFormEncoder(nilEncoding: encoding)) == expected)
    }

    @Test("space encodings", arguments: [
        (URLEncodedFormEncoder.SpaceEncoding.percentEscaped, "a%20b=c%20d"),
        (.plusReplaced, "a+b=c+d"),
    ])
    func spaceEncodings(encoding: URLEncodedFormEncoder.SpaceEncoding, expected: String) throws {
        #expect(try encode(["a b": "c d"], URLEncodedFormEncoder(spaceEncoding: encoding)) == expected)
    }

    @Test("reserved and non-ASCII characters are percent-encoded as UTF-8")
    func escaping() throws {
        #expect(try encode(["k": "&=?/:#[]@!$'()*+,;é~-._"]) == "k=%26%3D?/%3A%23%5B%5D%40%21%24%27%28%29%2A%2B%2C%3B%C3%A9~-._")
    }

    @Test("allowedCharacters can be changed after creation")
    func allowedCharactersMutable() throws {
        let encoder = URLEncodedFormEncoder()
        encoder.allowedCharacters = .afURLQueryAllowed.union(CharacterSet(charactersIn: ":"))
        #expect(try encode(["k": "a:b"], encoder) == "k=a:b")
    }

    @Test("numbers, URLs and decimals are written as text")
    func scalars() throws {
        let value: [String: String] = try [
            "i": encode(["v": -3]), "d": encode(["v": 1.25]), "u": encode(["v": URL(string: "http://a/b")!]),
            "dec": encode(["v": Decimal(string: "12.5")!]),
        ]
        #expect(value == ["i": "v=-3", "d": "v=1.25", "u": "v=http%3A//a/b", "dec": "v=12.5"])
    }

    @Test("empty object encodes to an empty string")
    func emptyObject() throws {
        #expect(try encode([String: Int]()) == "")
        #expect(try encode(Optionals(present: nil, absent: nil, absentInt: nil)) == "")
    }

    @Test("non-keyed top-level values are rejected", arguments: [0, 1, 2])
    func invalidRoot(kind: Int) {
        #expect(throws: URLEncodedFormEncoder.Error.self) {
            switch kind {
            case 0: _ = try encode([1, 2])
            case 1: _ = try encode("string")
            default: _ = try encode(7)
            }
        }
    }

    @Test("errors thrown by the value propagate")
    func valueErrors() {
        #expect(throws: Throwing.Failure.self) { try encode(["x": Throwing()]) }
    }

    @Test("Data output is the UTF-8 of the String output")
    func dataOutput() throws {
        let data: Data = try URLEncodedFormEncoder().encode(Simple(name: "é", count: 1))
        #expect(data == Data("count=1&name=%C3%A9".utf8))
    }
}
