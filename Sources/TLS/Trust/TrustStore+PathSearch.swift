internal import COpenSSL

extension TrustStore {
    /// The most issuer signatures the path search verifies for one evaluation, as in Go and
    /// rustls-webpki (100 each). Each candidate path that reaches an anchor is then verified by
    /// OpenSSL in full, at most ``pathSearchCandidateBudget`` times.
    static let pathSearchSignatureBudget = 100
    /// The most complete candidate paths handed to OpenSSL for one evaluation.
    static let pathSearchCandidateBudget = 8

    /// A path that reached an anchor: the intermediates in order from the leaf's issuer, and the anchor.
    struct CandidatePath {
        let intermediates: [Certificate]
        let anchor: Certificate
    }

    /// Every path from `leaf` to an anchor of this store through `pool`, depth first in the
    /// order the peer sent its certificates, found by name and verified signature, within
    /// ``pathSearchSignatureBudget`` signature checks and ``pathSearchCandidateBudget`` paths.
    ///
    /// OpenSSL builds one path (the first issuer that fits at each step) and does not backtrack:
    /// a root the peer also sent, a cross-signed twin, or an intermediate a name constraint
    /// refuses sends it into a dead end while another path to an anchor exists
    /// (x509-limbo's `root-and-intermediate-swapped`, `nc-forbids-*-chain-ica`, CVE-2024-0567).
    func candidatePaths(leaf: Certificate, pool: [Certificate], maximumLength: Int) -> [CandidatePath] {
        let anchors = TrustStore.certificates(owning: X509_STORE_get1_all_certs(store))
        var search = PathSearch(anchors: anchors, pool: pool, maximumLength: maximumLength)
        search.extend([leaf])
        _ = OpenSSLError.drain()
        return search.found
    }
}

/// The depth-first search of ``TrustStore/candidatePaths(leaf:pool:maximumLength:)``.
private struct PathSearch {
    let anchors: [Certificate]
    let maximumLength: Int
    var signatures = TrustStore.pathSearchSignatureBudget
    var found: [TrustStore.CandidatePath] = []

    /// The pool's certificates by `X509_subject_name_hash`, so that each step looks only at those
    /// whose subject can be the issuer (thousands of unrelated certificates stay cheap).
    let poolBySubject: [UInt: [Certificate]]

    init(anchors: [Certificate], pool: [Certificate], maximumLength: Int) {
        self.anchors = anchors
        self.poolBySubject = Dictionary(grouping: pool) { X509_subject_name_hash($0.x509) }
        self.maximumLength = maximumLength
    }

    private var exhausted: Bool { signatures <= 0 || found.count >= TrustStore.pathSearchCandidateBudget }

    /// `path` is leaf first; tries every issuer of its last certificate.
    mutating func extend(_ path: [Certificate]) {
        guard let current = path.last, !exhausted, path.count <= maximumLength + 1 else { return }
        for anchor in anchors where !exhausted && isIssuer(anchor, of: current) && !contains(path, anchor) {
            found.append(TrustStore.CandidatePath(intermediates: Array(path.dropFirst()), anchor: anchor))
        }
        for candidate in poolBySubject[X509_issuer_name_hash(current.x509)] ?? [] {
            guard !exhausted else { return }
            // Anchors the peer also sent end paths above; a repeated certificate is skipped by `contains`.
            guard !contains(path, candidate), !anchors.contains(where: { PathSearch.same($0, candidate) }),
                isIssuer(candidate, of: current)
            else { continue }
            extend(path + [candidate])
        }
    }

    /// Names match (with key identifiers, as `X509_check_issued` compares them) and the signature
    /// verifies; only the signature check counts against the budget.
    private mutating func isIssuer(_ issuer: Certificate, of subject: Certificate) -> Bool {
        guard X509_check_issued(issuer.x509, subject.x509) == X509_V_OK else { return false }
        signatures -= 1
        guard let key = X509_get0_pubkey(issuer.x509) else { return false }
        let verified = X509_verify(subject.x509, key) == 1
        _ = OpenSSLError.drain()
        return verified
    }

    private func contains(_ path: [Certificate], _ certificate: Certificate) -> Bool {
        path.contains { PathSearch.same($0, certificate) }
    }

    private static func same(_ lhs: Certificate, _ rhs: Certificate) -> Bool {
        lhs.x509 == rhs.x509 || X509_cmp(lhs.x509, rhs.x509) == 0
    }
}
