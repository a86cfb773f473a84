// The TLS session to an HTTPS proxy as a table: every transition of ProxyTLSStateMachine, each
// from the state it starts in, with the action it gives and the state it leaves. No sockets.
import Testing
@testable import TLS
@testable import Transport

@Suite("HTTPS proxy TLS state machine")
struct ProxyTLSStateMachineTests {
    typealias Machine = ProxyTLSStateMachine

    /// An event of the driver.
    enum Event: CustomStringConvertible {
        case handshake(TLSHandshakeResult), proxyEnded(clean: Bool), aborted, relayEnded, delivered

        var description: String {
            switch self {
            case .handshake(.complete): "handshake complete"
            case .handshake(.incomplete): "handshake incomplete"
            case .handshake(.failed): "handshake failed"
            case .proxyEnded(let clean): "proxy ended (clean: \(clean))"
            case .aborted: "aborted"
            case .relayEnded: "relay ended"
            case .delivered: "delivered"
            }
        }
    }

    /// What a row expects of the action (the error by code only).
    enum Expected: Equatable {
        case sendCiphertext, openRelay, fail(ProxyError.Code), closeWhenDelivered, closeAll, none
    }

    static let tlsFailure = TLSError(.handshake, "alert 48 (unknown CA)")
    static let proxy = "https://127.0.0.1:8443"

    /// (events that lead to the start state, the event under test, expected action, expected state).
    static let rows: [(setup: [Event], event: Event, action: Expected, state: Machine.State)] = [
        // handshaking
        ([], .handshake(.incomplete(.read)), .sendCiphertext, .handshaking),
        ([], .handshake(.complete), .openRelay, .relaying),
        ([], .handshake(.failed(tlsFailure)), .fail(.tlsHandshakeFailed), .failed),
        ([], .proxyEnded(clean: false), .fail(.closed), .failed),
        ([], .aborted, .fail(.closed), .failed),
        ([], .relayEnded, .none, .handshaking),
        ([], .delivered, .none, .handshaking),
        // relaying
        ([.handshake(.complete)], .proxyEnded(clean: true), .closeWhenDelivered, .draining(clean: true)),
        ([.handshake(.complete)], .proxyEnded(clean: false), .closeWhenDelivered, .draining(clean: false)),
        ([.handshake(.complete)], .relayEnded, .closeAll, .closed),
        ([.handshake(.complete)], .handshake(.complete), .none, .relaying),
        ([.handshake(.complete)], .aborted, .none, .relaying),
        ([.handshake(.complete)], .delivered, .none, .relaying),
        // draining
        ([.handshake(.complete), .proxyEnded(clean: true)], .delivered, .closeAll, .closed),
        ([.handshake(.complete), .proxyEnded(clean: true)], .relayEnded, .closeAll, .closed),
        ([.handshake(.complete), .proxyEnded(clean: true)], .proxyEnded(clean: false), .none, .draining(clean: true)),
        // failed and closed are terminal
        ([.handshake(.failed(tlsFailure))], .handshake(.complete), .none, .failed),
        ([.handshake(.failed(tlsFailure))], .relayEnded, .none, .failed),
        ([.handshake(.complete), .relayEnded], .proxyEnded(clean: true), .none, .closed),
        ([.handshake(.complete), .relayEnded], .delivered, .none, .closed),
        ([.handshake(.complete), .relayEnded], .relayEnded, .none, .closed),
    ]

    static func apply(_ event: Event, to machine: inout Machine) -> Machine.Action {
        switch event {
        case .handshake(let result): machine.handshakeProgressed(result)
        case .proxyEnded(let clean): machine.proxyEnded(clean: clean)
        case .aborted: machine.handshakeAborted(ProxyError(.closed, proxy: proxy, "timed out"))
        case .relayEnded: machine.relayEnded()
        case .delivered: machine.delivered()
        }
    }

    static func expected(_ action: Machine.Action) -> Expected {
        switch action {
        case .sendCiphertext: .sendCiphertext
        case .openRelay: .openRelay
        case .fail(let error): .fail(error.code)
        case .closeWhenDelivered: .closeWhenDelivered
        case .closeAll: .closeAll
        case .none: .none
        }
    }

    @Test("transitions", arguments: rows.indices)
    func transition(row: Int) {
        let (setup, event, action, state) = Self.rows[row]
        var machine = Machine(proxy: Self.proxy)
        for step in setup { _ = Self.apply(step, to: &machine) }
        let got = Self.apply(event, to: &machine)
        #expect(Self.expected(got) == action, "\(setup) then \(event)")
        #expect(machine.state == state, "\(setup) then \(event)")
    }

    @Test("a failed handshake is the proxy's, with the TLS error beneath and the proxy named")
    func failureCarriesTheTLSError() {
        var machine = Machine(proxy: Self.proxy)
        guard case .fail(let error) = machine.handshakeProgressed(.failed(Self.tlsFailure)) else {
            Issue.record("must fail")
            return
        }
        #expect(error.code == .tlsHandshakeFailed)
        #expect(error.proxy == Self.proxy)
        #expect((error.underlying as? TLSError)?.kind == .handshake)
    }

    @Test("relaying and draining let plaintext flow; the others do not")
    func flowFlags() {
        var machine = Machine(proxy: Self.proxy)
        #expect(!machine.isRelaying)
        _ = machine.handshakeProgressed(.complete)
        #expect(machine.isRelaying && !machine.isDraining)
        _ = machine.proxyEnded(clean: true)
        #expect(machine.isRelaying && machine.isDraining)
        _ = machine.delivered()
        #expect(!machine.isRelaying)
    }
}
