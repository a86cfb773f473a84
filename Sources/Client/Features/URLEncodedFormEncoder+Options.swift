#if FullFoundation
public import Foundation
#else
public import FoundationEssentials
#endif

extension URLEncodedFormEncoder {
    /// How array elements are named.
    public enum ArrayEncoding: Sendable {
        /// `key[]=1&key[]=2` (the default).
        case brackets
        /// `key=1&key=2`.
        case noBrackets
        /// `key[0]=1&key[1]=2`, as jQuery and Node.js's `qs` write them.
        case indexInBrackets
        /// Names each element with a closure of the key and the element's index.
        case custom(@Sendable (_ key: String, _ index: Int) -> String)

        /// Returns the name for element `index` of the array under `key`.
        func encode(_ key: String, atIndex index: Int) -> String {
            switch self {
            case .brackets: "\(key)[]"
            case .noBrackets: key
            case .indexInBrackets: "\(key)[\(index)]"
            case let .custom(encoding): encoding(key, index)
            }
        }
    }

    /// How `Bool` values are written.
    public enum BoolEncoding: Sendable {
        /// `1` and `0` (the default).
        case numeric
        /// `true` and `false`.
        case literal

        /// Returns the text for `value`.
        func encode(_ value: Bool) -> String {
            switch self {
            case .numeric: value ? "1" : "0"
            case .literal: value ? "true" : "false"
            }
        }
    }

    /// How `Data` values are written.
    public enum DataEncoding: Sendable {
        /// Uses `Data`'s own `Encodable` implementation: an array of byte values.
        case deferredToData
        /// Base64 text (RFC 4648 §4, with padding) (the default).
        case base64
        /// Writes the text a closure returns; the closure may throw to fail the encoding.
        case custom(@Sendable (Data) throws -> String)

        /// Returns the text for `data`, or `nil` to use `Data`'s `Encodable` implementation.
        func encode(_ data: Data) throws -> String? {
            switch self {
            case .deferredToData: nil
            case .base64: data.base64EncodedString()
            case let .custom(encoding): try encoding(data)
            }
        }
    }

    /// How `Date` values are written.
    public enum DateEncoding: Sendable {
        /// Uses `Date`'s own `Encodable` implementation: seconds since 2001-01-01 (the default).
        case deferredToDate
        /// Seconds since 1970-01-01T00:00:00Z, as a `Double`, for example `1.5`.
        case secondsSince1970
        /// Milliseconds since 1970-01-01T00:00:00Z, as a `Double`, for example `1500.0`.
        case millisecondsSince1970
        /// ISO 8601 / RFC 3339 internet date-time in UTC, for example `2001-01-01T00:00:00Z`.
        case iso8601
        #if FullFoundation
        /// Text from a `DateFormatter` (available with the `FullFoundation` trait only).
        case formatted(DateFormatter)
        #endif
        /// Writes the text a closure returns; the closure may throw to fail the encoding.
        case custom(@Sendable (Date) throws -> String)

        /// Returns the text for `date`, or `nil` to use `Date`'s `Encodable` implementation.
        func encode(_ date: Date) throws -> String? {
            switch self {
            case .deferredToDate: return nil
            case .secondsSince1970: return String(date.timeIntervalSince1970)
            case .millisecondsSince1970: return String(date.timeIntervalSince1970 * 1000)
            case .iso8601: return date.formatted(Date.ISO8601FormatStyle())
            #if FullFoundation
            case let .formatted(formatter): return formatter.string(from: date)
            #endif
            case let .custom(encoding): return try encoding(date)
            }
        }
    }

    /// How keys are written. Applied to every key of every nested object, before ``KeyPathEncoding``
    /// joins them.
    public enum KeyEncoding: Sendable {
        /// Keys as the type declares them (the default).
        case useDefaultKeys
        /// `oneTwoThree` → `one_two_three`; `myURLValue` → `my_url_value`.
        ///
        /// A word starts at an upper-case letter that follows a non-upper-case character, and at
        /// the last upper-case letter of a run followed by a lower-case one. Words are lower-cased.
        case convertToSnakeCase
        /// Like ``convertToSnakeCase`` with `-`: `oneTwoThree` → `one-two-three`.
        case convertToKebabCase
        /// Upper-cases the first letter: `oneTwoThree` → `OneTwoThree`.
        case capitalized
        /// Upper-cases every letter: `oneTwoThree` → `ONETWOTHREE`.
        case uppercased
        /// Lower-cases every letter: `oneTwoThree` → `onetwothree`.
        case lowercased
        /// Writes the key a closure returns.
        case custom(@Sendable (String) -> String)

