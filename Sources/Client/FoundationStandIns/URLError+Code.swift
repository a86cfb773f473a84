// URLError.Code's values, compiled only without the FullFoundation trait.
#if !FullFoundation
extension URLError {
    /// A URL loading error code, with the same raw values as Foundation's `URLError.Code`.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The numeric code, for example `-1001`.
        public let rawValue: Int

        /// Creates a code from its numeric value.
        ///
        /// - Parameter rawValue: The numeric code; any value is accepted.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// The reason is unknown. (`-1`)
        public static let unknown = Code(rawValue: -1)

        /// The request was cancelled. (`-999`)
        public static let cancelled = Code(rawValue: -999)

        /// The URL is malformed. (`-1000`)
        public static let badURL = Code(rawValue: -1000)

        /// The request timed out. (`-1001`)
        public static let timedOut = Code(rawValue: -1001)

        /// The URL's scheme is not supported. (`-1002`)
        public static let unsupportedURL = Code(rawValue: -1002)

        /// The host name could not be resolved. (`-1003`)
        public static let cannotFindHost = Code(rawValue: -1003)

        /// The connection to the host failed. (`-1004`)
        public static let cannotConnectToHost = Code(rawValue: -1004)

        /// The connection was lost during the transfer. (`-1005`)
        public static let networkConnectionLost = Code(rawValue: -1005)

        /// The DNS lookup failed. (`-1006`)
        public static let dnsLookupFailed = Code(rawValue: -1006)

        /// The redirect limit was exceeded. (`-1007`)
        public static let httpTooManyRedirects = Code(rawValue: -1007)

        /// The resource could not be retrieved. (`-1008`)
        public static let resourceUnavailable = Code(rawValue: -1008)

        /// No network connection is available. (`-1009`)
        public static let notConnectedToInternet = Code(rawValue: -1009)

        /// A redirect pointed nowhere. (`-1010`)
        public static let redirectToNonExistentLocation = Code(rawValue: -1010)

        /// The server's response was not valid. (`-1011`)
        public static let badServerResponse = Code(rawValue: -1011)

        /// The user cancelled an authentication request. (`-1012`)
        public static let userCancelledAuthentication = Code(rawValue: -1012)

        /// Authentication is required. (`-1013`)
        public static let userAuthenticationRequired = Code(rawValue: -1013)

        /// The resource had no data. (`-1014`)
        public static let zeroByteResource = Code(rawValue: -1014)

        /// The content could not be decoded. (`-1015`)
        public static let cannotDecodeRawData = Code(rawValue: -1015)

        /// The content coding could not be decoded. (`-1016`)
        public static let cannotDecodeContentData = Code(rawValue: -1016)

        /// The response could not be parsed. (`-1017`)
        public static let cannotParseResponse = Code(rawValue: -1017)

        /// International roaming is off. (`-1018`)
        public static let internationalRoamingOff = Code(rawValue: -1018)

        /// A call is active. (`-1019`)
        public static let callIsActive = Code(rawValue: -1019)

        /// Cellular data is not allowed. (`-1020`)
        public static let dataNotAllowed = Code(rawValue: -1020)

        /// The request body stream ran out and could not be rewound. (`-1021`)
        public static let requestBodyStreamExhausted = Code(rawValue: -1021)

        /// A secure connection is required by policy. (`-1022`)
        public static let appTransportSecurityRequiresSecureConnection = Code(rawValue: -1022)

        /// The file does not exist. (`-1100`)
        public static let fileDoesNotExist = Code(rawValue: -1100)

        /// The file is a directory. (`-1101`)
        public static let fileIsDirectory = Code(rawValue: -1101)

        /// The file cannot be read. (`-1102`)
        public static let noPermissionsToReadFile = Code(rawValue: -1102)

        /// The data exceeds the maximum length. (`-1103`)
        public static let dataLengthExceedsMaximum = Code(rawValue: -1103)

        /// The TLS connection failed. (`-1200`)
        public static let secureConnectionFailed = Code(rawValue: -1200)

        /// The server certificate has expired. (`-1201`)
        public static let serverCertificateHasBadDate = Code(rawValue: -1201)

        /// The server certificate is not trusted. (`-1202`)
        public static let serverCertificateUntrusted = Code(rawValue: -1202)

        /// The server certificate chains to an unknown root. (`-1203`)
        public static let serverCertificateHasUnknownRoot = Code(rawValue: -1203)

        /// The server certificate is not yet valid. (`-1204`)
        public static let serverCertificateNotYetValid = Code(rawValue: -1204)

        /// The server rejected the client certificate. (`-1205`)
        public static let clientCertificateRejected = Code(rawValue: -1205)

        /// The server requires a client certificate. (`-1206`)
        public static let clientCertificateRequired = Code(rawValue: -1206)

        /// The load must not use the network. (`-2000`)
        public static let cannotLoadFromNetwork = Code(rawValue: -2000)

