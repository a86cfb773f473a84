// Alamofire's ServerTrustManager and ServerTrustEvaluating, run by Lariat's TLS layer *during*
// the handshake: the evaluator decides after the server's certificate (and stapled OCSP) arrive
// and before the client's Finished, so a refused server never receives a request byte.

import FoundationEssentials
import TLS

/// Decides whether a server is trusted. Called on the connection's event loop during the TLS
/// handshake; throw (ideally an `AFError.serverTrustEvaluationFailed`) to refuse the server.
public protocol ServerTrustEvaluating: Sendable {
    /// Evaluates the server's trust.
    ///
    /// - Parameters:
    ///   - trust: the presented chain and the TLS module's evaluation primitives.
    ///   - host: the host being connected to.
    /// - Throws: any error to refuse the server; it reaches the request as
    ///   `AFError.serverTrustEvaluationFailed` (other errors wrapped in `.customEvaluationFailed`).
    func evaluate(_ trust: SecTrust, forHost host: String) throws
}

/// The per-host evaluators of a ``Session``.
///
/// `open`, as in Alamofire: subclass it and override ``serverTrustEvaluator(forHost:)`` for
/// lookups other than exact host names (wildcards, suffixes), or pass `evaluatorForHost:`.
///
/// `@unchecked Sendable` because Swift 6 lets a non-final class be `Sendable` only unchecked.
/// What makes it safe: every stored property here is a `let` of a `Sendable` type, so this class
/// has no mutable state; a subclass that adds mutable state must guard it itself (for example
/// with a `Mutex`), since ``serverTrustEvaluator(forHost:)`` runs on connection threads.
open class ServerTrustManager: @unchecked Sendable {
    /// Whether a host without an evaluator is refused (`true`) or gets the default evaluation.
    public let allHostsMustBeEvaluated: Bool
    /// The evaluators, keyed by exact host name (or IP literal).
    public let evaluators: [String: any ServerTrustEvaluating]
    private let lookup: (@Sendable (String) -> (any ServerTrustEvaluating)?)?

    /// Creates a manager with evaluators for exact host names.
    ///
    /// - Parameters:
    ///   - allHostsMustBeEvaluated: refuse hosts with no evaluator; `true` by default.
    ///   - evaluators: host name to evaluator.
    public init(allHostsMustBeEvaluated: Bool = true, evaluators: [String: any ServerTrustEvaluating]) {
        self.allHostsMustBeEvaluated = allHostsMustBeEvaluated
        self.evaluators = evaluators
        self.lookup = nil
    }

    /// Creates a manager whose evaluator lookup is a function, consulted when `evaluators` has no
    /// entry for the host (the subclass-and-override pattern of Alamofire, as a closure).
    ///
    /// - Parameters:
    ///   - allHostsMustBeEvaluated: refuse hosts for which both return nothing; `true` by default.
    ///   - evaluators: host name to evaluator, consulted first; empty by default.
    ///   - evaluatorForHost: the fallback lookup.
    public init(
        allHostsMustBeEvaluated: Bool = true, evaluators: [String: any ServerTrustEvaluating] = [:],
        evaluatorForHost: @escaping @Sendable (String) -> (any ServerTrustEvaluating)?
    ) {
        self.allHostsMustBeEvaluated = allHostsMustBeEvaluated
        self.evaluators = evaluators
        self.lookup = evaluatorForHost
    }

    /// The evaluator for `host`. Override to choose evaluators another way; called on the
    /// connection's event loop for each TLS connection, so keep it quick and thread-safe.
    ///
    /// - Parameter host: the host name or IP literal.
    /// - Returns: the evaluator, or `nil` for the default evaluation.
    /// - Throws: `AFError.serverTrustEvaluationFailed(reason: .noRequiredEvaluator(host:))` when
    ///   ``allHostsMustBeEvaluated`` and there is no evaluator.
    open func serverTrustEvaluator(forHost host: String) throws -> (any ServerTrustEvaluating)? {
        if let evaluator = evaluators[host] ?? lookup?(host) { return evaluator }
        guard allHostsMustBeEvaluated else { return nil }
        throw AFError.serverTrustEvaluationFailed(reason: .noRequiredEvaluator(host: host))
    }

    /// The TLS-level evaluator for `host`: runs the host's evaluator on a ``SecTrust`` during the
    /// handshake, and turns what it throws into an `AFError`. `nil` means default evaluation.
    func tlsEvaluator(forHost host: String) -> TrustEvaluator? {
        let evaluator: any ServerTrustEvaluating
        do {
            guard let found = try serverTrustEvaluator(forHost: host) else { return nil }
            evaluator = found
        } catch {
            // Refuse in the handshake, so the refusal takes the same path as any other.
            return { _ in throw error }
        }
        return { context in
            do {
                try evaluator.evaluate(SecTrust(context: context), forHost: host)
            } catch let error as AFError where error.isServerTrustEvaluationError {
                throw error
            } catch {
                throw AFError.serverTrustEvaluationFailed(reason: .customEvaluationFailed(error: error))
            }
        }
    }
}