        /// Returns the written form of `key`.
        func encode(_ key: String) -> String {
            switch self {
            case .useDefaultKeys: key
            case .convertToSnakeCase: Self.words(of: key).joined(separator: "_").lowercased()
            case .convertToKebabCase: Self.words(of: key).joined(separator: "-").lowercased()
            case .capitalized: key.prefix(1).uppercased() + key.dropFirst()
            case .uppercased: key.uppercased()
            case .lowercased: key.lowercased()
            case let .custom(encoding): encoding(key)
            }
        }

        /// Splits a camel-case key into words (see ``convertToSnakeCase``).
        static func words(of key: String) -> [String] {
            let characters = Array(key)
            var words: [String] = []
            var current = ""
            for index in characters.indices {
                let character = characters[index]
                if character.isUppercase, !current.isEmpty {
                    let previousIsUpper = characters[index - 1].isUppercase
                    let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                    if !previousIsUpper || nextIsLower {
                        words.append(current)
                        current = ""
                    }
                }
                current.append(character)
            }
            if !current.isEmpty { words.append(current) }
            return words
        }
    }

    /// How the keys of nested objects are appended to their parent's key.
    public struct KeyPathEncoding: Sendable {
        /// `parent[child][grandchild]` (the default).
        public static let brackets = KeyPathEncoding { "[\($0)]" }
        /// `parent.child.grandchild`.
        public static let dots = KeyPathEncoding { ".\($0)" }

        private let encoding: @Sendable (_ subkey: String) -> String

        /// Creates an encoding from a closure that returns the text appended for each nested key.
        ///
        /// - Parameter encoding: Maps a nested key to its suffix, for example `"[\(subkey)]"`.
        public init(encoding: @escaping @Sendable (_ subkey: String) -> String) {
            self.encoding = encoding
        }

        /// Returns the suffix appended to the parent key for `subkey`.
        func encodeKeyPath(_ subkey: String) -> String {
            encoding(subkey)
        }
    }

    /// How `nil` values are written.
    public struct NilEncoding: Sendable {
        /// Leaves the key out entirely (the default).
        public static let dropKey = NilEncoding { nil }
        /// Writes the key with an empty value: `key=`.
        public static let dropValue = NilEncoding { "" }
        /// Writes `key=null`.
        public static let null = NilEncoding { "null" }

        private let encoding: @Sendable () -> String?

        /// Creates an encoding from a closure that returns the text for `nil`, or `nil` to drop the key.
        ///
        /// - Parameter encoding: The closure.
        public init(encoding: @escaping @Sendable () -> String?) {
            self.encoding = encoding
        }

        /// Returns the text for `nil`, or `nil` to drop the key.
        func encodeNil() -> String? {
            encoding()
        }
    }

    /// How spaces are written.
    public enum SpaceEncoding: Sendable {
        /// `%20` (the default).
        case percentEscaped
        /// `+`, as HTML forms do (`application/x-www-form-urlencoded`).
        case plusReplaced

        /// The bytes a space becomes.
        var replacement: String {
            switch self {
            case .percentEscaped: "%20"
            case .plusReplaced: "+"
            }
        }
    }

    /// Errors thrown by ``URLEncodedFormEncoder``.
    public enum Error: Swift.Error, Sendable, LocalizedError {
        /// The top-level value did not encode as a keyed object (a struct, class or dictionary);
        /// the associated text describes what it encoded as.
        case invalidRootObject(String)

        /// A description of the failure.
        public var errorDescription: String? {
            switch self {
            case let .invalidRootObject(object):
                "URLEncodedFormEncoder needs a keyed top-level value, but got \(object)."
            }
        }
    }
}
