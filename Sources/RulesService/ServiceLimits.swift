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
    /// The slowest a streamed batch's body may arrive, in bytes per second of waiting for it
    /// (`--stream-min-rate`, default 512; 0 for no minimum). The body gets ``streamIdleTimeout``
    /// of grace plus one second per this many bytes received; a piece that arrives past that is
    /// too slow: 408 `API1603` before its first row, else the connection is closed. Its slot is
    /// given back either way.
    public var streamMinimumBytesPerSecond: Int
    /// How long a request head may take once its first bytes arrived (`--header-read-timeout`,
    /// default 10 s); past it the connection is closed.
    public var headerReadTimeout: Duration
    /// How long a connection may wait with no bytes of a next request, from when it opens or
    /// from the end of the previous response (`--connection-idle-timeout`, default 60 s); past
    /// it the connection is closed.
    public var connectionIdleTimeout: Duration

    /// Creates limits.
    public init(maxBodyBytes: Int = 64 * 1024, maxLineBytes: Int = 64 * 1024, maxBatchStreams: Int = 4,
                requestTimeout: Duration = .seconds(30), streamIdleTimeout: Duration = .seconds(30),
                streamMinimumBytesPerSecond: Int = 512, headerReadTimeout: Duration = .seconds(10),
                connectionIdleTimeout: Duration = .seconds(60)) {
        self.maxBodyBytes = maxBodyBytes
        self.maxLineBytes = maxLineBytes
        self.maxBatchStreams = maxBatchStreams
        self.requestTimeout = requestTimeout
        self.streamIdleTimeout = streamIdleTimeout
        self.streamMinimumBytesPerSecond = streamMinimumBytesPerSecond
        self.headerReadTimeout = headerReadTimeout
        self.connectionIdleTimeout = connectionIdleTimeout
    }
}
