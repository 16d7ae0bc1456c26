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

    /// Creates limits; defaults as in ``default``.
    public init(maxSourceBytes: Int = 4 << 20, documentedSourceBytes: Int = 256 << 10, maxNestingDepth: Int = 64,
                maxExpressionBytes: Int = 16 << 10, maxExpressionDepth: Int = 256, evaluationStepLimit: Int = 10_000,
                maxWrittenNodes: Int = 100_000) {
        self.maxSourceBytes = maxSourceBytes
        self.documentedSourceBytes = documentedSourceBytes
        self.maxNestingDepth = maxNestingDepth
        self.maxExpressionBytes = maxExpressionBytes
        self.maxExpressionDepth = maxExpressionDepth
        self.evaluationStepLimit = evaluationStepLimit
        self.maxWrittenNodes = maxWrittenNodes
    }

    /// 4 MiB source, 64 levels of JSON, 16 KiB and 256 levels per expression, 10,000 steps per
    /// rule, 100,000 written nodes.
    public static let `default` = DatabaseLimits()

    /// Keys: at most 768 bytes of UTF-8 (Realtime Database limits page, reference §1.4).
    public static let maxKeyBytes = 768
    /// Paths: fewer than 32 levels (Realtime Database limits page, reference §1.4).
    public static let maxPathDepth = 32
}
