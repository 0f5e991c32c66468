import NIOHTTP1
import XCTest
@testable import NetVigilProber

/// AFHTTPRequestSerializer semantics: AFNetworking's documented examples and its own test expectations.
final class RequestSerializerTests: XCTestCase {
    // AFNetworkingTests: testQueryStringFromParameters
    func testQueryStringFromParameters() {
        XCTAssertEqual(QueryString.encode(["key": "value", "key1": "value&"]), "key=value&key1=value%26")
    }

    // AFNetworkingTests: testPercentEscapingString
    func testPercentEscapingString() {
        XCTAssertEqual(QueryString.percentEscaped(":#[]@!$&'()*+,;=?/"), "%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D?/")
    }

    // testNestedDictionaryQueryStringFromParameters (AFNetworking issue discussions)
    func testNestedDictionary() {
        XCTAssertEqual(QueryString.encode(["key": ["key1": "value"], "key2": "value&"]), "key%5Bkey1%5D=value&key2=value%26")
    }

    // AFURLRequestSerialization.h documentation: `phone[mobile]`, `families[]`.
    func testDocumentedExamples() {
        XCTAssertEqual(QueryString.encode(["phone": ["mobile": "xxx"]]), "phone%5Bmobile%5D=xxx")
        XCTAssertEqual(QueryString.encode(["families": ["Smith", "Jones"]]), "families%5B%5D=Smith&families%5B%5D=Jones")
        XCTAssertEqual(QueryString.encode(["foo": "bar", "baz": [1, 2, 3]]), "baz%5B%5D=1&baz%5B%5D=2&baz%5B%5D=3&foo=bar")
    }

    func testSetsAreRepeatedKeysAndNullIsTheBareKey() {
        XCTAssertEqual(QueryString.encode(["tag": .set(["b", "a"])]), "tag=a&tag=b")
        XCTAssertEqual(QueryString.encode(["flag": .null, "a": "1"]), "a=1&flag")
    }

    func testKeysAreSortedAndUnicodeIsEscaped() {
        XCTAssertEqual(QueryString.encode(["z": "1", "a": "é 😀", "m": "a/b?c"]), "a=%C3%A9%20%F0%9F%98%80&m=a/b?c&z=1")
    }

    func testGETPutsParametersInTheURLAndAppendsToAnExistingQuery() throws {
        let serializer = RequestSerializer(version: "1.2.3")
        let request = try serializer.request(method: .GET, url: "https://example.test/path?x=1", parameters: ["key": "value"])
        XCTAssertEqual(request.url.absoluteString, "https://example.test/path?x=1&key=value")
        XCTAssertTrue(request.body.isEmpty)
        XCTAssertEqual(request.header("User-Agent"), "netvigil/1.2.3")
        XCTAssertEqual(request.header("Accept-Encoding"), "identity")
        XCTAssertNotNil(request.header("Accept"))
        let delete = try serializer.request(method: .DELETE, url: "https://example.test/", parameters: ["a": "b"])
        XCTAssertEqual(delete.url.query, "a=b")
    }

    func testAConfiguredHeaderReplacesADefaultOfTheSameNameInAnyASCIICase() throws {
        let request = try RequestSerializer(version: "1").request(
            method: .POST, url: "https://example.test/", parameters: ["a": "b"],
            headers: [("user-AGENT", "probe/2"), ("CONTENT-type", "text/plain"), ("Accept-Encodinga", "x")])
        XCTAssertEqual(request.headers.filter { $0.name.lowercased() == "user-agent" }.map(\.value), ["probe/2"])
        XCTAssertEqual(request.headers.filter { $0.name.lowercased() == "content-type" }.map(\.value), ["text/plain"])
        XCTAssertEqual(request.header("Accept-Encoding"), "identity", "a longer name is another header")
        XCTAssertTrue(ProbeRequest.sameFieldName("X-Ab", "x-aB"))
        XCTAssertFalse(ProbeRequest.sameFieldName("X-[", "X-{"), "only letters fold")
        XCTAssertFalse(ProbeRequest.sameFieldName("X-@", "X-`"))
        XCTAssertFalse(ProbeRequest.sameFieldName("É", "é"), "bytes beyond ASCII compare as they are")
        XCTAssertFalse(ProbeRequest.sameFieldName("Accept", "Accept-"))
    }

    func testPOSTPutsAFormBodyUnlessAContentTypeIsSet() throws {
        let serializer = RequestSerializer()
        let post = try serializer.request(method: .POST, url: "https://example.test/", parameters: ["key": "value"])
        XCTAssertEqual(String(decoding: post.body, as: UTF8.self), "key=value")
        XCTAssertEqual(post.header("Content-Type"), "application/x-www-form-urlencoded")
        XCTAssertNil(post.url.query)
        let custom = try serializer.request(method: .PUT, url: "https://example.test/", parameters: ["key": "value"],
                                            headers: [("Content-Type", "text/plain")])
        XCTAssertEqual(custom.header("Content-Type"), "text/plain")
        XCTAssertEqual(String(decoding: custom.body, as: UTF8.self), "key=value")
    }

