// Tests and benchmarks configure the WebSocket endpoint through these types.
@_exported import APICoreServerSupport
// Log capture and waiting helpers, shared with the tests of APICoreKit itself.
@_exported import APICoreTesting
