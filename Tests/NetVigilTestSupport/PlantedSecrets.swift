/// A configuration with a secret in every place one can be (feed token, sink header, Authorization, API key,
/// basic_auth password), each starting with `SECRET`: no error or log line may contain that word.
/// It ends inside `targets:`, so a test can append a broken target or another section.
public enum PlantedSecrets {
    public static let configuration = """
        feed: { token: SECRET-feed-token }
        alerts:
          sinks:
            - { name: pager, webhook: { url: "https://h.test/hook", headers: { X-Signature: SECRET-sink } } }
        targets:
          - name: a
            url: https://h.test/
            headers: { Authorization: "Bearer SECRET-authorization", X-Api-Key: SECRET-api-key }
            basic_auth: { user: probe, password: SECRET-basic }

        """
}
