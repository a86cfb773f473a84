// Substring search without the regex engine.
//
// `firstRange(of:)`, `contains(_:)` with a String argument and `replacing(_:with:)` come from
// _StringProcessing, the standard library's regex engine: one call links all of it (about
// 1.3 MB of the container fetch, scripts/build-container-fetch.sh). Client and fetch search
// short, ASCII literals ("://", "filename=", "no-cache"), so a plain Character-by-Character scan
// with the same results is all they need.

extension StringProtocol {
    /// The range of the first occurrence of `needle`, compared Character by Character as
    /// `firstRange(of:)` does; an empty needle is found at `startIndex`.
    ///
    /// - Parameter needle: The text to find.
    /// - Returns: Its range in `self`, or nil when it does not occur.
    package func firstOccurrence(of needle: some StringProtocol) -> Range<Index>? {
        guard let first = needle.first else { return startIndex..<startIndex }
        var start = startIndex
        while let candidate = self[start...].firstIndex(of: first) {
            var here = candidate
            var matched = true
            for character in needle {
                guard here != endIndex, self[here] == character else { matched = false; break }
                here = index(after: here)
            }
            if matched { return candidate..<here }
            start = index(after: candidate)
        }
        return nil
    }

    /// Whether `needle` occurs in `self` (``firstOccurrence(of:)`` is not nil).
    ///
    /// - Parameter needle: The text to find.
    /// - Returns: true when it occurs (an empty needle always does).
    package func containsText(_ needle: some StringProtocol) -> Bool {
        firstOccurrence(of: needle) != nil
    }
}
