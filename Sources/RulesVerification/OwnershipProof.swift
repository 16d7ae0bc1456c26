// OwnershipProof: turns the linter's ownership-hole heuristic (RL8002) into a question for the
// verifier. The warning says a write under a `{userId}`-style wildcard never compares
// `request.auth.uid` with it; the proof decides whether every such write the rules allow is in
// fact made by that user, and otherwise gives a request that is not.
import Diagnostics
import RulesLanguage
import RulesLinting

/// Decides RL8002 warnings with the verifier.
public enum OwnershipProver {
    /// The property an RL8002 warning stands for: every request with the `allow`'s write methods
    /// to the block's path (each `{x}` any one segment, a final `{x=**}` any rest) that the rules
    /// allow, by any `allow`, satisfies `request.auth != null && request.auth.uid == W`, where `W`
    /// is the wildcard.
    ///
    /// - Throws: when the block's path cannot be stated as a property path (a `{x=**}` before
    ///   the end, a wildcard name used twice, or a path outside the service's documents).
    public static func property(for hole: OwnershipHole, service: ServiceKind, rulesPath: String) throws(PropertyFileError) -> PropertyFile {
        let path = pathText(hole.path)
        let property = "{\"name\": \(jsonString("RL8002: only the user `\(hole.wildcard)` writes \(path)")), "
            + "\"path\": \(jsonString(path)), "
            + "\"methods\": [\(hole.methods.map { jsonString($0.rawValue) }.joined(separator: ", "))], \"kind\": \"only-if\", "
            + "\"condition\": \(jsonString("request.auth != null && request.auth.uid == \(hole.wildcard)"))}"
        let text = "{\"rules\": \(jsonString(rulesPath)), \"service\": \"\(service == .firestore ? "firestore" : "storage")\", "
            + "\"properties\": [\(property)]}"
        return try PropertyFileLoader.decode(text, path: rulesPath)
    }

    /// `/a/{b}/{c=**}` for a match pattern.
    static func pathText(_ pattern: [PatternSegment]) -> String {
        "/" + pattern.map { segment in
            switch segment {
            case .literal(let text): text
            case .single(let name): "{\(name)}"
            case .recursive(let name): "{\(name)=**}"
            }
        }.joined(separator: "/")
    }

    /// `diagnostics` with each RL8002 warning of `holes` decided: a proven one becomes a note; a
    /// refuted one stays a warning whose help is the witness (a case object that replays with
    /// `validate rules test`); an undecided one says why in its help.
    public static func prove(_ diagnostics: [Diagnostic], holes: [OwnershipHole], program: Program, rulesPath: String,
                             verifier: RulesVerifier) -> [Diagnostic] {
        var result = diagnostics
        for hole in holes {
            guard let index = result.firstIndex(of: hole.diagnostic) else { continue }
            result[index] = decide(hole, program: program, rulesPath: rulesPath, verifier: verifier)
        }
        return result
    }

    /// The diagnostic for one decided warning.
    static func decide(_ hole: OwnershipHole, program: Program, rulesPath: String, verifier: RulesVerifier) -> Diagnostic {
        var diagnostic = hole.diagnostic
        let file: PropertyFile
        do {
            file = try property(for: hole, service: program.service, rulesPath: rulesPath)
        } catch {
            diagnostic.help = (diagnostic.help ?? "") + "; not proven: the block's path cannot be stated as a property (\(error.message))"
            return diagnostic
        }
        let property = file.properties[0]
        let result = verifier.verify(property, in: file, program: program)
        let methods = hole.methods.map(\.rawValue).joined(separator: ", ")
        switch result.verdict {
        case .holds:
            diagnostic.severity = .note
            diagnostic.message = "proven: every \(methods) request to \(property.pathText) the rules allow is made by the signed-in user `\(hole.wildcard)`"
            diagnostic.help = nil
        case .violated:
            diagnostic.message += "; proven: the rules allow one not made by the signed-in user `\(hole.wildcard)`"
            diagnostic.help = "this request is allowed (a case that replays with `validate rules test`): \(result.witness ?? "")"
        case .unknown:
            diagnostic.help = (diagnostic.help ?? "") + "; not proven: \(result.reason ?? "unknown")"
        }
        return diagnostic
    }
}
