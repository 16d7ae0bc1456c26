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
    /// 30 s); past it: 503. A streamed batch has its response once its first rows are ready: the
    /// stream itself has no time limit, only ``streamIdleTimeout`` between pieces of its body.
    public var requestTimeout: Duration
    /// The longest a streamed batch waits for more of its body (`--stream-idle-timeout`, default
    /// 30 s); past it the stream ends with an `input.idle-timeout` row (408 `API1602` when no row
    /// was written yet) and its slot is given back.
    public var streamIdleTimeout: Duration

    /// Creates limits.
    public init(maxBodyBytes: Int = 64 * 1024, maxLineBytes: Int = 64 * 1024, maxBatchStreams: Int = 4,
                requestTimeout: Duration = .seconds(30), streamIdleTimeout: Duration = .seconds(30)) {
        self.maxBodyBytes = maxBodyBytes
        self.maxLineBytes = maxLineBytes
        self.maxBatchStreams = maxBatchStreams
        self.requestTimeout = requestTimeout
        self.streamIdleTimeout = streamIdleTimeout
    }
}
