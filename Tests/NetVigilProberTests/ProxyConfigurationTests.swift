import XCTest
@testable import NetVigilProber

/// Proxy URLs, credentials (never shown) and `no_proxy` matching.
final class ProxyConfigurationTests: XCTestCase {
    func testURLForms() throws {
        let proxy = try ProxyConfiguration(url: "http://Proxy.Example:3128/")
        XCTAssertEqual(proxy.host, "proxy.example")
        XCTAssertEqual(proxy.port, 3128)
        XCTAssertEqual(try ProxyConfiguration(url: "http://[::1]").url, "http://[::1]:80")
        XCTAssertThrowsError(try ProxyConfiguration(url: "https://proxy:3128")) { error in
            XCTAssertEqual(error as? ProxyConfigurationError, .unsupportedScheme("https"))
            XCTAssertTrue("\(error)".contains("https:// proxies are not supported"))
        }
        XCTAssertThrowsError(try ProxyConfiguration(url: "socks5://proxy:1080"))
        XCTAssertThrowsError(try ProxyConfiguration(url: "http://user:pw@proxy:3128")) { error in
            XCTAssertEqual(error as? ProxyConfigurationError, .credentialsInURL)
        }
        XCTAssertThrowsError(try ProxyConfiguration(url: "http://proxy:3128/path"))
        XCTAssertThrowsError(try ProxyConfiguration(url: "proxy:3128"))
        XCTAssertThrowsError(try ProxyConfiguration(url: "http://proxy:99999"))
    }

    func testCredentialsAreNeverShown() throws {
        let credentials = try ProxyCredentials(user: "probe", password: "hunter2-secret")
        let proxy = try ProxyConfiguration(url: "http://proxy:3128", credentials: credentials)
        var dumped = ""
        dump(proxy, to: &dumped)
        for text in [proxy.description, "\(proxy)", String(reflecting: proxy), dumped, "\(credentials)"] {
            XCTAssertFalse(text.contains("hunter2"), text)
            XCTAssertFalse(text.contains(credentials.authorization), text)
        }
        XCTAssertTrue(proxy.description.contains("probe"))
        XCTAssertThrowsError(try ProxyCredentials(user: "probe", password: "a\r\nX-Injected: 1")) { error in
            XCTAssertEqual(error as? ProxyConfigurationError, .invalidPassword)
            XCTAssertFalse("\(error)".contains("Injected"))
        }
        XCTAssertThrowsError(try ProxyCredentials(user: "a:b", password: "x"))
        XCTAssertThrowsError(try ProxyCredentials(user: "", password: "x"))
    }

    func testNoProxyMatching() throws {
        let list = try NoProxyList(["example.com", ".internal", "*.corp.test", "10.0.0.0/8", "192.168.1.7", "fd00::/8", "[::1]"])
        for host in ["example.com", "API.example.com", "a.b.internal", "x.corp.test", "corp.test", "10.200.3.4", "192.168.1.7",
                     "fd12::1", "[fd12::1]", "::1", "example.com."] {
            XCTAssertTrue(list.matches(host), host)
        }
        for host in ["notexample.com", "example.org", "internal.net", "11.0.0.1", "192.168.1.8", "fe80::1", "localhost"] {
            XCTAssertFalse(list.matches(host), host)
        }
        XCTAssertTrue(try NoProxyList(["*"]).matches("anything"))
        XCTAssertTrue(try NoProxyList(["172.16.0.0/12"]).matches("172.31.255.255"))
        XCTAssertFalse(try NoProxyList(["172.16.0.0/12"]).matches("172.32.0.0"))
        for bad in ["10.0.0.0/33", "exa mple.com", "", "a..b", "10.0.0.0/x", "::1/129"] {
            XCTAssertThrowsError(try NoProxyList([bad]), bad)
        }
        let proxy = try ProxyConfiguration(url: "http://proxy:3128", noProxy: list)
        XCTAssertFalse(proxy.applies(to: "api.example.com"))
        XCTAssertTrue(proxy.applies(to: "example.org"))
    }
}
