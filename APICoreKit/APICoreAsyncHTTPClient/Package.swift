// swift-tools-version:6.0
import PackageDescription

/// `APICoreAsyncHTTPClient`: an `HTTPTransport` on swift-server's AsyncHTTPClient (SwiftNIO, a
/// connection pool, HTTP/2 by ALPN, TLS by NIOSSL with the app's roots and pinned keys).
///
/// A package of its own so that kits, which depend on `APICoreKit`, never resolve or build
/// AsyncHTTPClient: only an app's composition root links it.
let package = Package(
    name: "APICoreAsyncHTTPClient",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "APICoreAsyncHTTPClient", targets: ["APICoreAsyncHTTPClient"])
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        .target(
            name: "APICoreAsyncHTTPClient",
            dependencies: [
                .product(name: "APICore", package: "APICoreKit"), .product(name: "APICoreLive", package: "APICoreKit"),
                .product(name: "APICoreWebSocket", package: "APICoreKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        )
    ]
)
