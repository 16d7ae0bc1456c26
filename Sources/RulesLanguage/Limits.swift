// Limits: every bound the rules pipeline enforces, with units and sources.

/// The named limits of the rules pipeline. Hitting one yields a diagnostic or evaluation error
/// with its own stable code, never a hang or a crash.
public struct RulesLimits: Sendable, Hashable {
    /// Largest accepted source text, in UTF-8 bytes (Firestore quotas: "Ruleset size 256 KB"). `RL1001`.
    public var maxSourceBytes: Int
    /// Deepest expression tree or block nesting the parser builds (RulesKit's own bound, keeps
    /// every recursive walk shallow). `RL1012`.
    public var maxNestingDepth: Int
    /// Deepest nesting of `match` blocks (Firestore quotas: 10). `RL2014`.
    public var maxMatchDepth: Int
    /// Most parameters of one function (Firestore quotas: 7). `RL2008`.
    public var maxFunctionArguments: Int
    /// Most `let` bindings in one function (Firestore quotas: 10). `RL2009`.
    public var maxLetBindings: Int
    /// Deepest chain of function calls at evaluation (Firestore quotas: 20). `RL3010`.
    public var maxCallDepth: Int
    /// Distinct document lookups for a single-document request (Firestore quotas: 10). `RL3011`.
    public var maxLookups: Int
    /// Distinct document lookups for a batched write or transaction (Firestore quotas: 20). `RL3011`.
    public var maxBatchedLookups: Int
    /// Expressions evaluated per request (Firestore quotas: 1,000). `RL3012`.
    public var evaluationStepLimit: Int
    /// Deepest nesting of expression evaluation, counted across function calls (RulesKit's own
    /// bound: call depth × expression height could otherwise exhaust a thread's stack). `RL3019`.
    public var maxEvaluationDepth: Int
    /// Units of work the built-in operators, methods and functions may do for one request: one
    /// per byte of a string or bytes value, and per element, entry or segment of a list, set,
    /// map or path, that they read, compare or build. RulesKit's own bound: production counts
    /// expressions (`evaluationStepLimit`), yet one expression such as `l.hasAll(l)` or
    /// `s.split('').join(s)` costs as much as its inputs are large. `RL3024`.
    public var evaluationWorkLimit: Int
    /// Largest value one operation may build (`+`, `concat`, `join`, `replace`, `split`,
    /// `lower`, `upper`, `toSet`, `union`, `toUtf8`, `toBase64`, `toHexString`, `$(…)` in a
    /// path): bytes of a string or bytes value, elements of a list or set, segments of a path.
    /// Production bounds evaluation by a memory limit it does not document (ref §1.2 lists
    /// none); 1 MiB is Firestore's largest document, so no value read from one is larger.
    /// `RL3025`.
    public var maxValueSize: Int

    /// Creates limits; the defaults are Firebase's published quotas.
    public init(
        maxSourceBytes: Int = 256 * 1024, maxNestingDepth: Int = 64, maxMatchDepth: Int = 10,
        maxFunctionArguments: Int = 7, maxLetBindings: Int = 10, maxCallDepth: Int = 20,
        maxLookups: Int = 10, maxBatchedLookups: Int = 20, evaluationStepLimit: Int = 1000,
        maxEvaluationDepth: Int = 256, evaluationWorkLimit: Int = 10_000_000, maxValueSize: Int = 1 << 20
    ) {
        self.maxSourceBytes = maxSourceBytes
        self.maxNestingDepth = maxNestingDepth
        self.maxMatchDepth = maxMatchDepth
        self.maxFunctionArguments = maxFunctionArguments
        self.maxLetBindings = maxLetBindings
        self.maxCallDepth = maxCallDepth
        self.maxLookups = maxLookups
        self.maxBatchedLookups = maxBatchedLookups
        self.evaluationStepLimit = evaluationStepLimit
        self.maxEvaluationDepth = maxEvaluationDepth
        self.evaluationWorkLimit = evaluationWorkLimit
        self.maxValueSize = maxValueSize
    }

    /// Firebase's published limits.
    public static let `default` = RulesLimits()
}
