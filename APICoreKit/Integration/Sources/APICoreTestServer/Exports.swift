// Tests and benchmarks configure the WebSocket endpoint through these types.
@_exported import APICoreServerSupport
