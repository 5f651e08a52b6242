import PantryCLI

/// The `pantry` executable.
@main
struct PantryMain {
    static func main() async {
        await PantryCommand.main()
    }
}
