import XCTest
@testable import NetVigilProber

/// SMTP, IMAP and POP3 negotiations, fed bytes without sockets.
final class LineNegotiationTests: XCTestCase {
    func testSMTPHappyPath() {
        var smtp = SMTPNegotiation(implicitTLS: false)
        XCTAssertEqual(smtp.connected(), [])
        XCTAssertEqual(smtp.feed("220-mail.example ESMTP\r\n220 ready\r\n"), [.line("EHLO netvigil.invalid")])
        XCTAssertEqual(smtp.feed("250-mail.example\r\n250-PIPELINING\r\n250-STARTTLS\r\n250 8BITMIME\r\n"), [.line("STARTTLS")])
        XCTAssertEqual(smtp.feed("220 2.0.0 go ahead\r\n"), [.startTLS])
        XCTAssertEqual(smtp.tlsEstablished(), [.line("EHLO netvigil.invalid")])
        XCTAssertEqual(smtp.feed("250-mail.example\r\n250 SIZE 1000\r\n"), [.line("QUIT")])
        XCTAssertEqual(smtp.feed("221 bye\r\n"), [.finish])
    }

    func testSMTPSplitAcrossReads() {
        var smtp = SMTPNegotiation(implicitTLS: false)
        XCTAssertEqual(smtp.feed("22"), [])
        XCTAssertEqual(smtp.feed("0 ok\r"), [])
        XCTAssertEqual(smtp.feed("\n"), [.line("EHLO netvigil.invalid")])
    }

    func testSMTPWithoutSTARTTLSIsUnavailable() {
        var smtp = SMTPNegotiation(implicitTLS: false)
        _ = smtp.feed("220 ready\r\n")
        XCTAssertEqual(smtp.feed("250-mail\r\n250 AUTH PLAIN\r\n").last?.failureKind, .starttlsUnavailable)
        var refused = SMTPNegotiation(implicitTLS: false)
        _ = refused.feed("220 ready\r\n")
        _ = refused.feed("250 STARTTLS\r\n")
        XCTAssertEqual(refused.feed("454 4.7.0 TLS not available\r\n").last?.failureKind, .starttlsUnavailable)
    }

    func testSMTPGarbageAndLimits() {
        var garbage = SMTPNegotiation(implicitTLS: false)
        XCTAssertEqual(garbage.feed("HTTP/1.1 400 Bad Request\r\n").last?.failureKind, .protocolGreeting)
        XCTAssertEqual(garbage.feed("220 late\r\n"), [], "input after a failure is ignored")
        var endless = SMTPNegotiation(implicitTLS: false)
        XCTAssertEqual(endless.feed("220 " + String(repeating: "x", count: 9_000)).last?.failureKind, .protocolGreeting)
        var long = SMTPNegotiation(implicitTLS: false)
        _ = long.feed("220 ready\r\n")
        let lines = String(repeating: "250-X\r\n", count: 10_000)
        XCTAssertEqual(long.feed(lines).last?.failureKind, .protocolGreeting)
        var refusedGreeting = SMTPNegotiation(implicitTLS: false)
        XCTAssertEqual(refusedGreeting.feed("554 go away\r\n").last?.failureKind, .protocolGreeting)
    }

    func testSMTPBytesAfterGoAheadFail() {
        var smtp = SMTPNegotiation(implicitTLS: false)
        _ = smtp.feed("220 ready\r\n")
        _ = smtp.feed("250 STARTTLS\r\n")
        XCTAssertEqual(smtp.feed("220 go\r\n250 injected\r\n").last?.failureKind, .protocolGreeting)
        var partial = SMTPNegotiation(implicitTLS: false)
        _ = partial.feed("220 ready\r\n")
        _ = partial.feed("250 STARTTLS\r\n")
        XCTAssertEqual(partial.feed("220 go\r\n\u{16}\u{03}").last?.failureKind, .protocolGreeting)
    }

    func testSMTPS() {
        var smtps = SMTPNegotiation(implicitTLS: true)
        XCTAssertEqual(smtps.connected(), [.startTLS])
        XCTAssertEqual(smtps.tlsEstablished(), [])
        XCTAssertEqual(smtps.feed("220 ready\r\n"), [.line("QUIT")])
        XCTAssertEqual(smtps.closed(), .finish)
    }

    func testIMAP() {
        var imap = IMAPNegotiation(implicitTLS: false)
        XCTAssertEqual(imap.feed("* OK [CAPABILITY IMAP4rev1] ready\r\n"), [.line("a CAPABILITY")])
        XCTAssertEqual(imap.feed("* CAPABILITY IMAP4rev1 STARTTLS LOGINDISABLED\r\na OK done\r\n"), [.line("b STARTTLS")])
        XCTAssertEqual(imap.feed("b OK Begin TLS\r\n"), [.startTLS])
        XCTAssertEqual(imap.tlsEstablished(), [.line("c LOGOUT")])
        XCTAssertEqual(imap.feed("* BYE bye\r\nc OK done\r\n"), [.finish])

        var plain = IMAPNegotiation(implicitTLS: false)
        _ = plain.feed("* OK ready\r\n")
        XCTAssertEqual(plain.feed("* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\na OK\r\n").last?.failureKind, .starttlsUnavailable)
        var preauth = IMAPNegotiation(implicitTLS: false)
        XCTAssertEqual(preauth.feed("* PREAUTH hi\r\n").last?.failureKind, .starttlsUnavailable)
        var refused = IMAPNegotiation(implicitTLS: false)
        _ = refused.feed("* OK ready\r\n")
        _ = refused.feed("* CAPABILITY STARTTLS\r\na OK\r\n")
        XCTAssertEqual(refused.feed("b NO not now\r\n").last?.failureKind, .starttlsUnavailable)
        var garbage = IMAPNegotiation(implicitTLS: false)
        XCTAssertEqual(garbage.feed("220 smtp here\r\n").last?.failureKind, .protocolGreeting)
        var imaps = IMAPNegotiation(implicitTLS: true)
        XCTAssertEqual(imaps.connected(), [.startTLS])
        _ = imaps.tlsEstablished()
        XCTAssertEqual(imaps.feed("* OK ready\r\n"), [.line("c LOGOUT")])
    }

    func testPOP3() {
        var pop = POP3Negotiation(implicitTLS: false)
        XCTAssertEqual(pop.feed("+OK ready\r\n"), [.line("CAPA")])
        XCTAssertEqual(pop.feed("+OK list\r\nTOP\r\nSTLS\r\nUSER\r\n.\r\n"), [.line("STLS")])
        XCTAssertEqual(pop.feed("+OK Begin TLS\r\n"), [.startTLS])
        XCTAssertEqual(pop.tlsEstablished(), [.line("QUIT")])
        XCTAssertEqual(pop.feed("+OK bye\r\n"), [.finish])

        var plain = POP3Negotiation(implicitTLS: false)
        _ = plain.feed("+OK ready\r\n")
        XCTAssertEqual(plain.feed("+OK\r\nUSER\r\n.\r\n").last?.failureKind, .starttlsUnavailable)
        var noCapa = POP3Negotiation(implicitTLS: false)
        _ = noCapa.feed("+OK ready\r\n")
        XCTAssertEqual(noCapa.feed("-ERR unknown\r\n").last?.failureKind, .starttlsUnavailable)
        var garbage = POP3Negotiation(implicitTLS: false)
        XCTAssertEqual(garbage.feed("* OK imap\r\n").last?.failureKind, .protocolGreeting)
        XCTAssertEqual(POP3Negotiation(implicitTLS: false).closed().failureKind, .protocolGreeting)
    }
}
