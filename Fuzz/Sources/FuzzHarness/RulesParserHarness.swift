import Diagnostics
import RulesLanguage
import RulesPatterns

/// The rules parser and checker on arbitrary bytes.
///
/// Checks: compiling never traps and never reports an internal error (a message starting
/// "internal error", as RulesLanguage words its internal-error code); every diagnostic has an
/// `RL` code and a span inside the source; a source that parses without errors prints to text that parses again without errors to the same tree,
/// and printing that tree gives the same text (the printer is a fixed point after one round).
public enum RulesParserHarness {
    static let regex = PCRE2RegexEngine()

    @Sendable public static func run(_ input: UnsafeRawBufferPointer) -> [FuzzFinding] {
        let text = String(decoding: input, as: UTF8.self)
        let source = SourceFile(name: "fuzz.rules", text: text)
        let result = RulesCompiler.compile(source, regexEngine: regex)
        var findings: [FuzzFinding] = []
        for diagnostic in result.diagnostics {
            if diagnostic.message.hasPrefix("internal error") || !diagnostic.code.hasPrefix("RL") {
                findings.append(FuzzFinding("diagnostic \(diagnostic.code): \(diagnostic.message)"))
            }
            if let span = diagnostic.span, span.start < 0 || span.start > span.end || span.end > source.bytes.count {
                findings.append(FuzzFinding("\(diagnostic.code) span \(span.start)..<\(span.end) outside a \(source.bytes.count)-byte source"))
            }
        }
        if result.program == nil && !result.hasErrors {
            findings.append(FuzzFinding("no program and no error"))
        }
        let parsed = RulesParser.parse(source)
        guard !parsed.diagnostics.contains(where: { $0.severity == .error }) else { return findings }
        let printed = RulesPrinter.print(parsed.file)
        let reparsed = RulesParser.parse(SourceFile(name: "printed.rules", text: printed))
        if let error = reparsed.diagnostics.first(where: { $0.severity == .error }) {
            findings.append(FuzzFinding("printed rules do not parse: \(error.code) \(error.message)\n\(printed)"))
        } else if reparsed.file != parsed.file {
            findings.append(FuzzFinding("printed rules parse to a different tree:\n\(printed)"))
        } else if RulesPrinter.print(reparsed.file) != printed {
            findings.append(FuzzFinding("printing is not stable after one round:\n\(printed)"))
        }
        return findings
    }
}
