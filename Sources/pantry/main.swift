import PantryCLI

PantryCommand.main()
