// An InputStream is what a streamed upload hands the transport (`upload(_ stream:)`, multipart
// bodies): Foundation's with the FullFoundation trait, Client's stand-in without. Both already
// have `open()`, `read(_:maxLength:)` and `close()` with the transport's meaning.
#if FullFoundation
import Foundation
#else
import FoundationEssentials
#endif
import Transport

extension InputStream: BodySource {}
