import Foundation
import NetVigilTestSupport
import XCTest

/// Headless Chromium driven over the DevTools protocol on a pipe by a small Python driver (one JSON step per line
/// on stdin, one JSON answer per line on stdout). Console errors and uncaught exceptions are collected.
final class HeadlessBrowser {
    struct DriverError: Error, CustomStringConvertible {
        var description: String
    }

    private let process = Process()
    private let input: FileHandle
    private let output: FileHandle
    private var buffer = Data()
    /// Console errors and warnings (CSP violations, failed requests), with their URL.
    private(set) var console: [String] = []
    /// Uncaught exceptions.
    private(set) var exceptions: [String] = []

    init(driver: String, chromium: String) throws {
        let stdin = Pipe(), stdout = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [driver, chromium]
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        input = stdin.fileHandleForWriting
        output = stdout.fileHandleForReading
    }

    /// Runs one step (`navigate`, `waitFor` + `timeout`, `eval`, `viewport` + `height`, `screenshot` to a PNG path)
    /// and returns its value.
    func step(_ step: [String: Any], timeout: TimeInterval = 60) throws -> Any? {
        var line = try JSONSerialization.data(withJSONObject: step)
        line.append(UInt8(ascii: "\n"))
        try input.write(contentsOf: line)
        let answer = try JSONSerialization.jsonObject(with: try readLine(timeout: timeout)) as? [String: Any] ?? [:]
        console += answer["console"] as? [String] ?? []
        exceptions += answer["exceptions"] as? [String] ?? []
        if let error = answer["error"] as? String { throw DriverError(description: "browser: \(error)") }
        let value = answer["value"]
        return value is NSNull ? nil : value
    }

    private func readLine(timeout: TimeInterval) throws -> Data {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<end]
                buffer = Data(buffer[buffer.index(after: end)...])
                return Data(line)
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw DriverError(description: "browser: no answer within \(timeout) s") }
            var descriptor = pollfd(fd: output.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(min(remaining, 1) * 1_000)) > 0 else { continue }
            let chunk = output.availableData
            if chunk.isEmpty { throw DriverError(description: "browser: the driver exited") }
            buffer.append(chunk)
        }
    }

    /// Closes the driver's input (it closes Chromium and exits); kills it if it does not within 10 s.
    func close() {
        try? input.close()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    static let driver = #"""
        # Drives headless Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: commands on fd 3,
        # replies and events on fd 4, each message NUL-terminated). One JSON step per stdin line, one answer per line.
        import json, os, shutil, subprocess, sys, tempfile, time

        chrome = sys.argv[1]
        command_read, command_write = os.pipe()
        reply_read, reply_write = os.pipe()
        # Copy the child's ends above 3 and 4 first so placing them on 3 and 4 cannot clobber each other.
        child_in, child_out = os.dup2(command_read, 100), os.dup2(reply_write, 101)
        profile = tempfile.mkdtemp(prefix="netvigil-chromium-")

        def place_fds():
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        browser = subprocess.Popen(
            [chrome, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             "--remote-debugging-pipe", "--user-data-dir=" + profile, "about:blank"],
            pass_fds=(3, 4), preexec_fn=place_fds, start_new_session=True,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in (command_read, reply_write, child_in, child_out):
            os.close(fd)

        pending, next_id, console, exceptions = b"", 0, [], []

        def note(event):
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                exceptions.append(details.get("exception", {}).get("description") or details.get("text", "?"))
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                entry = params["entry"]
                console.append(entry["text"] + (" (" + entry["url"] + ")" if entry.get("url") else ""))
            elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "warning", "assert"):
                console.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params["args"]))

        def send(method, params=None, session=None):
            global next_id, pending
            next_id += 1
            message = {"id": next_id, "method": method, "params": params or {}}
            if session: message["sessionId"] = session
            os.write(command_write, json.dumps(message).encode() + b"\0")
            while True:
                while b"\0" not in pending:
                    chunk = os.read(reply_read, 65536)
                    if not chunk: raise RuntimeError("chromium closed the DevTools pipe")
                    pending += chunk
                raw, pending = pending.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == next_id:
                    if "error" in reply: raise RuntimeError(method + ": " + json.dumps(reply["error"]))
                    return reply.get("result", {})
                note(reply)

        def answer(**fields):
            global console, exceptions
            fields.update(console=console, exceptions=exceptions)
            console, exceptions = [], []
            sys.stdout.write(json.dumps(fields) + "\n")
            sys.stdout.flush()

        try:
            target = send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log"):
                send(domain + ".enable", session=session)

            def evaluate(expression):
                reply = send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, session)
                if "exceptionDetails" in reply:
                    raise RuntimeError("evaluating failed: " + reply["exceptionDetails"].get("exception", {}).get("description", "?"))
                return reply.get("result", {}).get("value")

            for line in sys.stdin:
                step = json.loads(line)
                try:
                    if "navigate" in step:
                        send("Page.navigate", {"url": step["navigate"]}, session)
                        answer(value=None)
                    elif "waitFor" in step:
                        deadline, value = time.time() + step.get("timeout", 10), None
                        while time.time() < deadline:
                            try:
                                value = evaluate(step["waitFor"])
                            except RuntimeError:
                                value = None  # the page is still loading
                            if value: break
                            time.sleep(0.1)
                        answer(value=value)
                    elif "eval" in step:
                        answer(value=evaluate(step["eval"]))
                    elif "viewport" in step:
                        width = step["viewport"]
                        send("Emulation.setDeviceMetricsOverride", {"width": width, "height": step["height"],
                             "deviceScaleFactor": 1, "mobile": width < 600}, session)
                        answer(value=None)
                    elif "screenshot" in step:
                        import base64
                        shot = send("Page.captureScreenshot", {"format": "png"}, session)["data"]
                        with open(step["screenshot"], "wb") as file:
                            file.write(base64.b64decode(shot))
                        answer(value=step["screenshot"])
                    else:
                        answer(error="unknown step " + line.strip())
                except RuntimeError as error:
                    answer(error=str(error))
        finally:
            try:
                send("Browser.close")
            except Exception:
                pass
            try:
                browser.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(browser.pid, 9)
                browser.wait()
            shutil.rmtree(profile, ignore_errors=True)
        """#
}
