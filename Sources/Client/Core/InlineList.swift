// A short list whose first element is stored inline: a request's response handlers, nearly
// always one (`responseData`, `serializingData`…). Appending that one allocates nothing, where
// an `Array` would allocate its buffer (one malloc per request, measured by Benchmarks/).

/// A list whose first element is stored inline and the others in an array, in order.
struct InlineList<Element>: ExpressibleByArrayLiteral {
    /// The first element, if any.
    private var first: Element?
    /// Every element after the first.
    private var rest: [Element] = []

    /// An empty list.
    init() {}

    /// A list of `elements`, in order.
    init(arrayLiteral elements: Element...) {
        for element in elements { append(element) }
    }

    /// The number of elements.
    var count: Int { first == nil ? 0 : 1 + rest.count }

    /// Whether the list is empty.
    var isEmpty: Bool { first == nil }

    /// The element at `index` (0 is the first); traps when out of range, as an array does.
    subscript(index: Int) -> Element {
        guard index > 0 else {
            guard index == 0, let first else { preconditionFailure("InlineList index \(index) out of range") }
            return first
        }
        return rest[index - 1]
    }

    /// Appends `element` at the end.
    mutating func append(_ element: Element) {
        if first == nil { first = element } else { rest.append(element) }
    }
}

extension InlineList: Sendable where Element: Sendable {}
