import Crypto
import Foundation
import NetVigilAgent

/// What the heartbeat upserts into `agents`: who the agent is and what it watches.
public struct FleetAgentIdentity: Sendable, Equatable {
    public var agent: String
    public var version: String
    /// The top-level labels, as a JSON object.
    public var labelsJSON: String
    /// The probe targets' names, as a JSON array.
    public var targetsJSON: String
    /// `sha256:` and the hex SHA-256 of the configuration file's bytes (`builtin` for the built-in configuration):
    /// tells which agents run the same configuration without storing it.
    public var configDigest: String

    public init(agent: String, version: String, labels: [String: String], targets: [String], configBytes: [UInt8]?) {
        self.agent = agent
        self.version = version
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        labelsJSON = (try? encoder.encode(labels)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        targetsJSON = (try? encoder.encode(targets)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        configDigest = configBytes.map { "sha256:" + SHA256.hash(data: $0).map { String(format: "%02x", $0) }.joined() } ?? "builtin"
    }
}
