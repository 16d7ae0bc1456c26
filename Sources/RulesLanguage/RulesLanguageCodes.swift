// RulesLanguageCodes: the catalogue of the rules language's codes (`RL…`). Every call site, here
// and in the modules above (RulesPatterns' regex engine, RulesLinting's linter), names its code
// through this table; the message, which may name values, stays at the call site. Wording may
// change; a code never does, and a retired code is never reused. docs/RULES-LANGUAGE.md
// ("Diagnostic codes") lists the same codes.
import Diagnostics

/// Every code of the rules language.
///
/// `RL1xxx`: parse (``Diagnostic``s of ``RulesParser``). `RL2xxx`: check, run only on a clean
/// parse. `RL3xxx`: evaluation (``EvaluationError``, ``RegexError``); a limit error denies the
/// whole request. `RL4xxx`: case files (RulesCases' `CaseFileLoader`). `RL8xxx`: `validate rules
/// lint`'s warnings about rules that compile (RulesLinting's `RulesLinter`), kept here so that
/// the family has one table.
public enum RulesLanguageCodes {
    // MARK: - Parse (RL1xxx)

    /// A note closing a capped list of diagnostics (``RulesCompiler/diagnosticCap``).
    public static let diagnosticsTruncated = DiagnosticCode(
        id: "RL1000", summary: "more diagnostics were found than are reported (a note)",
        help: "fix the problems shown and compile again to see the rest")
    /// The source (or one expression) is over ``RulesLimits/maxSourceBytes``.
    public static let sourceTooLarge = DiagnosticCode(
        id: "RL1001", summary: "the rules source (or a lone expression) is larger than `maxSourceBytes`",
        help: "split the rules or remove unused functions")
    /// A character that starts no token.
    public static let unexpectedCharacter = DiagnosticCode(
        id: "RL1002", summary: "a character that starts no token",
        help: "remove the character, or put it inside a string literal")
    /// A string literal without its closing quote.
    public static let unterminatedString = DiagnosticCode(
        id: "RL1003", summary: "a string literal without its closing quote",
        help: "add the closing quote")
    /// A `\` escape a string or bytes literal does not allow.
    public static let invalidEscape = DiagnosticCode(
        id: "RL1004", summary: "an invalid escape sequence in a string or bytes literal",
        help: "use `\\\\` for a literal backslash; `\\x`, `\\u` and `\\U` take 2, 4 and 8 hex digits, octal escapes 3 digits")
    /// An integer literal outside signed 64-bit.
    public static let integerOutOfRange = DiagnosticCode(
        id: "RL1005", summary: "an integer literal outside the signed 64-bit range",
        help: "integers are signed 64-bit (at most 9223372036854775807)")
    /// An exponent or hex number literal.
    public static let unsupportedNumber = DiagnosticCode(
        id: "RL1006", summary: "a number literal in an unsupported form (exponent, hex)",
        help: "write integers in decimal and floats as `1.5`")
    /// A block comment without its closing `*/`.
    public static let unterminatedComment = DiagnosticCode(
        id: "RL1007", summary: "a block comment without its closing `*/`",
        help: "close the comment with `*/`")
    /// A token other than the one the grammar needs.
    public static let expectedToken = DiagnosticCode(
        id: "RL1010", summary: "a token other than the one the grammar needs here",
        help: "the message says what was expected and what was found")
    /// No expression where one is needed.
    public static let expectedExpression = DiagnosticCode(
        id: "RL1011", summary: "no expression where one is needed",
        help: "write a literal, a name, a call or a parenthesized expression")
    /// Nesting past ``RulesLimits/maxNestingDepth``.
    public static let nestingTooDeep = DiagnosticCode(
        id: "RL1012", summary: "blocks or expressions nest deeper than `maxNestingDepth`",
        help: "split the expression into functions")
    /// A `service` other than Firestore or Storage.
    public static let unknownService = DiagnosticCode(
        id: "RL1013", summary: "a `service` other than `cloud.firestore` or `firebase.storage`",
        help: "use `cloud.firestore` or `firebase.storage`")
    /// An `allow` method the language does not have.
    public static let unknownAllowMethod = DiagnosticCode(
        id: "RL1014", summary: "an `allow` method the language does not have",
        help: "methods are `read`, `write`, `get`, `list`, `create`, `update` and `delete`")
    /// A `match` path pattern that cannot be read.
    public static let invalidPathPattern = DiagnosticCode(
        id: "RL1015", summary: "a `match` path pattern that cannot be read",
        help: "start the pattern with `/`; write `{name}` for one segment or `{name=**}` for many")
    /// A call of something other than a name.
    public static let callOfNonName = DiagnosticCode(
        id: "RL1017", summary: "a call of something other than a name",
        help: "call functions by name: `f(x)` or `x.method()`")
    /// A map literal key that is not a string literal.
    public static let mapKeyNotString = DiagnosticCode(
        id: "RL1018", summary: "a map literal key that is not a string literal",
        help: "quote the key: `{'name': value}`")
    /// A path literal segment that cannot be read.
    public static let invalidPathSegment = DiagnosticCode(
        id: "RL1019", summary: "a path literal segment that cannot be read",
        help: "paths look like `/users/$(request.auth.uid)`; build any other path from a string: `path('…')`")
    /// `rules_version` after other declarations.
    public static let versionNotFirst = DiagnosticCode(
        id: "RL1021", summary: "`rules_version` comes after other declarations",
        help: "move `rules_version = '2';` to the top of the file")
    /// A `rules_version` other than `'1'` or `'2'`.
    public static let unknownVersion = DiagnosticCode(
        id: "RL1022", summary: "a `rules_version` other than `'1'` or `'2'`",
        help: "use `'1'` or `'2'`")

