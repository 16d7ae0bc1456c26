// DatabaseRules: the Firebase Realtime Database rules language (`database.rules.json`).
//
// Owns: the lenient JSON reader for rules files (comments, trailing commas, raw line breaks in
// strings), the rule tree, the expression lexer, parser, static checker and printer, the data
// tree (`set`, `update`, server values, priorities), the evaluator with RuleDataSnapshot and
// string methods, read/write/validate semantics, decisions with traces and explanations,
// coverage and the linter. Does not own regular expressions: `matches()` runs through an
// injected ``DatabaseRegexEngine`` (PCRE2 lives in `RulesPatterns`). Semantics follow
// `docs/DATABASE-RULES.md`.
import Diagnostics

/// Stable diagnostic codes of the Realtime Database rules language.
///
/// `RD1xxx` rules file, `RD2xxx` expression syntax, `RD3xxx` expression checks, `RD4xxx`
/// evaluation, `RD5xxx` limits, `RD6xxx` invalid requests, `RD8xxx` lint. A code never changes
/// meaning and a retired code is never reused.
public enum DatabaseCode {
    // MARK: rules file
    /// The rules file is not (lenient) JSON.
    public static let jsonSyntax = "RD1001"
    /// A key appears twice in one object.
    public static let duplicateKey = "RD1002"
    /// The top-level object has no `rules` member.
    public static let missingRules = "RD1003"
    /// The top-level object has a member other than `rules`.
    public static let unexpectedTopLevel = "RD1004"
    /// Two `$wildcard` children in one node.
    public static let multipleWildcards = "RD1005"
    /// A child or unknown dot-key whose value is not an object.
    public static let expectedObject = "RD1006"
    /// A child key holding `.`, `#`, `$` (not leading), `/`, `[` or `]`.
    public static let invalidChildKey = "RD1007"
    /// A rule value that is neither a boolean nor an expression string.
    public static let invalidRuleValue = "RD1008"
    /// An `.indexOn` that is not a string or an array of strings.
    public static let invalidIndexOn = "RD1009"
    /// An empty expression string.
    public static let emptyExpression = "RD1010"
    /// A nested wildcard reusing an enclosing wildcard's name.
    public static let reusedWildcard = "RD1011"
    /// The rule tree's root is not an object.
    public static let rulesNotObject = "RD1012"

    // MARK: expression syntax
    /// A character that starts no token.
    public static let unexpectedCharacter = "RD2001"
    /// A string literal without its closing quote.
    public static let unterminatedString = "RD2002"
    /// A regular-expression literal without its closing `/`.
    public static let unterminatedRegex = "RD2003"
    /// The token sequence is not an expression.
    public static let parseError = "RD2004"
    /// `=` and compound assignments.
    public static let assignment = "RD2005"
    /// An operator or keyword the language does not have (`typeof`, unary `+`, `&`, `in`, …).
    public static let unsupportedOperator = "RD2006"
    /// A regular expression outside the documented dialect.
    public static let invalidRegex = "RD2007"
    /// A regular-expression flag other than `i`.
    public static let unsupportedRegexFlag = "RD2008"
    /// A number literal that is malformed or not finite.
    public static let invalidNumber = "RD2009"
    /// A malformed escape in a string literal.
    public static let invalidEscape = "RD2010"

    // MARK: expression checks (deploy-time)
    /// The rule is not statically boolean.
    public static let notBoolean = "RD3001"
    /// `!` on a non-boolean.
    public static let notOperand = "RD3002"
    /// Arithmetic on a non-number.
    public static let arithmeticOperand = "RD3003"
    /// Ordering on something that is not a number or string.
    public static let orderingOperand = "RD3004"
    /// Equality on a snapshot or regular expression.
    public static let equalityOperand = "RD3005"
    /// No such method or property.
    public static let noSuchMember = "RD3006"
    /// A call on something that is not a method.
    public static let notAFunction = "RD3007"
    /// Wrong number of arguments.
    public static let arity = "RD3008"
    /// A literal argument of the wrong type.
    public static let argumentType = "RD3009"
    /// `matches()` without a regular-expression literal.
    public static let matchesArgument = "RD3010"
    /// `newData` in a `.read` rule.
    public static let newDataInRead = "RD3011"
    /// An unknown variable.
    public static let unknownVariable = "RD3012"
    /// `&&`, `||` or a `?:` condition on a non-boolean.
    public static let logicalOperand = "RD3013"
    /// A regular expression or array literal where it cannot be used.
    public static let misplacedLiteral = "RD3014"
    /// A `[]` subscript on something other than `auth` data.
    public static let subscriptNotAllowed = "RD3015"

    // MARK: evaluation
    /// An operand or receiver of the wrong type at run time.
    public static let typeError = "RD4001"
    /// `null` as an operand of arithmetic or ordering.
    public static let nullOperand = "RD4002"
    /// A non-string argument where a string is required.
    public static let argumentNotString = "RD4003"
    /// `parent()` of the root.
    public static let parentOfRoot = "RD4004"
    /// The regular-expression engine failed (limit hit or unusable pattern); never a match.
    public static let regexFailure = "RD4005"
    /// The rule produced a non-boolean at run time.
    public static let resultNotBoolean = "RD4006"

    // MARK: limits
    /// The rules file is larger than `maxSourceBytes`.
    public static let rulesTooLarge = "RD5001"
    /// The rules file is larger than production's documented 256 KiB (warning).
    public static let rulesAboveDocumentedSize = "RD5002"
    /// The rule tree or rules JSON is nested deeper than `maxNestingDepth`.
    public static let nestingTooDeep = "RD5003"
    /// One expression is longer than `maxExpressionBytes`.
    public static let expressionTooLong = "RD5004"
    /// One expression nests deeper than `maxExpressionDepth`.
    public static let expressionTooDeep = "RD5005"
    /// One rule took more than `evaluationStepLimit` steps.
    public static let stepLimit = "RD5006"
    /// The written data is nested deeper than `maxDataDepth` or is larger than `maxWrittenNodes`.
    public static let dataTooLarge = "RD5007"
    /// A string operation (`+`, `replace`, `toLowerCase`, `toUpperCase`) would build a string
    /// longer than `maxStringBytes`; the rule is false.
    public static let stringTooLong = "RD5008"
    /// The request's string operations did more than `evaluationWorkLimit` units of work; the
    /// rule is false, and so is every later rule that reads or builds a string.
    public static let workLimit = "RD5009"

    // MARK: invalid requests
    /// A path key holding `.`, `#`, `$`, `[`, `]`, a control character, or too long.
    public static let invalidPathKey = "RD6001"
    /// A path deeper than 32 levels.
    public static let pathTooDeep = "RD6002"
    /// A written key holding a forbidden character (or too long).
    public static let invalidWrittenKey = "RD6003"
    /// A server value other than `timestamp` or `{"increment": n}`.
    public static let invalidServerValue = "RD6004"
    /// A `.priority` that is not a number, string or null, or a misplaced `.value`.
    public static let invalidPriority = "RD6005"
    /// Two update paths where one is an ancestor of the other, or an empty update.
    public static let invalidUpdate = "RD6006"

    // MARK: internal
    /// An internal invariant failed; please report the input.
    public static let internalError = "RD9001"
}