        /// A download file could not be created. (`-3000`)
        public static let cannotCreateFile = Code(rawValue: -3000)

        /// A download file could not be opened. (`-3001`)
        public static let cannotOpenFile = Code(rawValue: -3001)

        /// A download file could not be closed. (`-3002`)
        public static let cannotCloseFile = Code(rawValue: -3002)

        /// A download file could not be written. (`-3003`)
        public static let cannotWriteToFile = Code(rawValue: -3003)

        /// A download file could not be removed. (`-3004`)
        public static let cannotRemoveFile = Code(rawValue: -3004)

        /// A download file could not be moved. (`-3005`)
        public static let cannotMoveFile = Code(rawValue: -3005)

        /// A download failed to decode partway. (`-3006`)
        public static let downloadDecodingFailedMidStream = Code(rawValue: -3006)

        /// A download failed to finish decoding. (`-3007`)
        public static let downloadDecodingFailedToComplete = Code(rawValue: -3007)

        /// A background session needs a shared container. (`-995`)
        public static let backgroundSessionRequiresSharedContainer = Code(rawValue: -995)

        /// The background session is in use by another process. (`-996`)
        public static let backgroundSessionInUseByAnotherProcess = Code(rawValue: -996)

        /// The background session was disconnected. (`-997`)
        public static let backgroundSessionWasDisconnected = Code(rawValue: -997)
    }
}