    // MARK: - Check (RL2xxx)

    /// A name that is neither in scope nor a global.
    public static let unknownVariable = DiagnosticCode(
        id: "RL2001", summary: "a name that is neither a variable in scope nor a global",
        help: "check the spelling; the help line names the nearest variable")
    /// A call of a function the language does not have (a warning, as production compiles it).
    public static let unknownFunction = DiagnosticCode(
        id: "RL2002", summary: "a call of a function the language does not have (a warning: requests that reach it fail with RL3006)",
        help: "check the spelling; in Storage rules, `get()` and `exists()` are `firestore.get()` and `firestore.exists()`")
    /// A call with the wrong number of arguments.
    public static let wrongArity = DiagnosticCode(
        id: "RL2003", summary: "a call with the wrong number of arguments",
        help: "pass as many arguments as the function takes")
    /// A method no type has.
    public static let unknownMethod = DiagnosticCode(
        id: "RL2004", summary: "a call of a method no type has",
        help: "check the spelling; the help line names the nearest method")
    /// A namespace (`math`, `hashing`, …) used as a value.
    public static let namespaceAsValue = DiagnosticCode(
        id: "RL2005", summary: "a namespace used as a value",
        help: "call one of the namespace's functions")
    /// A function declared twice in one scope.
    public static let duplicateFunction = DiagnosticCode(
        id: "RL2006", summary: "a function declared twice in one scope",
        help: "rename or remove one of them")
    /// A function that calls itself, directly or through others.
    public static let recursion = DiagnosticCode(
        id: "RL2007", summary: "a function that calls itself, directly or through other functions",
        help: "recursion is not allowed in rules; unroll the logic")
    /// More parameters than ``RulesLimits/maxFunctionArguments``.
    public static let tooManyParameters = DiagnosticCode(
        id: "RL2008", summary: "a function with more parameters than `maxFunctionArguments`",
        help: "pass a map instead of many arguments")
    /// More `let` bindings than ``RulesLimits/maxLetBindings``.
    public static let tooManyLets = DiagnosticCode(
        id: "RL2009", summary: "a function with more `let` bindings than `maxLetBindings`",
        help: "split the function")
    /// A `=**` wildcard before the last segment under rules_version 1.
    public static let recursiveWildcardNotLast = DiagnosticCode(
        id: "RL2010", summary: "a `=**` wildcard before the last segment under rules_version 1",
        help: "add `rules_version = '2';` to use `=**` in the middle of a path")
    /// A block under a v1 `=**` wildcard, which nothing reaches (a warning).
    public static let unreachableUnderRecursiveWildcard = DiagnosticCode(
        id: "RL2011", summary: "a block nested under a rules_version 1 `=**` wildcard, which no request reaches (a warning)",
        help: "move the block out of the recursive match or use rules_version 2")
    /// A rule whose condition is `false` (a warning).
    public static let neverGrants = DiagnosticCode(
        id: "RL2012", summary: "a rule whose condition is `false`, so it never grants (a warning)",
        help: "remove the rule")
    /// A top-level `match` that cannot match the service's paths (a warning).
    public static let unreachableRoot = DiagnosticCode(
        id: "RL2013", summary: "a top-level `match` that cannot match the service's paths (a warning)",
        help: "nest the block inside the service's root `match`")
    /// `match` blocks nested past ``RulesLimits/maxMatchDepth``.
    public static let matchTooDeep = DiagnosticCode(
        id: "RL2014", summary: "`match` blocks nest deeper than `maxMatchDepth`",
        help: "join nested patterns into one longer pattern")
    /// `let` without `rules_version = '2'`.
    public static let letNeedsVersion2 = DiagnosticCode(
        id: "RL2015", summary: "a `let` binding without `rules_version = '2'`",
        help: "add `rules_version = '2';` at the top of the file")
    /// An `is` type name the language does not have.
    public static let unknownType = DiagnosticCode(
        id: "RL2016", summary: "a type name the language does not have",
        help: "check the spelling; the help line names the nearest type")
    /// A literal pattern that is not valid RE2.
    public static let invalidRegexLiteral = DiagnosticCode(
        id: "RL2017", summary: "a literal regular expression that is not valid RE2",
        help: "patterns use RE2 syntax: no lookaround, backreferences, atomic groups or possessive quantifiers")
    /// A parameter or `let` declared twice in one function.
    public static let duplicateName = DiagnosticCode(
        id: "RL2018", summary: "a parameter or `let` binding declared twice in one function",
        help: "rename one of them")
    /// More than one `=**` wildcard in one pattern.
    public static let twoRecursiveWildcards = DiagnosticCode(
        id: "RL2019", summary: "a `match` pattern with more than one `=**` wildcard",
        help: "keep one `=**` wildcard, the last one a request path needs")
    /// A wildcard that shadows an outer wildcard or a global (a warning).
    public static let shadowingWildcard = DiagnosticCode(
        id: "RL2020", summary: "a wildcard that shadows an outer wildcard or a global such as `request` (a warning)",
        help: "rename the wildcard")
    /// Storage `list` under rules_version 1, always denied (a warning).
    public static let storageListNeedsVersion2 = DiagnosticCode(
        id: "RL2021", summary: "a Storage `list` rule under rules_version 1, which is always denied (a warning)",
        help: "add `rules_version = '2';`")
    /// A literal condition that is not a bool (a warning).
    public static let nonBoolLiteralCondition = DiagnosticCode(
        id: "RL2022", summary: "a literal condition that is not a bool, so the rule never grants (a warning)",
        help: "write a condition that evaluates to a bool")
    /// More than one `service` block.
    public static let multipleServices = DiagnosticCode(
        id: "RL2023", summary: "more than one `service` block in a file",
        help: "put Firestore and Storage rules in separate files")
    /// No `service` block.
    public static let noService = DiagnosticCode(
        id: "RL2024", summary: "a file without a `service` block",
        help: "add `service cloud.firestore { … }` or `service firebase.storage { … }`")
    /// A Firestore pattern that ends on a collection or the database root (a warning).
    public static let collectionPattern = DiagnosticCode(
        id: "RL2025", summary: "a Firestore pattern that ends on a collection or the database root, not a document (a warning)",
        help: "rules apply to documents: add a `/{docId}` segment")