    func testJSONBodyIsValidatedBeforeAnyConnection() throws {
        let serializer = RequestSerializer()
        let request = try serializer.request(method: .POST, url: "https://example.test/", jsonBody: #"{"a": [1, 2]}"#)
        XCTAssertEqual(request.header("Content-Type"), "application/json")
        XCTAssertThrowsError(try serializer.request(method: .POST, url: "https://example.test/", jsonBody: "{nope")) { error in
            guard case .invalidJSON = error as? RequestSerializationError else { return XCTFail("\(error)") }
        }
        let json = RequestSerializer(bodyEncoding: .json)
        let encoded = try json.request(method: .PATCH, url: "https://example.test/", parameters: ["b": "1", "a": ["x"]])
        XCTAssertEqual(String(decoding: encoded.body, as: UTF8.self), #"{"a":["x"],"b":"1"}"#)
    }

    func testBasicAuthAndBadInput() {
        XCTAssertEqual(RequestSerializer.basicAuthorization(user: "Aladdin", password: "open sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        // The error quotes the URL as given (the checks run on the parsed components).
        for url in ["ftp://example.test/", "FTP://Example.test:21/ä b", "https:///path", "http://", "http://:8080/"] {
            XCTAssertThrowsError(try RequestSerializer().request(method: .GET, url: url), url) { error in
                XCTAssertEqual(error as? RequestSerializationError, .invalidURL(url))
            }
        }
        // An internationalised host is accepted as written (punycode) and kept in the request's URL.
        XCTAssertEqual(try RequestSerializer().request(method: .GET, url: "https://xn--bcher-kva.example/").url.absoluteString,
                       "https://xn--bcher-kva.example/")
        XCTAssertThrowsError(try RequestSerializer().request(method: .GET, url: "https://example.test/", headers: [("X", "a\r\nB: c")]))
    }

    func testRedirectDropsCredentialsForAnotherHostAndTurnsPOSTInto303GET() throws {
        let request = try RequestSerializer().request(method: .POST, url: "https://a.test/", parameters: ["k": "v"],
                                                      headers: [("Authorization", "Basic eA==")])
        let next = Prober.redirected(request, to: URL(string: "https://b.test/x")!, status: 303)
        XCTAssertEqual(next.method, .GET)
        XCTAssertTrue(next.body.isEmpty)
        XCTAssertNil(next.header("Authorization"))
        XCTAssertNil(next.header("Content-Type"))
        let same = Prober.redirected(request, to: URL(string: "https://a.test/y")!, status: 307)
        XCTAssertEqual(same.method, .POST)
        XCTAssertNotNil(same.header("Authorization"))
    }
}

/// The request line and Host field the prober writes.
final class RequestHeadTests: XCTestCase {
    private func head(_ url: String, headers: [(name: String, value: String)] = [], tls: Bool = true) throws -> HTTPRequestHead {
        let request = ProbeRequest(url: try XCTUnwrap(URL(string: url)), headers: headers)
        let components = try XCTUnwrap(URLComponents(string: url))
        // The prober passes the bare host (IPv6 literals without brackets).
        let host = (components.host ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return Prober.requestHead(request, host: host, port: components.port ?? (tls ? 443 : 80), usesTLS: tls)
    }

    func testRequestTargetKeepsPercentEncodingAndQuery() throws {
        XCTAssertEqual(try head("https://example.test").uri, "/")
        XCTAssertEqual(try head("https://example.test/").uri, "/")
        XCTAssertEqual(try head("https://example.test/a%20b/c?x=a%26b&y=%5B1%5D").uri, "/a%20b/c?x=a%26b&y=%5B1%5D")
        XCTAssertEqual(try head("https://example.test?only=query").uri, "/?only=query")
        XCTAssertEqual(try head("https://example.test/p#fragment").uri, "/p")
    }

    func testHostFieldAndCaseInsensitiveOverride() throws {
        XCTAssertEqual(try head("https://example.test/").headers["Host"], ["example.test"])
        XCTAssertEqual(try head("https://example.test:8443/").headers["Host"], ["example.test:8443"])
        XCTAssertEqual(try head("http://example.test:80/", tls: false).headers["Host"], ["example.test"])
        XCTAssertEqual(try head("https://[::1]:8443/").headers["Host"], ["[::1]:8443"])
        let custom = try head("https://example.test/", headers: [("hOsT", "other.test")])
        XCTAssertEqual(custom.headers["Host"], ["other.test"])
        XCTAssertEqual(custom.headers["Connection"], ["close"])
    }

    func testFieldNameComparisonIsASCIICaseInsensitiveOnly() {
        XCTAssertTrue(ProbeRequest.sameFieldName("Content-Type", "content-type"))
        XCTAssertTrue(ProbeRequest.sameFieldName("X-A_1", "x-a_1"))
        XCTAssertFalse(ProbeRequest.sameFieldName("Content-Type", "Content-Typ"))
        XCTAssertFalse(ProbeRequest.sameFieldName("a[", "A{"))  // 0x5B and 0x7B differ only in bit 0x20 but are not letters
        XCTAssertFalse(ProbeRequest.sameFieldName("Host", "Hös"))
    }
}
