/// The service's limits, each with a flag of `validate serve` and a default.
public struct ServiceLimits: Sendable, Hashable {
    /// The largest JSON request body, in bytes (`--max-body-bytes`, default 64 KiB); larger gets 413.
    public var maxBodyBytes: Int
    /// The longest line of a streamed batch, in bytes (`--max-line-bytes`, default 64 KiB); a
    /// longer line gets its row with `input.too-long`, the stream goes on.
    public var maxLineBytes: Int
    /// Batch streams served at once (`--max-batch-streams`, default 4); one more gets 429.
    public var maxBatchStreams: Int
    /// The longest a request may take to produce its response (`--request-timeout`, default
    /// 30 s); past it: 503. A streamed batch has its response once the head is written: the stream
    /// itself has no time limit (``maxBatchStreams`` bounds how many run at once).
    public var requestTimeout: Duration

    /// Creates limits.
    public init(maxBodyBytes: Int = 64 * 1024, maxLineBytes: Int = 64 * 1024, maxBatchStreams: Int = 4,
                requestTimeout: Duration = .seconds(30)) {
        self.maxBodyBytes = maxBodyBytes
        self.maxLineBytes = maxLineBytes
        self.maxBatchStreams = maxBatchStreams
        self.requestTimeout = requestTimeout
    }
}
