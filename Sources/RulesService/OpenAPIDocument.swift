// Generated from docs/openapi.yaml by scripts/embed-openapi; do not edit.

/// The service's OpenAPI 3.1 document, served at `GET /openapi.yaml`.
enum OpenAPIDocument {
    static let yaml = ##"""
openapi: 3.1.0
info:
  title: RulesKit service
  version: 1.0.0
  summary: Sign-up field validation, display-name availability and claims, and security rules decisions.
  description: |
    `validate serve` answers over HTTP what RulesKit answers in-process. Every error is
    `{"error": {"code", "message"}}` with a stable code, or, when the request's `Accept` lists
    `application/problem+json`, an RFC 9457 problem that also carries that member (`Problem`);
    messages never quote a password.
    Request bodies are JSON (`application/json`) except the streamed batch (`application/x-ndjson`).
    Unknown members of JSON request objects are ignored unless a schema says otherwise.
    Path parameters are percent-decoded.
    A path asked with a method it does not take answers 405 `API1204` with `Allow` listing the
    methods it takes; `OPTIONS` on a path answers 204 with that `Allow`; `HEAD` is answered
    wherever `GET` is. A path that is not here answers 404 `API1203`.
    On any path: broken HTTP/1.1 framing is 400 `API1005` and headers over 80 KiB are 431
    `API1303`, both in the error shape and with `Connection: close`; with `--dev-auth`, a
    request whose `Host` is not a loopback name or address is 421 `API1205`. Name lookups,
    claims, releases and renames share one rate limit (`--rate-limit`), per client (IPv6 per
    /64; behind `--trusted-proxy`, the client `Forwarded` or `X-Forwarded-For` names) and, for
    claims, releases and renames, per user.
servers:
  - url: http://127.0.0.1:8080
paths:
  /v1/{field}/validate:
    post:
      operationId: validateField
      summary: Check one value.
      description: |
        The answer is the CLI's JSONL record without `record`. `normalized` is absent for invalid
        values and for every password; `key` (the uniqueness key) is given for valid display
        names only, `mailboxKey` (one key per mailbox) for valid email addresses only.
        `context` and `confirmation` matter to passwords only; display names use the server's
        `--app-name`. A password with `"strength": true` also gets `strength`, its
        strength estimate (`validate password --strength`).
      parameters:
        - $ref: '#/components/parameters/Field'
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: '#/components/schemas/ValidateRequest'
      responses:
        '200':
          description: The verdict.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/ValidationResult'
        '400': {$ref: '#/components/responses/BadRequest'}
        '404': {$ref: '#/components/responses/NotFound'}
        '413': {$ref: '#/components/responses/TooLarge'}
        '415': {$ref: '#/components/responses/UnsupportedMediaType'}
        '421': {$ref: '#/components/responses/Misdirected'}
        '431': {$ref: '#/components/responses/HeadersTooLarge'}
        '503': {$ref: '#/components/responses/Unavailable'}
  /v1/{field}/validate-batch:
    post:
      operationId: validateFieldBatch
      summary: Check a stream of values.
      description: |
        The body is NDJSON: one `ValidateRequest` object per line. The response streams one
        `BatchRow` per line, in order, as soon as each is checked: exactly the CLI's JSONL rows
        (`validate FIELD --input jsonl --format jsonl`), `record` counting lines from 1. A line
        that cannot be checked (not JSON, `value` missing or not a string, empty, invalid UTF-8,
        a NUL, longer than `--max-line-bytes`) gets its row with one `input.*` error; the stream
        goes on. The body may be of any size: memory stays flat. When no more of the body arrives
        for `--stream-idle-timeout` seconds, the stream ends with one row for the next record,
        `input.idle-timeout`, and the line still open is dropped; if no row was ready yet, the
        answer is 408 `API1602` instead. A body that arrives slower than `--stream-min-rate`
        bytes per second (after `--stream-idle-timeout` seconds of grace) ends the stream too:
        408 `API1603` before the first row, else the response ends unfinished (the connection
        closes). The response starts once the first rows are ready.
      parameters:
        - $ref: '#/components/parameters/Field'
      requestBody:
        required: true
        content:
          application/x-ndjson:
            schema:
              type: string
              description: Lines of `ValidateRequest` JSON objects separated by LF (or CRLF).
      responses:
        '200':
          description: One `BatchRow` JSON object per input line, each ending with LF.
          content:
            application/x-ndjson:
              schema:
                type: string
                description: Lines of `BatchRow` JSON objects.
        '400': {$ref: '#/components/responses/BadRequest'}
        '404': {$ref: '#/components/responses/NotFound'}
        '408': {$ref: '#/components/responses/BodyIdle'}
        '415': {$ref: '#/components/responses/UnsupportedMediaType'}
        '421': {$ref: '#/components/responses/Misdirected'}
        '429': {$ref: '#/components/responses/TooManyRequests'}
        '431': {$ref: '#/components/responses/HeadersTooLarge'}
        '503': {$ref: '#/components/responses/Unavailable'}
  /v1/names/{name}:
    get:
      operationId: nameAvailability
      summary: Whether a display name could be claimed now (advisory; the claim decides).
      description: |
        An invalid name is `available: false` with its `DN…` errors, and the store is not
        asked. A reserved name has `AV1002`; a taken one has no error. Rate-limited per client
        (`--rate-limit`, shared with claims, releases and renames).
      parameters:
        - $ref: '#/components/parameters/Name'
      responses:
        '200':
          description: The answer.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Availability'
        '404': {$ref: '#/components/responses/NotFound'}
        '421': {$ref: '#/components/responses/Misdirected'}
        '429': {$ref: '#/components/responses/TooManyRequests'}
        '431': {$ref: '#/components/responses/HeadersTooLarge'}
        '503': {$ref: '#/components/responses/Unavailable'}
  /v1/names/{name}/claim:
    post:
      operationId: claimName
      summary: Claim a display name for the authenticated user (atomic; repeating it succeeds again).
      security:
        - bearer: []
      parameters:
        - $ref: '#/components/parameters/Name'
      responses:
        '200':
          description: The user holds the name.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Claimed'
        '401': {$ref: '#/components/responses/Unauthorized'}
        '403': {$ref: '#/components/responses/Forbidden'}
        '404': {$ref: '#/components/responses/NotFound'}
        '409': {$ref: '#/components/responses/Conflict'}
        '421': {$ref: '#/components/responses/Misdirected'}
        '422': {$ref: '#/components/responses/InvalidName'}
        '429': {$ref: '#/components/responses/TooManyRequests'}
        '431': {$ref: '#/components/responses/HeadersTooLarge'}
        '503': {$ref: '#/components/responses/Unavailable'}
    delete:
      operationId: releaseName
      summary: Release a display name the authenticated user holds.
      security:
        - bearer: []
      parameters:
        - $ref: '#/components/parameters/Name'
      responses:
        '200':
          description: Released.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Released'
        '401': {$ref: '#/components/responses/Unauthorized'}
        '403': {$ref: '#/components/responses/Forbidden'}
        '404': {$ref: '#/components/responses/NotFound'}
        '409': {$ref: '#/components/responses/Conflict'}
        '421': {$ref: '#/components/responses/Misdirected'}
        '422': {$ref: '#/components/responses/InvalidName'}
        '429': {$ref: '#/components/responses/TooManyRequests'}
        '431': {$ref: '#/components/responses/HeadersTooLarge'}
        '503': {$ref: '#/components/responses/Unavailable'}
  /v1/names/rename:
    post:
      operationId: renameName
      summary: Release `from` and claim `to` for the authenticated user, atomically.
      security:
        - bearer: []
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: '#/components/schemas/RenameRequest'
      responses:
        '200':
          description: The user holds `to`.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Claimed'
        '400': {$ref: '#/components/responses/BadRequest'}
        '401': {$ref: '#/components/responses/Unauthorized'}
        '403': {$ref: '#/components/responses/Forbidden'}
        '409': {$ref: '#/components/responses/Conflict'}
        '413': {$ref: '#/components/responses/TooLarge'}
        '415': {$ref: '#/components/responses/UnsupportedMediaType'}
        '421': {$ref: '#/components/responses/Misdirected'}
        '422': {$ref: '#/components/responses/InvalidName'}
        '429': {$ref: '#/components/responses/TooManyRequests'}
        '431': {$ref: '#/components/responses/HeadersTooLarge'}
        '503': {$ref: '#/components/responses/Unavailable'}
  /v1/rules/{ruleset}/decide:
    post:
      operationId: decide
      summary: Decide one request with a loaded ruleset and explain the decision.
      description: |
        The body is one case object exactly as in case files (docs/RULES-TESTING.md for
        Firestore and Storage, docs/DATABASE-RULES.md for the Realtime Database), without
        `name` and `expect` (both optional). `ruleset` is the stem of a loaded rules file:
        `firestore`, `storage`, `database`.
      parameters:
        - name: ruleset
          in: path
          required: true
          schema:
            type: string
      requestBody:
        required: true
        content:
          application/json:
            schema:
              anyOf:
                - $ref: '#/components/schemas/SecurityCase'
                - $ref: '#/components/schemas/DatabaseCase'
      responses:
        '200':
          description: The decision.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Decision'
        '400': {$ref: '#/components/responses/BadRequest'}
        '404': {$ref: '#/components/responses/NotFound'}
        '413': {$ref: '#/components/responses/TooLarge'}
        '415': {$ref: '#/components/responses/UnsupportedMediaType'}
        '421': {$ref: '#/components/responses/Misdirected'}
        '431': {$ref: '#/components/responses/HeadersTooLarge'}
        '503': {$ref: '#/components/responses/Unavailable'}
  /v1/breached/range/{prefix}:
    get:
      operationId: breachedRange
      summary: The Pwned Passwords range API over the server's breached-password store (`--breached STORE`).
      description: |
        Every stored hash whose SHA-1 starts with `prefix`, as `SUFFIX:COUNT` lines: the suffix
        is the other 35 hex digits in uppercase, lines are in increasing order and joined by
        CRLF, with none after the last; no hash with the prefix is an empty body. Existing Pwned
        Passwords clients work against it, so no password or whole hash leaves the network.
        With `Add-Padding: true` the answer is padded with random suffixes of count 0 (never a
        stored one), to at least 800 lines plus 0 to 200 more. Without `--breached` the route
        answers 404 `API1206`.
      parameters:
        - name: prefix
          in: path
          required: true
          description: The first five hex digits of a SHA-1, in either case.
          schema:
            type: string
            pattern: '^[0-9A-Fa-f]{5}$'
        - name: Add-Padding
          in: header
          required: false
          description: '`true` (either case) pads the answer with count-0 lines, as the public API does; any other value does not.'
          schema:
            type: string
      responses:
        '200':
          description: The range.
          content:
            text/plain:
              schema:
                type: string
                pattern: '^([0-9A-F]{35}:[0-9]+(\r\n[0-9A-F]{35}:[0-9]+)*)?$'
        '400': {$ref: '#/components/responses/BadRequest'}
        '404': {$ref: '#/components/responses/NotFound'}
        '421': {$ref: '#/components/responses/Misdirected'}
        '431': {$ref: '#/components/responses/HeadersTooLarge'}
        '503': {$ref: '#/components/responses/Unavailable'}
  /healthz:
    get:
      operationId: healthz
      summary: The process is alive.
      responses:
        '200':
          description: Alive.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Status'
        '421': {$ref: '#/components/responses/Misdirected'}
        '431': {$ref: '#/components/responses/HeadersTooLarge'}
        '503': {$ref: '#/components/responses/Unavailable'}
  /readyz:
    get:
      operationId: readyz
      summary: The claims store answers.
      responses:
        '200':
          description: Ready.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Status'
        '421': {$ref: '#/components/responses/Misdirected'}
        '431': {$ref: '#/components/responses/HeadersTooLarge'}
        '503': {$ref: '#/components/responses/Unavailable'}
  /metrics:
    get:
      operationId: metrics
      summary: Prometheus metrics (requests by route and status, durations).
      responses:
        '200':
          description: The Prometheus text exposition format 0.0.4.
          content:
            text/plain:
              schema:
                type: string
        '421': {$ref: '#/components/responses/Misdirected'}
        '431': {$ref: '#/components/responses/HeadersTooLarge'}
        '503': {$ref: '#/components/responses/Unavailable'}
  /openapi.yaml:
    get:
      operationId: openapi
      summary: This document.
      responses:
        '200':
          description: The OpenAPI document.
          content:
            application/yaml:
              schema:
                type: object
                description: This document (a YAML mapping).
        '421': {$ref: '#/components/responses/Misdirected'}
        '431': {$ref: '#/components/responses/HeadersTooLarge'}
        '503': {$ref: '#/components/responses/Unavailable'}
components:
  securitySchemes:
    bearer:
      type: http
      scheme: bearer
      description: |
        A Firebase ID token (`--jwks FILE --project-id ID`), or `dev:<uid>` with `--dev-auth`.
  parameters:
    Field:
      name: field
      in: path
      required: true
      schema:
        type: string
        enum: [email, password, display-name]
    Name:
      name: name
      in: path
      required: true
      description: The display name as typed.
      schema:
        type: string
  headers:
    RetryAfter:
      description: Seconds to wait before trying again.
      required: true
      schema:
        type: integer
        minimum: 1
  responses:
    BadRequest:
      description: '`API1001` the body is not JSON; `API1002` it lacks a member or has one of the wrong type; `API1003` it is not a valid case object; `API1004` it names a key twice in one object; `API1005` the request is not valid HTTP/1.1 framing (a malformed chunked body, a `Transfer-Encoding` other than `chunked`, a bad `Content-Length`), with `Connection: close`; `API1006` a breached-range prefix that is not five hex digits.'
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Error'}
        application/problem+json:
          schema: {$ref: '#/components/schemas/Problem'}
    Unauthorized:
      description: '`API1101` no bearer token; `API1102` the token names no user, or a user id that cannot act on claims (empty or with a control character; the message names `AV1008`).'
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Error'}
        application/problem+json:
          schema: {$ref: '#/components/schemas/Problem'}
    Forbidden:
      description: '`AV1005` another user holds the name; `AV1007` the security rules refuse the change.'
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Error'}
        application/problem+json:
          schema: {$ref: '#/components/schemas/Problem'}
    NotFound:
      description: '`API1201` unknown field; `API1202` unknown ruleset; `API1203` no such endpoint; `API1206` the server has no breached-password store (`--breached`).'
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Error'}
        application/problem+json:
          schema: {$ref: '#/components/schemas/Problem'}
    Conflict:
      description: '`AV1003` the name is taken; `AV1004` nobody holds it; `AV1006` the user already holds another name.'
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Error'}
        application/problem+json:
          schema: {$ref: '#/components/schemas/Problem'}
    InvalidName:
      description: '`AV1001` the name breaks the display-name rules (the message lists how); `AV1002` it is reserved.'
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Error'}
        application/problem+json:
          schema: {$ref: '#/components/schemas/Problem'}
    BodyIdle:
      description: '`API1602` no more of the request body arrived for `--stream-idle-timeout` seconds before the first row was ready; `API1603` the body came slower than `--stream-min-rate` before the first row was ready.'
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Error'}
        application/problem+json:
          schema: {$ref: '#/components/schemas/Problem'}
    Misdirected:
      description: '`API1205` the server runs with `--dev-auth` and the request''s `Host` is not a loopback name or address (`localhost`, `127.0.0.0/8`, `[::1]`, each with an optional port).'
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Error'}
        application/problem+json:
          schema: {$ref: '#/components/schemas/Problem'}
    HeadersTooLarge:
      description: '`API1303` the request''s headers are over the 80 KiB limit, with `Connection: close`.'
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Error'}
        application/problem+json:
          schema: {$ref: '#/components/schemas/Problem'}
    TooLarge:
      description: '`API1301` the body is larger than `--max-body-bytes`.'
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Error'}
        application/problem+json:
          schema: {$ref: '#/components/schemas/Problem'}
    UnsupportedMediaType:
      description: '`API1401` the body is not sent with the content type the endpoint reads.'
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Error'}
        application/problem+json:
          schema: {$ref: '#/components/schemas/Problem'}
    TooManyRequests:
      description: '`API1501` too many name lookups, claims, releases and renames from this client (or, for claims, releases and renames, by this user); `API1502` every batch stream slot is taken.'
      headers:
        Retry-After: {$ref: '#/components/headers/RetryAfter'}
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Error'}
        application/problem+json:
          schema: {$ref: '#/components/schemas/Problem'}
    Unavailable:
      description: '`AV3001`…`AV3015` the claims store cannot answer; `API1601` the request took longer than `--request-timeout`.'
      headers:
        Retry-After: {$ref: '#/components/headers/RetryAfter'}
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Error'}
        application/problem+json:
          schema: {$ref: '#/components/schemas/Problem'}
  schemas:
    Error:
      type: object
      required: [error]
      additionalProperties: false
      properties:
        error:
          type: object
          required: [code, message]
          additionalProperties: false
          properties:
            code:
              type: string
            message:
              type: string
    Problem:
      type: object
      description: |
        An error as an RFC 9457 problem, answered when the request's `Accept` lists
        `application/problem+json` (otherwise the error is the `Error` object). `type` is
        `urn:ruleskit:problem:` and the code, `title` the code's summary, `detail` the message;
        `error` repeats the `Error` object's member.
      required: [type, title, status, detail, code, error]
      additionalProperties: false
      properties:
        type:
          type: string
        title:
          type: string
        status:
          type: integer
        detail:
          type: string
        code:
          type: string
        error:
          type: object
          required: [code, message]
          additionalProperties: false
          properties:
            code:
              type: string
            message:
              type: string
    ValidateRequest:
      type: object
      description: |
        `context`, `confirmation` and `strength` are read for passwords only; for `email` and
        `display-name` they are ignored whatever their type, as the CLI reads only `--field value`
        for those. A batch line's `strength` and `context.userInputs` are ignored.
      required: [value]
      properties:
        value:
          type: string
        context:
          type: [object, 'null']
          description: Password context; each member may be absent or null.
          properties:
            username:
              type: [string, 'null']
            email:
              type: [string, 'null']
            appName:
              type: [string, 'null']
            userInputs:
              type: [array, 'null']
              description: More words for the strength estimate's user dictionary.
              items:
                type: string
        confirmation:
          type: [string, 'null']
          description: The password typed a second time; `PW108` when they differ.
        strength:
          type: [boolean, 'null']
          description: "`true`: the answer carries `strength` (passwords only)."
    Violation:
      type: object
      required: [code, rule, message]
      additionalProperties: false
      properties:
        code:
          type: string
        rule:
          type: string
        message:
          type: string
    ValidationResult:
      type: object
      required: [valid, errors]
      additionalProperties: false
      properties:
        valid:
          type: boolean
        errors:
          type: array
          items: {$ref: '#/components/schemas/Violation'}
        normalized:
          type: string
        key:
          type: string
        mailboxKey:
          $ref: '#/components/schemas/MailboxKey'
        strength:
          $ref: '#/components/schemas/StrengthEstimate'
    MailboxKey:
      type: string
      description: |
        Valid email addresses only: the address with its provider's rules applied, one key per
        mailbox (`Jane.Doe+promo@gmail.com` and `janedoe@googlemail.com` share
        `janedoe@gmail.com`); the address itself at other domains. `normalized` is never
        rewritten.
    StrengthEstimate:
      type: object
      description: |
        zxcvbn 4.5.0's estimate of the password's first 72 characters (docs/RULE-PACKS.md,
        "Strength estimation"). Never any part of the password.
      required: [score, guessesLog10, warning, suggestions]
      additionalProperties: false
      properties:
        score:
          type: integer
          minimum: 0
          maximum: 4
        guessesLog10:
          type: number
          minimum: 0
        warning:
          anyOf:
            - $ref: '#/components/schemas/StrengthFeedback'
            - type: 'null'
        suggestions:
          type: array
          items: {$ref: '#/components/schemas/StrengthFeedback'}
    StrengthFeedback:
      type: object
      required: [code, message]
      additionalProperties: false
      properties:
        code:
          type: string
          pattern: '^PW2[0-9][0-9]$'
        message:
          type: string
    BatchRow:
      description: One line of a `validate-batch` response.
      type: object
      required: [record, valid, errors]
      additionalProperties: false
      properties:
        record:
          type: integer
          minimum: 1
        valid:
          type: boolean
        errors:
          type: array
          items: {$ref: '#/components/schemas/Violation'}
        normalized:
          type: string
        key:
          type: string
        mailboxKey:
          $ref: '#/components/schemas/MailboxKey'
    Problem:
      type: object
      required: [code, message]
      additionalProperties: false
      properties:
        code:
          type: string
        message:
          type: string
    Availability:
      type: object
      required: [name, key, available, errors]
      additionalProperties: false
      properties:
        name:
          type: string
        key:
          type: string
        available:
          type: boolean
        errors:
          type: array
          items: {$ref: '#/components/schemas/Problem'}
    Claimed:
      type: object
      required: [name, key, claimed, owner]
      additionalProperties: false
      properties:
        name:
          type: string
        key:
          type: string
        claimed:
          const: true
        owner:
          type: string
    Released:
      type: object
      required: [name, key, claimed, owner]
      additionalProperties: false
      properties:
        name:
          type: string
        key:
          type: string
        claimed:
          const: false
        owner:
          type: 'null'
    RenameRequest:
      type: object
      required: [from, to]
      properties:
        from:
          type: string
        to:
          type: string
    SecurityCase:
      description: A Firestore or Storage case (docs/RULES-TESTING.md); unknown members are ignored.
      type: object
      required: [path, method]
      properties:
        name:
          type: string
        path:
          type: string
        method:
          enum: [get, list, create, update, delete]
        auth:
          type: [object, 'null']
          required: [uid]
          properties:
            uid:
              type: string
            token:
              type: object
        resource: {}
        requestResource: {}
        existing:
          type: object
        existingAfter:
          type: object
        batch:
          type: array
          items:
            type: object
        query:
          type: object
        time:
          type: string
        lookupMode:
          enum: [database, mocks-only]
        expect:
          enum: [allow, deny]
    DatabaseCase:
      description: A Realtime Database case (docs/DATABASE-RULES.md).
      type: object
      required: [path, method]
      additionalProperties: false
      properties:
        name:
          type: string
        path:
          type: string
        method:
          enum: [read, set, update]
        auth: {}
        data: {}
        value: {}
        updates:
          type: object
        time:
          type: number
        query:
          type: object
        expect:
          enum: [allow, deny]
        note:
          type: string
    Decision:
      type: object
      required: [decision, explanation]
      additionalProperties: false
      properties:
        decision:
          enum: [allow, deny]
        explanation:
          type: string
          description: "Why, for people: the granting `allow` or every candidate that failed, with locations."
    Status:
      type: object
      required: [status]
      additionalProperties: false
      properties:
        status:
          enum: [alive, ready]
"""##
}