    // MARK: - Evaluation (RL3xxx)

    /// A property that is not there.
    public static let undefinedProperty = DiagnosticCode(
        id: "RL3001", summary: "a property that is not there (a missing map key or field)",
        help: "check with `'key' in map` first, or read it with `map.get('key', default)`")
    /// An operation on `null`.
    public static let nullValue = DiagnosticCode(
        id: "RL3002", summary: "an operation on `null`",
        help: "compare the value with `null` first")
    /// An operation the operands' types do not support.
    public static let unsupportedOperation = DiagnosticCode(
        id: "RL3003", summary: "an operation the operands' types do not support",
        help: "check the operands' types with `is` first")
    /// Division or `%` by zero.
    public static let divideByZero = DiagnosticCode(
        id: "RL3004", summary: "a division or `%` by zero",
        help: "check the divisor first")
    /// An index outside a list's, string's or path's bounds.
    public static let indexOutOfRange = DiagnosticCode(
        id: "RL3005", summary: "an index outside the bounds of a list, string or path",
        help: "check the size first")
    /// A call of a function the language does not have, reached by a request.
    public static let functionNotFound = DiagnosticCode(
        id: "RL3006", summary: "a request reached a call of a function the language does not have",
        help: "see the RL2002 warning at the call")
    /// A condition that is not a bool.
    public static let notBool = DiagnosticCode(
        id: "RL3007", summary: "a condition that evaluated to something other than a bool",
        help: "make the condition a bool expression")
    /// An argument a built-in does not accept.
    public static let invalidArgument = DiagnosticCode(
        id: "RL3008", summary: "an argument a built-in function or method does not accept",
        help: "the message says which argument and why")
    /// Integer (or timestamp, duration) arithmetic outside its range.
    public static let integerOverflow = DiagnosticCode(
        id: "RL3009", summary: "integer, timestamp or duration arithmetic outside its range",
        help: "keep the operands small enough for signed 64-bit results")
    /// Calls nested past ``RulesLimits/maxCallDepth`` (a limit: denies the request).
    public static let callDepth = DiagnosticCode(
        id: "RL3010", summary: "function calls nest deeper than `maxCallDepth` (a limit: the request is denied)",
        help: "flatten the chain of calls")
    /// More document lookups than ``RulesLimits/maxLookups`` (a limit: denies the request).
    public static let tooManyLookups = DiagnosticCode(
        id: "RL3011", summary: "more distinct document lookups than `maxLookups` or `maxBatchedLookups` (a limit: the request is denied)",
        help: "look up fewer documents, or keep the data a rule needs in the document it guards")
    /// More expressions than ``RulesLimits/evaluationStepLimit`` (a limit: denies the request).
    public static let tooManySteps = DiagnosticCode(
        id: "RL3012", summary: "more expressions evaluated than `evaluationStepLimit` (a limit: the request is denied)",
        help: "simplify the conditions the request reaches")
    /// A document lookup that failed.
    public static let lookupFailed = DiagnosticCode(
        id: "RL3013", summary: "a document lookup failed (in \"mocks-only\" mode: a path the case does not list)",
        help: "the message gives the path and why the lookup failed")
    /// A name with no value at evaluation.
    public static let unboundVariable = DiagnosticCode(
        id: "RL3014", summary: "a name with no value at evaluation",
        help: "compile the rules first: the checker reports unknown names (RL2001)")
    /// A request for a service other than the rules'.
    public static let serviceMismatch = DiagnosticCode(
        id: "RL3015", summary: "a request for another service than the rules guard",
        help: "evaluate Firestore requests with Firestore rules and Storage requests with Storage rules")
    /// A Storage `list` request under rules_version 1.
    public static let storageListDenied = DiagnosticCode(
        id: "RL3016", summary: "a Storage `list` request under rules_version 1",
        help: "add `rules_version = '2';` to the rules")
    /// A function called with the wrong number of arguments.
    public static let argumentCount = DiagnosticCode(
        id: "RL3017", summary: "a function called with the wrong number of arguments",
        help: "pass as many arguments as the function takes")
    /// Path matching past its step bound (a limit: denies the request).
    public static let pathMatchingLimit = DiagnosticCode(
        id: "RL3018", summary: "matching the path took more than 100,000 pattern steps (a limit: the request is denied)",
        help: "use fewer nested `=**` wildcards")
    /// Evaluation nested past ``RulesLimits/maxEvaluationDepth`` (a limit: denies the request).
    public static let evaluationTooDeep = DiagnosticCode(
        id: "RL3019", summary: "evaluation nests deeper than `maxEvaluationDepth` across calls (a limit: the request is denied)",
        help: "split deep expressions and flatten the chain of calls")
    /// A pattern that is not valid RE2.
    public static let invalidRegex = DiagnosticCode(
        id: "RL3020", summary: "a regular expression that is not valid RE2",
        help: "patterns use RE2 syntax: no lookaround, backreferences, atomic groups or possessive quantifiers")
    /// A match that hit the regex match limit.
    public static let regexMatchLimit = DiagnosticCode(
        id: "RL3021", summary: "a regular-expression match hit its match limit (never a match)",
        help: "simplify the pattern, or match shorter values")
    /// No regex engine was injected.
    public static let noRegexEngine = DiagnosticCode(
        id: "RL3022", summary: "no regular-expression engine is configured",
        help: "compile the rules with a regex engine (RulesPatterns' `PCRE2RegexEngine`)")
    /// A request path with an empty segment.
    public static let emptyPathSegment = DiagnosticCode(
        id: "RL3023", summary: "a request path with an empty segment",
        help: "send the path without `//` or a trailing `/`")
    /// Built-in work past ``RulesLimits/evaluationWorkLimit`` (a limit: denies the request).
    public static let workLimit = DiagnosticCode(
        id: "RL3024", summary: "built-in operations did more work than `evaluationWorkLimit` (a limit: the request is denied)",
        help: "compare or build smaller values")
    /// A built value past ``RulesLimits/maxValueSize`` (a limit: denies the request).
    public static let valueTooLarge = DiagnosticCode(
        id: "RL3025", summary: "a built value larger than `maxValueSize` (a limit: the request is denied)",
        help: "build smaller strings, lists and paths")
    /// An internal invariant of the evaluator failed.
    public static let internalError = DiagnosticCode(
        id: "RL3099", summary: "an internal error of the evaluator",
        help: "please report the rules and the request")

