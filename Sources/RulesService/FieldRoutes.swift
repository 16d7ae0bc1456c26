import BatchValidation
import FieldCheckers
import Hummingbird
import NIOCore
import Synchronization

/// `POST /v1/{field}/validate` and `POST /v1/{field}/validate-batch`: the CLI's checks, one
/// value as JSON or a streamed NDJSON batch answered with the CLI's JSONL rows.
struct FieldRoutes: Sendable {
    /// One field's checker, built once.
    struct Field: Sendable {
        let kind: FieldKind
        let checker: any FieldChecker
        let single: ValueCheck
        /// Passwords: the single-value check that adds `"strength"` (`"strength": true` in the body).
        let singleWithStrength: ValueCheck?

        /// Whether a value comes with a context and a confirmation: passwords only, as in the CLI,
        /// whose other field commands have no context flags. Other fields ignore both members,
        /// whatever their type.
        var takesContext: Bool { kind == .password }

        /// Where a batch line's parts are: the CLI's `--field value` and, for passwords,
        /// `--username-field context.username …` with an optional confirmation.
        var selection: FieldSelection {
            guard takesContext else { return FieldSelection(value: .name("value"), contextRequired: false) }
            return FieldSelection(value: .name("value"), username: .name("context.username"), email: .name("context.email"),
                                  appName: .name("context.appName"), confirmation: .name("confirmation"), contextRequired: false)
        }
    }

    let fields: [String: Field]
    let fixedContext: RecordContext
    let limits: ServiceLimits
    let streams: StreamSlots
    /// The clock of a stream's idle timeout (the service's timeout clock).
    let timeoutClock: any Clock<Duration>

    /// Builds every field's checker from the shipped rule packs.
    ///
    /// - Throws: ``CheckerSetupError`` when a rule pack does not load.
    init(appName: String?, limits: ServiceLimits, timeoutClock: any Clock<Duration>,
         options: CheckerOptions = CheckerOptions()) throws(CheckerSetupError) {
        var fields: [String: Field] = [:]
        let fixed = RecordContext(appName: appName)
        for kind in FieldKind.allCases {
            // Answers are JSONL rows: emails carry their mailbox key.
            let checker = try FieldCheckers.make(kind, rulesDirectory: nil, appName: appName, mailboxKeys: true, options: options)
            var withStrength: ValueCheck?
            if kind == .password {
                var writer = kind.jsonlWriter
                writer.includesStrength = true
                withStrength = ValueCheck(checker: try FieldCheckers.make(kind, rulesDirectory: nil, appName: appName,
                                                                                   strength: true, options: options),
                                          writer: writer, fixedContext: fixed)
            }
            fields[kind.rawValue] = Field(kind: kind, checker: checker,
                                          single: ValueCheck(checker: checker, writer: kind.jsonlWriter, fixedContext: fixed),
                                          singleWithStrength: withStrength)
        }
        self.fields = fields
        self.fixedContext = fixed
        self.limits = limits
        self.streams = StreamSlots(limit: limits.maxBatchStreams)
        self.timeoutClock = timeoutClock
    }

    func add(to routes: RouteRegistrar) {
        routes.on(.post, "v1/:field/validate") { request, context in try await validate(request, context) }
        routes.on(.post, "v1/:field/validate-batch") { request, context in try await batch(request, context) }
    }

    /// The field named in the path, or 404.
    private func field(_ context: ServiceRequestContext) throws(ServiceError) -> Field {
        let name = context.parameters.decoded("field")
        guard let field = fields[name] else { throw .unknownField(name) }
        return field
    }

    // MARK: - One value

    /// `{"value", "context"?, "confirmation"?, "strength"?}` (passwords); unknown members are
    /// ignored.
    struct ValidateRequest: Decodable {
        struct Context: Decodable {
            var username: String?
            var email: String?
            var appName: String?
            /// More words for the strength estimate's user dictionary.
            var userInputs: [String]?
        }

        var value: String
        var context: Context?
        var confirmation: String?
        /// `true`: the answer carries the password's strength estimate.
        var strength: Bool?
    }

