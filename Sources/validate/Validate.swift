import ArgumentParser

/// The `validate` command-line tool.
@main
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check sign-up fields, security rules and display-name claims offline.",
        subcommands: [RulesCommand.self, NamesCommand.self])
}