extension URLError {
    /// ``Code/unknown``, for `catch URLError.unknown`.
    public static var unknown: Code { .unknown }
    /// ``Code/cancelled``, for `catch URLError.cancelled`.
    public static var cancelled: Code { .cancelled }
    /// ``Code/badURL``, for `catch URLError.badURL`.
    public static var badURL: Code { .badURL }
    /// ``Code/timedOut``, for `catch URLError.timedOut`.
    public static var timedOut: Code { .timedOut }
    /// ``Code/unsupportedURL``, for `catch URLError.unsupportedURL`.
    public static var unsupportedURL: Code { .unsupportedURL }
    /// ``Code/cannotFindHost``, for `catch URLError.cannotFindHost`.
    public static var cannotFindHost: Code { .cannotFindHost }
    /// ``Code/cannotConnectToHost``, for `catch URLError.cannotConnectToHost`.
    public static var cannotConnectToHost: Code { .cannotConnectToHost }
    /// ``Code/networkConnectionLost``, for `catch URLError.networkConnectionLost`.
    public static var networkConnectionLost: Code { .networkConnectionLost }
    /// ``Code/dnsLookupFailed``, for `catch URLError.dnsLookupFailed`.
    public static var dnsLookupFailed: Code { .dnsLookupFailed }
    /// ``Code/httpTooManyRedirects``, for `catch URLError.httpTooManyRedirects`.
    public static var httpTooManyRedirects: Code { .httpTooManyRedirects }
    /// ``Code/resourceUnavailable``, for `catch URLError.resourceUnavailable`.
    public static var resourceUnavailable: Code { .resourceUnavailable }
    /// ``Code/notConnectedToInternet``, for `catch URLError.notConnectedToInternet`.
    public static var notConnectedToInternet: Code { .notConnectedToInternet }
    /// ``Code/redirectToNonExistentLocation``, for `catch URLError.redirectToNonExistentLocation`.
    public static var redirectToNonExistentLocation: Code { .redirectToNonExistentLocation }
    /// ``Code/badServerResponse``, for `catch URLError.badServerResponse`.
    public static var badServerResponse: Code { .badServerResponse }
    /// ``Code/userCancelledAuthentication``, for `catch URLError.userCancelledAuthentication`.
    public static var userCancelledAuthentication: Code { .userCancelledAuthentication }
    /// ``Code/userAuthenticationRequired``, for `catch URLError.userAuthenticationRequired`.
    public static var userAuthenticationRequired: Code { .userAuthenticationRequired }
    /// ``Code/zeroByteResource``, for `catch URLError.zeroByteResource`.
    public static var zeroByteResource: Code { .zeroByteResource }
    /// ``Code/cannotDecodeRawData``, for `catch URLError.cannotDecodeRawData`.
    public static var cannotDecodeRawData: Code { .cannotDecodeRawData }
    /// ``Code/cannotDecodeContentData``, for `catch URLError.cannotDecodeContentData`.
    public static var cannotDecodeContentData: Code { .cannotDecodeContentData }
    /// ``Code/cannotParseResponse``, for `catch URLError.cannotParseResponse`.
    public static var cannotParseResponse: Code { .cannotParseResponse }
    /// ``Code/internationalRoamingOff``, for `catch URLError.internationalRoamingOff`.
    public static var internationalRoamingOff: Code { .internationalRoamingOff }
    /// ``Code/callIsActive``, for `catch URLError.callIsActive`.
    public static var callIsActive: Code { .callIsActive }
    /// ``Code/dataNotAllowed``, for `catch URLError.dataNotAllowed`.
    public static var dataNotAllowed: Code { .dataNotAllowed }
    /// ``Code/requestBodyStreamExhausted``, for `catch URLError.requestBodyStreamExhausted`.
    public static var requestBodyStreamExhausted: Code { .requestBodyStreamExhausted }
    /// ``Code/appTransportSecurityRequiresSecureConnection``, for `catch URLError.appTransportSecurityRequiresSecureConnection`.
    public static var appTransportSecurityRequiresSecureConnection: Code { .appTransportSecurityRequiresSecureConnection }
    /// ``Code/fileDoesNotExist``, for `catch URLError.fileDoesNotExist`.
    public static var fileDoesNotExist: Code { .fileDoesNotExist }
    /// ``Code/fileIsDirectory``, for `catch URLError.fileIsDirectory`.
    public static var fileIsDirectory: Code { .fileIsDirectory }
    /// ``Code/noPermissionsToReadFile``, for `catch URLError.noPermissionsToReadFile`.
    public static var noPermissionsToReadFile: Code { .noPermissionsToReadFile }
    /// ``Code/dataLengthExceedsMaximum``, for `catch URLError.dataLengthExceedsMaximum`.
    public static var dataLengthExceedsMaximum: Code { .dataLengthExceedsMaximum }
    /// ``Code/secureConnectionFailed``, for `catch URLError.secureConnectionFailed`.
    public static var secureConnectionFailed: Code { .secureConnectionFailed }
    /// ``Code/serverCertificateHasBadDate``, for `catch URLError.serverCertificateHasBadDate`.
    public static var serverCertificateHasBadDate: Code { .serverCertificateHasBadDate }
    /// ``Code/serverCertificateUntrusted``, for `catch URLError.serverCertificateUntrusted`.
    public static var serverCertificateUntrusted: Code { .serverCertificateUntrusted }
    /// ``Code/serverCertificateHasUnknownRoot``, for `catch URLError.serverCertificateHasUnknownRoot`.
    public static var serverCertificateHasUnknownRoot: Code { .serverCertificateHasUnknownRoot }
    /// ``Code/serverCertificateNotYetValid``, for `catch URLError.serverCertificateNotYetValid`.
    public static var serverCertificateNotYetValid: Code { .serverCertificateNotYetValid }
    /// ``Code/clientCertificateRejected``, for `catch URLError.clientCertificateRejected`.
    public static var clientCertificateRejected: Code { .clientCertificateRejected }
    /// ``Code/clientCertificateRequired``, for `catch URLError.clientCertificateRequired`.
    public static var clientCertificateRequired: Code { .clientCertificateRequired }
    /// ``Code/cannotLoadFromNetwork``, for `catch URLError.cannotLoadFromNetwork`.
    public static var cannotLoadFromNetwork: Code { .cannotLoadFromNetwork }
    /// ``Code/cannotCreateFile``, for `catch URLError.cannotCreateFile`.
    public static var cannotCreateFile: Code { .cannotCreateFile }
    /// ``Code/cannotOpenFile``, for `catch URLError.cannotOpenFile`.
    public static var cannotOpenFile: Code { .cannotOpenFile }
    /// ``Code/cannotCloseFile``, for `catch URLError.cannotCloseFile`.
    public static var cannotCloseFile: Code { .cannotCloseFile }
    /// ``Code/cannotWriteToFile``, for `catch URLError.cannotWriteToFile`.
    public static var cannotWriteToFile: Code { .cannotWriteToFile }
    /// ``Code/cannotRemoveFile``, for `catch URLError.cannotRemoveFile`.
    public static var cannotRemoveFile: Code { .cannotRemoveFile }
    /// ``Code/cannotMoveFile``, for `catch URLError.cannotMoveFile`.
    public static var cannotMoveFile: Code { .cannotMoveFile }
    /// ``Code/downloadDecodingFailedMidStream``, for `catch URLError.downloadDecodingFailedMidStream`.
    public static var downloadDecodingFailedMidStream: Code { .downloadDecodingFailedMidStream }
    /// ``Code/downloadDecodingFailedToComplete``, for `catch URLError.downloadDecodingFailedToComplete`.
    public static var downloadDecodingFailedToComplete: Code { .downloadDecodingFailedToComplete }
    /// ``Code/backgroundSessionRequiresSharedContainer``, for `catch URLError.backgroundSessionRequiresSharedContainer`.
    public static var backgroundSessionRequiresSharedContainer: Code { .backgroundSessionRequiresSharedContainer }
    /// ``Code/backgroundSessionInUseByAnotherProcess``, for `catch URLError.backgroundSessionInUseByAnotherProcess`.
    public static var backgroundSessionInUseByAnotherProcess: Code { .backgroundSessionInUseByAnotherProcess }
    /// ``Code/backgroundSessionWasDisconnected``, for `catch URLError.backgroundSessionWasDisconnected`.
    public static var backgroundSessionWasDisconnected: Code { .backgroundSessionWasDisconnected }
}
#endif