    /// `{"value"}` (fields without a context); every other member is ignored.
    struct ValueRequest: Decodable {
        var value: String
    }

    private func validate(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let field = try field(context)
        let body = field.takesContext
            ? try await RequestBodyReader.decode(ValidateRequest.self, from: request, limit: limits.maxBodyBytes)
            : ValidateRequest(value: try await RequestBodyReader.decode(ValueRequest.self, from: request, limit: limits.maxBodyBytes).value)
        let recordContext = RecordContext(username: body.context?.username, email: body.context?.email, appName: body.context?.appName,
                                          userInputs: body.context?.userInputs ?? [])
        let check = body.strength == true ? field.singleWithStrength ?? field.single : field.single
        let result = check.check(body.value, context: recordContext, confirmation: body.confirmation)
        return JSONResponse.make(bytes: result.json)
    }

    // MARK: - Streamed batch

    private func batch(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let field = try field(context)
        try RequestBodyReader.requireContentType(RequestBodyReader.ndjson, of: request)
        guard let slot = streams.take() else { throw ServiceError.tooManyStreams(limit: limits.maxBatchStreams) }
        let configuration = BatchConfiguration(input: .jsonl, fields: field.selection, fixedContext: fixedContext,
                                               writer: field.kind.jsonlWriter, maxRecordBytes: limits.maxLineBytes, jobs: 1)
        // INVARIANT: JSONL input never makes a streamed batch throw.
        let stream = BatchStream(batch: try StreamedBatch(configuration: configuration, checker: field.checker), body: request.body,
                                 idleTimeout: limits.streamIdleTimeout, minimumBytesPerSecond: limits.streamMinimumBytesPerSecond,
                                 clock: timeoutClock)
        // The head waits for the first rows, so a body that stalls before them gets a 408.
        let first = try await stream.nextRows()
        if stream.idled { throw ServiceError.bodyIdle(after: limits.streamIdleTimeout) }
        if let slow = stream.tooSlow { throw ServiceError.bodyTooSlow(bytes: slow.bytes, seconds: slow.seconds, minimum: limits.streamMinimumBytesPerSecond) }
        let logger = context.logger
        return Response(status: .ok, headers: [.contentType: RequestBodyReader.ndjson], body: ResponseBody { writer in
            // The slot is given back when the stream ends, written to the end or not.
            defer { slot.giveBack() }
            var rows = first
            while let next = rows {
                try await writer.write(ByteBuffer(bytes: next))
                rows = try await stream.nextRows()
            }
            if let slow = stream.tooSlow {
                // Rows are out already, so no status can say it: the response ends unfinished
                // (the connection closes), and no client mistakes it for a complete answer.
                logger.info("ended a streamed batch whose body came too slowly",
                            metadata: ["bytes": "\(slow.bytes)", "seconds": "\(slow.seconds)"])
                throw slow
            }
            try await writer.finish(nil)
        })
    }
}

/// The batch streams served at once: a slot is taken per stream and given back when the
/// stream's ``StreamSlot`` is released.
final class StreamSlots: Sendable {
    private let inUse = Mutex(0)
    let limit: Int

    init(limit: Int) { self.limit = max(1, limit) }

    /// A slot, or nil when all are taken.
    func take() -> StreamSlot? {
        let taken = inUse.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        return taken ? StreamSlot(owner: self) : nil
    }

    fileprivate func giveBack() { inUse.withLock { $0 -= 1 } }

    /// Streams being served now.
    var count: Int { inUse.withLock { $0 } }
}

/// One taken stream slot: given back by ``giveBack()`` or, at the latest, when released.
final class StreamSlot: Sendable {
    private let owner: StreamSlots
    private let isHeld = Mutex(true)

    fileprivate init(owner: StreamSlots) { self.owner = owner }

    /// Gives the slot back (once; later calls do nothing).
    func giveBack() {
        if isHeld.withLock({ held in defer { held = false }; return held }) { owner.giveBack() }
    }

    deinit { giveBack() }
}
