// Foundation gives every Error a `localizedDescription`; FoundationEssentials does not. Code written
// for Alamofire calls it constantly (`print(error.localizedDescription)`), so without the
// FullFoundation trait Client provides it.
#if !FullFoundation
import FoundationEssentials

extension Error {
    /// A description of the error for people: `errorDescription` when the error is a
    /// `LocalizedError` that provides one, otherwise `String(describing:)`.
    public var localizedDescription: String {
        if let localized = self as? any LocalizedError, let text = localized.errorDescription {
            return text
        }
        return String(describing: self)
    }
}
#endif
