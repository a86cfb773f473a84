import Testing
@testable import TLS

/// Hostile or broken input must give our error or a clean "not yet", never a trap or a success.
@Suite struct RobustnessTests {
    /// A tiny deterministic generator (SplitMix64), so failures reproduce.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
        mutating func mutate(_ input: [UInt8], flips: Int, within limit: Int? = nil) -> [UInt8] {
            var output = input
            for _ in 0..<flips {
                let index = Int(next() % UInt64(limit ?? output.count))
                output[index] ^= UInt8(truncatingIfNeeded: next() | 1)
            }
            return output
        }
    }

    @Test func parsersSurviveRandomAndMutatedInput() throws {
        var generator = Generator(state: 2024)
        let pki = PKI.shared
        let store = TrustStore(anchors: [pki.root.certificate])
        let chain = [pki.leaf.certificate, pki.intermediate.certificate]
        // The certificates a responder embeds after its signature are unsigned hints (the signer is
        // looked up in the chain we pass first), so only flips before them must spoil the response.
        let signedEnd = pki.ocspGood.count - pki.intermediate.certificate.derBytes.count - 8
        let leafKey = try #require(pki.leaf.certificate.decodedPublicKey)
        let seeds: [([UInt8], Int?)] = [
            (pki.leaf.certificate.derBytes, nil), (leafKey.subjectPublicKeyInfoDER, nil), (pki.ocspGood, signedEnd),
        ]
        for round in 0..<300 {
            let seed = seeds[round % seeds.count]
            let input = round % 2 == 0
                ? generator.bytes(Int(generator.next() % 300))
                : generator.mutate(seed.0, flips: 1 + round % 4, within: seed.1)
            _ = try? Certificate(derBytes: input)
            _ = try? Certificate.certificates(fromPEM: Array("-----BEGIN CERTIFICATE-----\n".utf8) + input)
            _ = try? PublicKey(subjectPublicKeyInfoDER: input)
            _ = try? PrivateKey(derBytes: input)
            _ = try? CertificateRevocationList(derBytes: input)
            _ = try? PKCS12Bundle(derBytes: input, password: "")
            _ = try? Base64.decode(String(decoding: input, as: UTF8.self))
            _ = IPAddress(String(decoding: input, as: UTF8.self))
            _ = HostnameMatcher.matches(host: "a.example", dnsPattern: String(decoding: input, as: UTF8.self))
            let ocsp = store.checkOCSPResponse(input, chain: chain)
            #expect(ocsp.status != .good || input == pki.ocspGood)
        }
    }

    // Bit flips anywhere in the server's flight never yield an established connection.
    @Test func mutatedServerFlightNeverCompletes() throws {
        var generator = Generator(state: 7)
        let context = try Fixture.clientContext()
        let server = try Fixture.serverContext(PKI.shared.leaf)
        var failures = 0
        for _ in 0..<60 {
            let pump = try Fixture.pump(client: context, server: server)
            _ = pump.client.handshake()
            _ = pump.server.receiveCiphertext(pump.client.takeCiphertext())
            _ = pump.server.handshake()
            let flight = pump.server.takeCiphertext()
            let mutated = generator.mutate(flight, flips: 1)
            _ = pump.client.receiveCiphertext(mutated)
            switch pump.client.handshake() {
            case .complete:
                // RFC 8446 §5.1: a record's legacy_record_version "MUST be ignored for all
                // purposes", so a flip there may complete; anywhere else it must not.
                let flipped = flight.indices.filter { flight[$0] != mutated[$0] }
                let ignored = Self.legacyRecordVersionOffsets(flight)
                if !flipped.allSatisfy(ignored.contains) {
                    Issue.record("a corrupted server flight was accepted (flipped bytes \(flipped) of \(flight.count))")
                }
            case .failed: failures += 1
            case .incomplete: break  // e.g. a record length now promises more bytes
            }
        }
        #expect(failures > 40)
    }

    /// The offsets of every record header's legacy_record_version bytes in a flight of records.
    static func legacyRecordVersionOffsets(_ flight: [UInt8]) -> Set<Int> {
        var offsets = Set<Int>()
        var start = 0
        while start + 5 <= flight.count {
            offsets.formUnion([start + 1, start + 2])
            start += 5 + (Int(flight[start + 3]) << 8 | Int(flight[start + 4]))
        }
        return offsets
    }

    // Backpressure: a full outbound buffer is `.incomplete(.write)`, a full inbound one accepts less.
    @Test func buffersAreBounded() throws {
        let pump = try Fixture.pump(client: Fixture.clientContext(), server: Fixture.serverContext(PKI.shared.leaf))
        #expect(pump.handshake().client.isComplete)
        let chunk = [UInt8](repeating: 7, count: 16384)
        var accepted = 0
        var blocked = false
        for _ in 0..<64 {
            switch pump.server.write(chunk) {
            case .written(let count): accepted += count
            case .incomplete(.write): blocked = true
            default: Issue.record("unexpected write result")
            }
            if blocked { break }
        }
        #expect(blocked)
        #expect(pump.server.pendingCiphertextCount <= TLSEngine.bufferSize)
        let ciphertext = pump.server.takeCiphertext()
        #expect(ciphertext.count > accepted)
        // The client's inbound buffer is the same size: offer twice its capacity, it takes what fits.
        // (Session tickets the client has not read yet already occupy a few hundred bytes.)
        let taken = pump.client.receiveCiphertext(ciphertext + ciphertext)
        #expect(taken > TLSEngine.bufferSize - 2048 && taken <= TLSEngine.bufferSize)
        #expect(pump.client.receiveCiphertext([1]) == 0)
    }
}
