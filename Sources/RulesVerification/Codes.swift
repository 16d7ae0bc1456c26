// Codes: the catalogue of RulesVerification's stable diagnostic codes. Wording may change; a code
// never does, and a retired code is never reused. docs/VERIFICATION.md lists the same codes.

/// One code of the catalogue.
public struct VerificationCode: Sendable, Hashable {
    /// The stable id, e.g. `VF3011`.
    public var id: String
    /// A short name (SARIF `rules[].name`), e.g. `NewAccess`.
    public var name: String
    /// What the code reports, one line.
    public var summary: String
    /// What to do about it.
    public var help: String
}

/// Every code RulesVerification reports.
///
/// `VF1xxx`: a property file cannot be used. `VF2xxx`: why a verdict is `unknown`. `VF3xxx`:
/// findings: `VF300x` properties that do not pass (`rules verify --format sarif`), `VF301x`
/// `validate rules diff`'s changes, `VF31xx` inputs `diff` (`VF3101`-`VF3103`; `VF3104`, retired, refused Realtime Database rules) and `agree`
/// (`VF3101`, `VF3105`, `VF3106`) cannot use.
public enum VerificationCodes {
    /// A property file that cannot be read.
    public static let unreadablePropertyFile = VerificationCode(
        id: "VF1001", name: "UnreadablePropertyFile", summary: "the property file cannot be read",
        help: "check the path and that the file is at most 16 MiB")
    /// JSON/YAML syntax of a property file, or a reader limit.
    public static let propertyFileSyntax = VerificationCode(
        id: "VF1002", name: "PropertyFileSyntax", summary: "the property file is not valid JSON or YAML",
        help: "fix the syntax at the location shown")
    /// A missing or wrong key in a property file.
    public static let propertyFileFormat = VerificationCode(
        id: "VF1003", name: "PropertyFileFormat", summary: "a property is missing a key or has a wrong one",
        help: "see docs/VERIFICATION.md for the property-file format")
    /// A property condition that does not parse.
    public static let propertyCondition = VerificationCode(
        id: "VF1004", name: "PropertyCondition", summary: "a property's condition does not parse",
        help: "the condition is a rules expression over `request`, `resource` and the path variables")
    /// The encoding budget was exceeded.
    public static let encodingBudget = VerificationCode(
        id: "VF2001", name: "EncodingBudget", summary: "the encoding needs more than 200,000 units of work",
        help: "simplify deeply nested function calls, or split the property")
    /// A solver query exceeded its resource limit.
    public static let solverBudget = VerificationCode(
        id: "VF2002", name: "SolverBudget", summary: "a solver query needs more than 20,000,000 units of Z3's resource limit",
        help: "split the property (fewer methods, a narrower path), or set `solverResourceLimit` higher")
    /// A property violated (`rules verify --format sarif`).
    public static let propertyViolated = VerificationCode(
        id: "VF3001", name: "PropertyViolated", summary: "a request breaks the property",
        help: "replay the witness with `validate rules test` and fix the rules or the property")
    /// A property not decided (`rules verify --format sarif`).
    public static let propertyUnknown = VerificationCode(
        id: "VF3002", name: "PropertyUnknown", summary: "the property could not be decided",
        help: "see the reason (a timeout or an encoding limit, docs/VERIFICATION.md)")
    /// A property that holds where its file expects another verdict (`rules verify --format sarif`).
    public static let propertyHoldsUnexpectedly = VerificationCode(
        id: "VF3003", name: "PropertyHoldsUnexpectedly", summary: "the property holds but the file expects another verdict",
        help: "update `expect`")
    /// A request the new rules allow and the old rules deny (a `wider` change).
    public static let newAccess = VerificationCode(
        id: "VF3011", name: "NewAccess", summary: "the new rules allow a request the old rules deny",
        help: "the witness is a request the change newly allows; if that access is not intended, narrow the granting "
            + "`allow` condition, and paste the witness into a case file (`expect: deny`) as a regression test")
    /// A change that newly allows some requests and newly denies others (`incomparable`).
    public static let newAndLostAccess = VerificationCode(
        id: "VF3012", name: "NewAndLostAccess",
        summary: "the new rules allow a request the old rules deny, and deny one the old rules allow",
        help: "both witnesses are shown: the first is newly allowed, the second newly denied; check that both are "
            + "intended, and keep them as cases in a case file")
    /// A rules file `diff` cannot read or compile.
    public static let unusableRules = VerificationCode(
        id: "VF3101", name: "UnusableRules", summary: "a rules file cannot be read or does not compile",
        help: "`validate rules lint FILE` shows every problem")
    /// OLD and NEW guard different services.
    public static let serviceMismatch = VerificationCode(
        id: "VF3102", name: "ServiceMismatch", summary: "the two files guard different services",
        help: "compare Firestore rules with Firestore rules, Storage rules with Storage rules, database.rules.json with database.rules.json")
    /// `--base GITREF` cannot be resolved.
    public static let baseUnavailable = VerificationCode(
        id: "VF3103", name: "BaseUnavailable", summary: "the `--base` revision cannot be read",
        help: "run inside a git work tree and give a revision `git rev-parse` knows")
    /// `rules agree --function NAME` names no function of one parameter, or several.
    public static let agreeFunction = VerificationCode(
        id: "VF3105", name: "AgreeFunctionUnusable", summary: "`--function` names no function of one parameter in the rules, or several",
        help: "give the name of one function the rules declare with exactly one parameter")
    /// `rules agree`'s rule packs (shipped plus `--rules DIR`) do not load or compile.
    public static let agreePack = VerificationCode(
        id: "VF3106", name: "AgreePackUnusable", summary: "the rule packs `rules agree` compares with do not load or compile",
        help: "`validate display-name --rules DIR --explain-plan` shows every problem in the packs")

    /// The whole catalogue, in code order.
    public static let all: [VerificationCode] = [
        unreadablePropertyFile, propertyFileSyntax, propertyFileFormat, propertyCondition, encodingBudget, solverBudget,
        propertyViolated, propertyUnknown, propertyHoldsUnexpectedly,
        newAccess, newAndLostAccess, unusableRules, serviceMismatch, baseUnavailable,
        agreeFunction, agreePack,
    ]
}
