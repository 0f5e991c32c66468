import XCTest
@testable import NetVigilProber

/// LDAP StartTLS (hand-written BER), PostgreSQL SSLRequest and tls:// negotiations, fed bytes without sockets.
final class BinaryNegotiationTests: XCTestCase {
    /// An LDAP ExtendedResponse with `resultCode` and `diagnostic`.
    private func extendedResponse(id: UInt8 = 1, resultCode: UInt8, diagnostic: String = "") -> [UInt8] {
        let fields = BERElement.encode(tag: 0x0A, [resultCode]) + BERElement.encode(tag: 0x04, [])
            + BERElement.encode(tag: 0x04, Array(diagnostic.utf8))
        return BERElement.encode(tag: 0x30, BERElement.encode(tag: 0x02, [id]) + BERElement.encode(tag: 0x78, fields))
    }

    func testLDAPStartTLSRequestBytes() {
        let oid = Array("1.3.6.1.4.1.1466.20037".utf8)
        XCTAssertEqual(LDAPNegotiation.startTLSRequest, [0x30, 0x1D, 0x02, 0x01, 0x01, 0x77, 0x18, 0x80, 0x16] + oid)
        XCTAssertEqual(LDAPNegotiation.unbindRequest, [0x30, 0x05, 0x02, 0x01, 0x02, 0x42, 0x00])
    }

    func testLDAP() {
        var ldap = LDAPNegotiation(implicitTLS: false)
        XCTAssertEqual(ldap.connected(), [.send(LDAPNegotiation.startTLSRequest)])
        let response = extendedResponse(resultCode: 0)
        XCTAssertEqual(ldap.received(Array(response.prefix(5))), [])
        XCTAssertEqual(ldap.received(Array(response.dropFirst(5))), [.startTLS])
        XCTAssertEqual(ldap.tlsEstablished(), [.send(LDAPNegotiation.unbindRequest), .finish])

        var refused = LDAPNegotiation(implicitTLS: false)
        XCTAssertEqual(refused.received(extendedResponse(resultCode: 2, diagnostic: "unsupported")).last?.failureKind, .starttlsUnavailable)
        var notice = LDAPNegotiation(implicitTLS: false)
        XCTAssertEqual(notice.received(extendedResponse(id: 0, resultCode: 52)).last?.failureKind, .protocolGreeting)
        var injected = LDAPNegotiation(implicitTLS: false)
        XCTAssertEqual(injected.received(extendedResponse(resultCode: 0) + [0x30]).last?.failureKind, .protocolGreeting)
        var garbage = LDAPNegotiation(implicitTLS: false)
        XCTAssertEqual(garbage.feed("220 smtp\r\n").last?.failureKind, .protocolGreeting)
        var huge = LDAPNegotiation(implicitTLS: false)
        XCTAssertEqual(huge.received([0x30, 0x83, 0x10, 0x00, 0x00]).last?.failureKind, .protocolGreeting)
        XCTAssertEqual(LDAPNegotiation(implicitTLS: true).connected(), [.startTLS])
    }

    func testPostgres() {
        var postgres = PostgresNegotiation()
        XCTAssertEqual(postgres.connected(), [.send([0x00, 0x00, 0x00, 0x08, 0x04, 0xD2, 0x16, 0x2F])])
        XCTAssertEqual(postgres.feed("S"), [.startTLS])
        XCTAssertEqual(postgres.tlsEstablished(), [.finish])
        XCTAssertEqual(postgres.closed(), .finish)

        var refused = PostgresNegotiation()
        XCTAssertEqual(refused.feed("N").last?.failureKind, .starttlsUnavailable)
        var error = PostgresNegotiation()
        XCTAssertEqual(error.received(Array("E\0\0\0\u{20}SFATAL\0Munsupported\0\0".utf8)).last?.failureKind, .protocolGreeting)
        var injected = PostgresNegotiation()
        XCTAssertEqual(injected.feed("SN").last?.failureKind, .protocolGreeting)
        XCTAssertEqual(PostgresNegotiation().closed().failureKind, .protocolGreeting)
    }

    func testTLSOnly() {
        var tls = TLSOnlyNegotiation()
        XCTAssertEqual(tls.connected(), [.startTLS])
        XCTAssertEqual(tls.closed().failureKind, .tlsHandshake)
        XCTAssertEqual(tls.tlsEstablished(), [.finish])
    }

    func testSchemes() {
        XCTAssertEqual(ServiceScheme(url: URL(string: "postgresql://db")!), .postgres)
        XCTAssertNil(ServiceScheme(url: URL(string: "https://x")!))
        XCTAssertEqual(ServiceScheme.submission.defaultPort, 587)
        XCTAssertNil(ServiceScheme.tls.defaultPort)
        XCTAssertTrue(ServiceScheme.ldap.usesSTARTTLS)
        XCTAssertFalse(ServiceScheme.ldaps.usesSTARTTLS)
    }
}
