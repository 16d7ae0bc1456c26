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
    }

    let fields: [String: Field]
    let fixedContext: RecordContext
    let limits: ServiceLimits
    let streams: StreamSlots

    /// Builds every field's checker from the shipped rule packs.
    ///
    /// - Throws: ``CheckerSetupError`` when a rule pack does not load.
    init(appName: String?, limits: ServiceLimits) throws(CheckerSetupError) {
        var fields: [String: Field] = [:]
        let fixed = RecordContext(appName: appName)
        for kind in FieldKind.allCases {
            let checker = try FieldCheckers.make(kind, rulesDirectory: nil, appName: appName)
            fields[kind.rawValue] = Field(kind: kind, checker: checker,
                                          single: ValueCheck(checker: checker, writer: kind.jsonlWriter, fixedContext: fixed))
        }
        self.fields = fields
        self.fixedContext = fixed
        self.limits = limits
        self.streams = StreamSlots(limit: limits.maxBatchStreams)
    }

    func add(to router: Router<ServiceRequestContext>) {
        router.post("v1/:field/validate") { request, context in try await validate(request, context) }
        router.post("v1/:field/validate-batch") { request, context in try batch(request, context) }
    }

    /// The field named in the path, or 404.
    private func field(_ context: ServiceRequestContext) throws(ServiceError) -> Field {
        let name = context.parameters.decoded("field")
        guard let field = fields[name] else { throw .unknownField(name) }
        return field
    }

    // MARK: - One value

    /// `{"value", "context"?, "confirmation"?}`; unknown members are ignored.
    struct ValidateRequest: Decodable {
        struct Context: Decodable {
            var username: String?
            var email: String?
            var appName: String?
        }

        var value: String
        var context: Context?
        var confirmation: String?
    }

    private func validate(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let field = try field(context)
        let body = try await RequestBodyReader.decode(ValidateRequest.self, from: request, limit: limits.maxBodyBytes)
        let recordContext = RecordContext(username: body.context?.username, email: body.context?.email, appName: body.context?.appName)
        let result = field.single.check(body.value, context: recordContext, confirmation: body.confirmation)
        return JSONResponse.make(bytes: result.json)
    }

    // MARK: - Streamed batch

    /// Where each NDJSON line's parts are: the CLI's `--field value --username-field
    /// context.username …`, with an optional confirmation.
    private static let selection = FieldSelection(
        value: .name("value"), username: .name("context.username"), email: .name("context.email"),
        appName: .name("context.appName"), confirmation: .name("confirmation"), contextRequired: false)

    private func batch(_ request: Request, _ context: ServiceRequestContext) throws -> Response {
        let field = try field(context)
        try RequestBodyReader.requireContentType(RequestBodyReader.ndjson, of: request)
        guard let slot = streams.take() else { throw ServiceError.tooManyStreams(limit: limits.maxBatchStreams) }
        let configuration = BatchConfiguration(input: .jsonl, fields: Self.selection, fixedContext: fixedContext,
                                               writer: field.kind.jsonlWriter, maxRecordBytes: limits.maxLineBytes, jobs: 1)
        let checker = field.checker
        return Response(status: .ok, headers: [.contentType: RequestBodyReader.ndjson], body: ResponseBody { writer in
            // INVARIANT: JSONL input never makes a streamed batch throw.
            let batch = try StreamedBatch(configuration: configuration, checker: checker)
            for try await piece in request.body {
                let rows = piece.withUnsafeReadableBytes { batch.push($0) }
                if !rows.isEmpty { try await writer.write(ByteBuffer(bytes: rows)) }
            }
            let rows = batch.finish()
            if !rows.isEmpty { try await writer.write(ByteBuffer(bytes: rows)) }
            try await writer.finish(nil)
            // The closure holds the slot: it is given back when the body is done with, written
            // to the end or not.
            withExtendedLifetime(slot) {}
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

/// One taken stream slot; given back when released.
final class StreamSlot: Sendable {
    private let owner: StreamSlots

    fileprivate init(owner: StreamSlots) { self.owner = owner }

    deinit { owner.giveBack() }
}
