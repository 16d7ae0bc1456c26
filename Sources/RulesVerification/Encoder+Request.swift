// Encoder+Request: the values of the symbolic request the rules read (`request`, `resource`,
// documents and Storage objects), over the terms ``Encoder/setUpRequest(shape:)`` declares.
import RulesLanguage

extension Encoder {
    // MARK: - The request's values

    /// The gap of a long shape: its term, when `segments` holds it.
    func gap(in segments: [String]) -> Int? {
        guard let gapIndex else { return nil }
        return segments.firstIndex(of: pathSegments[gapIndex])
    }

    func joinedPath(_ segments: [String]) -> String {
        segments.isEmpty ? "\"\"" : "(str.++ " + segments.map { "\"/\" \($0)" }.joined(separator: " ") + ")"
    }

    func documentValue(_ data: SymMap, segments: [String]) -> SymValue {
        SymValue(.map(.literal([
            ("data", SymValue(.map(.symbolic(data)))),
            ("id", SymValue(.string(segments.last ?? "\"\""))),
            ("__name__", SymValue(.path(segments))),
        ])))
    }

    private func storageObject(_ data: SymMap) -> SymValue {
        let name: String? = pathSegments.count > 3 ? "(str.++ " + pathSegments[3...].enumerated().map { $0.offset == 0 ? $0.element : "\"/\" \($0.element)" }.joined(separator: " ") + " \"\")" : nil
        let bucket: String? = pathSegments.count > 1 ? pathSegments[1] : nil
        return SymValue(.map(.storage(data, name: name, bucket: bucket)))
    }

    var authValue: SymValue {
        guard let token else { return requestNotSetUp() }
        return SymValue(err: "false", alts: [
            .init(guard_: authNull, payload: .null),
            .init(guard_: SMT.not(authNull), payload: .map(.literal([
                ("uid", SymValue(.string(uid))),
                ("token", SymValue(.map(.symbolic(token)))),
            ]))),
        ])
    }

    var requestValue: SymValue {
        var fields: [(String, SymValue)] = [
            ("auth", authValue),
            ("method", SymValue(.string(SMT.string(method.rawValue)))),
            ("path", SymValue(.path(pathSegments))),
            ("time", SymValue(.timestamp(time))),
            ("params", SymValue(.map(.literal([])))),
        ]
        if let requestData {
            fields.append(("resource", service == .firestore ? documentValue(requestData, segments: pathSegments) : storageObject(requestData)))
        }
        if let query {
            // `request.query` exists only when the witness has one.
            fields.append(("query", SymValue(err: SMT.not(queryPresent), alts: [.init(guard_: queryPresent, payload: .map(.symbolic(query)))])))
        }
        return SymValue(.map(.literal(fields)))
    }

    var resourceValue: SymValue {
        guard let resourceData else { return requestNotSetUp() }
        let present = service == .firestore ? documentValue(resourceData, segments: pathSegments) : storageObject(resourceData)
        return SymValue(err: "false", alts: [
            .init(guard_: SMT.not(resourceExists), payload: .null),
        ] + present.alts.map { .init(guard_: SMT.and([resourceExists, $0.guard_]), payload: $0.payload, unmodelled: $0.unmodelled) })
    }

    /// A part of the request read before ``setUpRequest(shape:)`` declared it: an error, and
    /// the encoding is incomplete, so the verdict is `unknown`, never a proof.
    private func requestNotSetUp() -> SymValue {
        invariantBroken()
        return .error
    }
}
