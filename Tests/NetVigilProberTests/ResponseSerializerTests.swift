import NIOHTTP1
import XCTest
@testable import NetVigilProber

/// AFHTTPResponseSerializer / AFJSONResponseSerializer rules and the expectations.
final class ResponseSerializerTests: XCTestCase {
    private func response(_ status: Int, _ type: String?, _ body: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        if let type { headers.add(name: "Content-Type", value: type) }
        return HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
    }

    func testDefaultStatusCodesAre2xx() {
        XCTAssertNil(ResponseSerializer.http.serialize(response(200, "text/plain", "x")).error)
        XCTAssertNil(ResponseSerializer.http.serialize(response(299, "text/plain", "x")).error)
        XCTAssertEqual(ResponseSerializer.http.serialize(response(300, "text/plain", "x")).error?.kind, .status)
        XCTAssertEqual(ResponseSerializer.http.serialize(response(404, nil, "")).error?.kind, .status)
    }

    func testJSONContentTypes() {
        for type in ["application/json", "text/json", "text/javascript", "application/json; charset=utf-8"] {
            XCTAssertNil(ResponseSerializer.json.serialize(response(200, type, "{}")).error, type)
        }
        XCTAssertEqual(ResponseSerializer.json.serialize(response(200, "text/html", "{}")).error?.kind, .contentType)
    }

    func testContentTypeFailureStopsBeforeParsingButStatusFailureStillParses() {
        let wrongType = ResponseSerializer.json.serialize(response(500, "text/html", #"{"a":1}"#))
        XCTAssertEqual(wrongType.error?.kind, .contentType)
        XCTAssertNil(wrongType.object)
        let wrongStatus = ResponseSerializer.json.serialize(response(500, "application/json", #"{"error":"boom"}"#))
        XCTAssertEqual(wrongStatus.error?.kind, .status)
        XCTAssertEqual((wrongStatus.object as? [String: Any])?["error"] as? String, "boom")
    }

    func testEmptyOrSingleSpaceBodyHasNoObject() {
        for body in ["", " "] {
            let output = ResponseSerializer.json.serialize(response(200, "application/json", body))
            XCTAssertNil(output.error)
            XCTAssertNil(output.object)
        }
        XCTAssertEqual(ResponseSerializer.json.serialize(response(200, "application/json", "{nope")).error?.kind, .httpProtocol)
    }

    func testRemovesKeysWithNullValues() {
        var serializer = ResponseSerializer.json
        serializer.removesKeysWithNullValues = true
        let object = serializer.serialize(response(200, "application/json", #"{"a":null,"b":{"c":null,"d":1},"e":[{"f":null}]}"#)).object
        let dictionary = object as? [String: Any]
        XCTAssertNil(dictionary?["a"])
        XCTAssertEqual((dictionary?["b"] as? [String: Any])?.count, 1)
        XCTAssertEqual(((dictionary?["e"] as? [Any])?.first as? [String: Any])?.count, 0)
        let kept = ResponseSerializer.json.serialize(response(200, "application/json", #"{"a":null}"#)).object as? [String: Any]
        XCTAssertTrue(kept?["a"] is NSNull)
    }

    func testJSONPathExpectations() throws {
        let json = try JSONSerialization.jsonObject(with: Data(#"{"status":"UP","n":{"count":3},"list":[1,"x"],"ok":true}"#.utf8))
        XCTAssertNil(try JSONPathExpectation(parsing: #"$.status == "UP""#).check(json))
        XCTAssertNil(try JSONPathExpectation(parsing: "$.status == UP").check(json))
        XCTAssertNil(try JSONPathExpectation(parsing: "$.n.count == 3").check(json))
        XCTAssertNil(try JSONPathExpectation(parsing: #"$.list[1] == "x""#).check(json))
        XCTAssertNotNil(try JSONPathExpectation(parsing: "$.n.count == 4").check(json))
        XCTAssertNotNil(try JSONPathExpectation(parsing: "$.missing == 1").check(json))
        XCTAssertNotNil(try JSONPathExpectation(parsing: #"$.status == "DOWN""#).check(json))
        XCTAssertNotNil(try JSONPathExpectation(parsing: "$.status == UP").check(nil))
        XCTAssertThrowsError(try JSONPathExpectation(parsing: "status = 1"))
        XCTAssertThrowsError(try JSONPathExpectation(parsing: "status == 1"))
    }

    func testOtherExpectations() {
        let now = Date()
        let expectations = ProbeExpectations(bodyContains: ["hello"], bodyMatches: ["^h.*o$"], maxResponseTime: 0.5,
                                             minCertificateValidity: 72 * 3_600)
        XCTAssertEqual(expectations.failures(body: Array("hello".utf8), json: nil, totalMilliseconds: 10,
                                             leafNotAfter: now.addingTimeInterval(100 * 3_600), now: now), [])
        let failures = expectations.failures(body: Array("bye".utf8), json: nil, totalMilliseconds: 600,
                                             leafNotAfter: now.addingTimeInterval(3_600), now: now)
        XCTAssertEqual(failures.count, 4, "\(failures)")
    }
}

/// `HTTPResponse.mimeType`: the media type without parameters, trimmed, lower-cased.
final class MIMETypeTests: XCTestCase {
    private func mimeType(_ value: String?) -> String? {
        var headers = HTTPHeaders()
        if let value { headers.add(name: "Content-Type", value: value) }
        return HTTPResponse(status: 200, headers: headers).mimeType
    }

    func testParametersSpacesAndCase() {
        XCTAssertEqual(mimeType("application/json"), "application/json")
        XCTAssertEqual(mimeType("Application/JSON; charset=UTF-8"), "application/json")
        XCTAssertEqual(mimeType(" \ttext/plain ;charset=utf-8"), "text/plain")
        XCTAssertEqual(mimeType("text/html;"), "text/html")
        XCTAssertEqual(mimeType("application/vnd.API+JSON"), "application/vnd.api+json")
    }

    func testEmptyOrMissing() {
        XCTAssertNil(mimeType(nil))
        XCTAssertNil(mimeType(""))
        XCTAssertNil(mimeType(" ; charset=utf-8"))
    }
}
