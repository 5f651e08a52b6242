import ArgumentParser

/// `pantry`: the app, on the command line. Its subcommands arrive with the app CLI issue; until
/// then it answers `--help` and `--version`.
public struct PantryCommand: ParsableCommand {
    /// The version printed by `--version`.
    public static let version = "0.1.0"

    /// The command's help and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "pantry",
        abstract: "Households, members and products, from the command line.",
        discussion: """
            pantry composes UserKit, ProductKit and HouseholdKit over one APIClient (REST and GraphQL,
            one middleware chain, one error type).
            """,
        version: version
    )

    /// Creates the command (ArgumentParser needs this).
    public init() {}
}