    // MARK: - Case files (RL4xxx, RulesCases' CaseFileLoader)

    /// A case whose request production never makes: a negative object size, a Storage object
    /// named other than its path, a Firestore `resource` whose `__name__` is not the path.
    public static let impossibleRequest = DiagnosticCode(
        id: "RL4001", summary: "a case states a request production never makes",
        help: "a Storage object's `size` is at least 0, its `name` is the path after `/o/` and its `bucket` the bucket segment; a Firestore `resource` is the document at the case's `path` (a `__name__` field, if any, names it)")

    // MARK: - Lint (RL8xxx, RulesLinting's RulesLinter)

    /// `allow write` (or create/update/delete) with no condition or `if true`.
    public static let unconditionalWrite = DiagnosticCode(
        id: "RL8001", summary: "a write rule with no condition or `if true`: anyone can write",
        help: "require a signed-in owner, e.g. `if request.auth != null && request.auth.uid == userId`")
    /// A write under a `{userId}`-style wildcard that never compares `request.auth.uid` with it.
    public static let ownershipHole = DiagnosticCode(
        id: "RL8002", summary: "a write under a `{userId}`-style wildcard that never compares `request.auth.uid` with it",
        help: "compare `request.auth.uid == userId`, or decide the warning with `validate rules lint --prove`")
    /// A rule covering `delete` that reads `request.resource`, which a delete does not have.
    public static let deleteReadsRequestResource = DiagnosticCode(
        id: "RL8003", summary: "a rule covering `delete` that reads `request.resource`, which a delete does not have",
        help: "give `delete` its own `allow` that does not read `request.resource`")
    /// A function no `allow` condition ever calls, directly or through other functions.
    public static let unusedFunction = DiagnosticCode(
        id: "RL8004", summary: "a function no `allow` condition calls, directly or through other functions",
        help: "remove it, or call it from an `allow` condition")
    /// A note: the analysis of calls stopped at its work limit, so findings may be incomplete.
    public static let analysisLimit = DiagnosticCode(
        id: "RL8005", summary: "the analysis of calls stopped at its work limit, so findings may be incomplete (a note)",
        help: "split the rules or reduce the calls per function")

