// The per-attempt lists a request keeps (its URLRequests and its tasks). Nearly every request
// makes one attempt, so the list stores its last element inline and only earlier ones in an
// array: recording the first attempt allocates nothing, where an `Array` would allocate its
// buffer. The public `Request.requests`/`tasks` build their array when read.

/// An append-only list whose last element is stored inline.
struct AttemptList<Element: Sendable>: Sendable {
    /// Every element before the last, oldest first.
    private var earlier: [Element] = []
    /// The last element appended.
    private(set) var last: Element?

    /// Appends `element`; the previous last moves into the array.
    mutating func append(_ element: Element) {
        if let last { earlier.append(last) }
        last = element
    }

    /// The first element appended.
    var first: Element? { earlier.first ?? last }

    /// Whether nothing was appended.
    var isEmpty: Bool { last == nil }

    /// Calls `body` with every element, oldest first (no array made).
    func forEach(_ body: (Element) -> Void) {
        for element in earlier { body(element) }
        if let last { body(last) }
    }

    /// Every element, oldest first (a new array when read).
    var all: [Element] {
        guard let last else { return [] }
        return earlier + [last]
    }
}
