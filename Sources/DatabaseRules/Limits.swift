/// Named bounds on everything the rules engine reads or does; hitting one yields its own code.
public struct DatabaseLimits: Sendable, Hashable {
    /// Largest rules file accepted, in bytes (`RD5001`). Production documents 256 KiB but a
    /// ~300 KB ruleset passed its dry run (reference §1.4), so 256 KiB only warns (`RD5002`).
    public var maxSourceBytes: Int
    /// The size above which `RD5002` warns: production's documented 256 KiB.
    public var documentedSourceBytes: Int
    /// Deepest JSON nesting in a rules file or written value (`RD5003`).
    public var maxNestingDepth: Int
    /// Longest single expression, in UTF-8 bytes (`RD5004`); production deployed 4,426 characters.
    public var maxExpressionBytes: Int
    /// Deepest sub-expression nesting, counting operator and member chains (`RD5005`); also
    /// bounds the recursion of checking, evaluation, explanation and printing.
    public var maxExpressionDepth: Int
    /// Most evaluation steps (node visits and snapshot lookups) for one rule (`RD5006`).
    public var evaluationStepLimit: Int
    /// Most nodes a write may carry (`RD5007`); production's 16 MB SDK write limit bounds it too.
    public var maxWrittenNodes: Int
    /// Longest string a rule may build with `+`, `replace`, `toLowerCase` or `toUpperCase`, in
    /// UTF-8 bytes (`RD5008`, the rule is false): 10 MiB, production's largest string value
    /// (the limits page, reference §1.4), so no stored string is longer.
    public var maxStringBytes: Int
    /// Units of work the string operations of one request may do, all its rules together: one
    /// per code unit read, compared or built by `length`, `==`, ordering, `+`, `contains`,
    /// `beginsWith`, `endsWith`, `replace`, case mapping, `matches()`, `child()` paths and
    /// `auth` comparisons (`RD5009`, the rule is false). RulesKit's own bound: production
    /// documents no evaluation cost limit (reference §1.4), and the step limit counts nodes,
    /// not how long the strings in them are.
    public var evaluationWorkLimit: Int

    /// Creates limits; defaults as in ``default``.
    public init(maxSourceBytes: Int = 4 << 20, documentedSourceBytes: Int = 256 << 10, maxNestingDepth: Int = 64,
                maxExpressionBytes: Int = 16 << 10, maxExpressionDepth: Int = 256, evaluationStepLimit: Int = 10_000,
                maxWrittenNodes: Int = 100_000, maxStringBytes: Int = 10 << 20, evaluationWorkLimit: Int = 100_000_000) {
        self.maxSourceBytes = maxSourceBytes
        self.documentedSourceBytes = documentedSourceBytes
        self.maxNestingDepth = maxNestingDepth
        self.maxExpressionBytes = maxExpressionBytes
        self.maxExpressionDepth = maxExpressionDepth
        self.evaluationStepLimit = evaluationStepLimit
        self.maxWrittenNodes = maxWrittenNodes
        self.maxStringBytes = maxStringBytes
        self.evaluationWorkLimit = evaluationWorkLimit
    }

    /// 4 MiB source, 64 levels of JSON, 16 KiB and 256 levels per expression, 10,000 steps per
    /// rule, 100,000 written nodes, 10 MiB strings, 100,000,000 units of string work per request.
    public static let `default` = DatabaseLimits()

    /// Keys: at most 768 bytes of UTF-8 (Realtime Database limits page, reference §1.4).
    public static let maxKeyBytes = 768
    /// Paths: fewer than 32 levels (Realtime Database limits page, reference §1.4).
    public static let maxPathDepth = 32
}
