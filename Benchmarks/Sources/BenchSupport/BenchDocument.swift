// Codable model of scripts/fixtures/bench.json, the ~2 KiB document of the `json` workload.
//
// Every peer decodes into these same types with its client's usual JSONDecoder path, so the
// decoding work is identical and only the transport and body hand-off differ.

/// The benchmark JSON document (`/doc.json` on the benchmark nginx).
public struct BenchDocument: Codable, Sendable, Equatable {
    /// A catalogue owner.
    public struct Owner: Codable, Sendable, Equatable {
        /// Numeric id.
        public var id: Int
        /// Login name.
        public var login: String
        /// Contact address.
        public var email: String
        /// Whether the owner is verified.
        public var verified: Bool
    }

    /// Physical size of an item.
    public struct Dimensions: Codable, Sendable, Equatable {
        /// Width in metres.
        public var width: Double
        /// Height in metres.
        public var height: Double
        /// Depth in metres.
        public var depth: Double
    }

    /// One catalogue entry.
    public struct Item: Codable, Sendable, Equatable {
        /// Numeric id.
        public var id: Int
        /// Stock-keeping unit.
        public var sku: String
        /// Display title.
        public var title: String
        /// Unit price.
        public var price: Double
        /// Units in stock.
        public var quantity: Int
        /// Whether the item can be ordered.
        public var available: Bool
        /// Physical size.
        public var dimensions: Dimensions
    }

    /// Document id (a UUID string, kept as text so no decoder strategy is involved).
    public var id: String
    /// Catalogue name.
    public var name: String
    /// Schema version.
    public var version: Int
    /// Last update, ISO 8601 text (kept as text for the same reason as ``id``).
    public var updatedAt: String
    /// Whether the catalogue is live.
    public var active: Bool
    /// Average rating.
    public var rating: Double
    /// Free-form tags.
    public var tags: [String]
    /// The owner.
    public var owner: Owner
    /// The entries.
    public var items: [Item]

    /// Checks that a decoded document is the fixture's, so a peer cannot "decode" garbage.
    /// - Returns: true when the item count, the quantity total and the owner match the fixture.
    public var matchesFixture: Bool {
        items.count == 10
            && items.reduce(0) { $0 + $1.quantity } == 70
            && owner.id == 42
            && tags.count == 5
    }
}
