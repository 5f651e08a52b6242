import ArgumentParser

/// `pantry`: the app, on the command line.
public struct PantryCommand: AsyncParsableCommand {
    /// The version printed by `--version`.
    public static let version = "0.2.0"

    /// The command's help and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "pantry",
        abstract: "Households, members and products, from the command line.",
        discussion: """
            pantry composes UserKit, ProductKit and HouseholdKit over one APIClient: REST and GraphQL, one middleware chain, one error type, a SQLite cache, WebSocket subscriptions.

            Without --endpoint every command starts an embedded dev server on a free loopback port and logs in as its demo user. For a server that lives between commands:

              swift run --package-path Tools dev-server --port 4000
              pantry login --endpoint http://127.0.0.1:4000/ --email alice@example.com --password pantry

            Start with: pantry demo
            """,
        version: version,
        subcommands: [
            DemoCommand.self, LoginCommand.self, LogoutCommand.self, MeCommand.self, HouseholdsCommand.self, MembersCommand.self,
            ProductsCommand.self, WatchCommand.self, CacheCommand.self, QueueCommand.self, ServeCommand.self,
        ]
    )

    /// Creates the command (ArgumentParser needs this).
    public init() {}
}
