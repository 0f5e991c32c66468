import XCTest
@testable import NetVigilProber

/// The CONNECT answer state machine, byte by byte.
final class ProxyConnectParserTests: XCTestCase {
    func testTwoHundredEstablishesAndKeepsTheBytesAfterTheHead() {
        var parser = ProxyConnectParser()
        XCTAssertEqual(parser.consume(Array("HTTP/1.1 200 Connection established\r\n".utf8)), .needMore)
        XCTAssertEqual(parser.consume(Array("Via: squid\r\n\r".utf8)), .needMore)
        XCTAssertEqual(parser.consume(Array("\nTLS".utf8)), .established(status: 200, leftover: Array("TLS".utf8)))
        XCTAssertEqual(parser.consume(Array("more".utf8)), .needMore, "bytes after the outcome are not the parser's")
    }

    func testBareLineFeedsAndHTTP10AreAccepted() {
        var parser = ProxyConnectParser()
        XCTAssertEqual(parser.consume(Array("HTTP/1.0 200\n\n".utf8)), .established(status: 200, leftover: []))
    }

    func testTerminatorSplitAcrossEveryByte() {
        var parser = ProxyConnectParser()
        let bytes = Array("HTTP/1.1 204 OK\r\nX: y\r\n\r\n".utf8)
        for byte in bytes.dropLast() { XCTAssertEqual(parser.consume([byte]), .needMore) }
        XCTAssertEqual(parser.consume([bytes.last!]), .established(status: 204, leftover: []))
    }

    func testRefusalsNameTheStatusAndAPrintableReason() {
        var parser = ProxyConnectParser()
        XCTAssertEqual(parser.consume(Array("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n".utf8)),
                       .refused(status: 407, reason: "Proxy Authentication Required"))
        var hostile = ProxyConnectParser()
        XCTAssertEqual(hostile.consume(Array("HTTP/1.1 403 \u{1B}[31mno\r\n\r\n".utf8)), .refused(status: 403, reason: "?[31mno"))
    }

    func testGarbageAndOversizedHeadsAreInvalid() {
        var garbage = ProxyConnectParser()
        guard case .invalid = garbage.consume(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8)) else { return XCTFail("garbage accepted") }
        var short = ProxyConnectParser()
        guard case .invalid = short.consume(Array("HTTP/1.1 2\r\n\r\n".utf8)) else { return XCTFail("short status accepted") }
        var endless = ProxyConnectParser()
        let line = Array("X-Filler: \(String(repeating: "a", count: 1_000))\r\n".utf8)
        var outcome = endless.consume(Array("HTTP/1.1 200 OK\r\n".utf8))
        while outcome == .needMore { outcome = endless.consume(line) }
        XCTAssertEqual(outcome, .invalid("the proxy's answer to CONNECT exceeds 16 KiB without ending its head"))
    }
}
