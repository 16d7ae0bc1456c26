// `validate email|password|display-name [FILE…]`: check one kind of field, record by record.
import ArgumentParser
import BatchValidation

/// `validate email`.
struct EmailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "email",
        abstract: "Check email addresses (strict sign-up policy), one record at a time.")

    @OptionGroup var batch: BatchOptions

    func validate() throws { try batch.check(for: .email) }

    func run() throws { try batch.run(.email) }
}

/// `validate password`.
struct PasswordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "password",
        abstract: "Check passwords (NIST SP 800-63B). Passwords never appear in any output.")

    @OptionGroup var batch: BatchOptions
    @OptionGroup var context: PasswordContextOptions

    func validate() throws {
        try batch.check(for: .password)
        try context.check(input: batch.input)
    }

    func run() throws { try batch.run(.password, context: context) }
}

/// `validate display-name`.
struct DisplayNameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "display-name",
        abstract: "Check display names (3–30 of A–Z a–z 0–9 . _, period rules, reserved names).")

    @OptionGroup var batch: BatchOptions
    @Option(name: .customLong("app-name"), help: "The app's name, reserved like the shipped reserved names.")
    var appName: String?

    func validate() throws { try batch.check(for: .displayName) }

    func run() throws { try batch.run(.displayName, appName: appName) }
}

/// Where a password's context comes from: per-record fields or fixed values.
struct PasswordContextOptions: ParsableArguments {
    @Option(name: .customLong("username-field"), help: ArgumentHelp("Field holding each record's username (CSV/JSONL).", valueName: "NAME"))
    var usernameField: String?
    @Option(name: .customLong("email-field"), help: ArgumentHelp("Field holding each record's email address (CSV/JSONL).", valueName: "NAME"))
    var emailField: String?
    @Option(name: .customLong("app-name-field"), help: ArgumentHelp("Field holding each record's app name (CSV/JSONL).", valueName: "NAME"))
    var appNameField: String?
    @Option(help: "The username, for every record without its own.")
    var username: String?
    @Option(help: "The email address, for every record without its own.")
    var email: String?
    @Option(name: .customLong("app-name"), help: "The app's name, for every record without its own.")
    var appName: String?
    @Option(name: .customLong("confirm-field"), help: ArgumentHelp("Field holding each record's password typed a second time (CSV/JSONL); a mismatch is PW108.", valueName: "NAME"))
    var confirmField: String?
    @Flag(help: "Estimate each password's strength (zxcvbn, first 72 characters): JSONL records get \"strength\", summaries a histogram of scores.")
    var strength = false
    @Option(name: .customLong("user-inputs-field"), help: ArgumentHelp("Field holding each record's array of extra words for the strength estimate (JSONL).", valueName: "NAME"))
    var userInputsField: String?

    func check(input: InputFormat) throws {
        let fields = [usernameField, emailField, appNameField].compactMap { $0 }
        if !fields.isEmpty && input == .lines {
            throw ValidationError("--username-field, --email-field and --app-name-field need --input csv or jsonl")
        }
        if confirmField != nil && input == .lines {
            throw ValidationError("--confirm-field needs --input csv or jsonl")
        }
        if input == .jsonl, let confirmField, case .column = FieldSelector(confirmField) {
            throw ValidationError("--input jsonl needs a field name for --confirm-field, not a column number")
        }
        if let userInputsField {
            guard input == .jsonl else { throw ValidationError("--user-inputs-field needs --input jsonl") }
            if case .column = FieldSelector(userInputsField) {
                throw ValidationError("--input jsonl needs a field name for --user-inputs-field, not a column number")
            }
            guard strength else { throw ValidationError("--user-inputs-field needs --strength") }
        }
    }
}