    /// Every code, in order.
    public static let all: [DiagnosticCode] = [
        diagnosticsTruncated, sourceTooLarge, unexpectedCharacter, unterminatedString, invalidEscape, integerOutOfRange,
        unsupportedNumber, unterminatedComment, expectedToken, expectedExpression, nestingTooDeep, unknownService,
        unknownAllowMethod, invalidPathPattern, callOfNonName, mapKeyNotString, invalidPathSegment, versionNotFirst,
        unknownVersion,
        unknownVariable, unknownFunction, wrongArity, unknownMethod, namespaceAsValue, duplicateFunction, recursion,
        tooManyParameters, tooManyLets, recursiveWildcardNotLast, unreachableUnderRecursiveWildcard, neverGrants,
        unreachableRoot, matchTooDeep, letNeedsVersion2, unknownType, invalidRegexLiteral, duplicateName,
        twoRecursiveWildcards, shadowingWildcard, storageListNeedsVersion2, nonBoolLiteralCondition, multipleServices,
        noService, collectionPattern,
        undefinedProperty, nullValue, unsupportedOperation, divideByZero, indexOutOfRange, functionNotFound, notBool,
        invalidArgument, integerOverflow, callDepth, tooManyLookups, tooManySteps, lookupFailed, unboundVariable,
        serviceMismatch, storageListDenied, argumentCount, pathMatchingLimit, evaluationTooDeep, invalidRegex,
        regexMatchLimit, noRegexEngine, emptyPathSegment, workLimit, valueTooLarge, internalError,
        impossibleRequest,
        unconditionalWrite, ownershipHole, deleteReadsRequestResource, unusedFunction, analysisLimit,
    ]
}
