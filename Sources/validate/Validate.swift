// validate: the RulesKit command-line tool. This file only lists the subcommands; each
// subcommand lives in its own file so branches can add theirs without touching the others.
import ArgumentParser

/// The `validate` command-line tool.
@main
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check sign-up fields, security rules and display-name claims offline.",
        subcommands: [
            EmailCommand.self,
            PasswordCommand.self,
            DisplayNameCommand.self,
            RulesCommand.self,
            NamesCommand.self,
            CorpusCommand.self,
            ServeCommand.self,
            BreachedCommand.self,
        ])
}
