// RulesLanguage: parse, check and evaluate Firebase-style security rules (Firestore and Storage).
//
// Pipeline (one file per stage): source → Lexer → Parser → Syntax (spans) → Checker → Program
// (immutable, Sendable) → Evaluator(request, limits) → Decision (+ explanation, debug output,
// coverage). Owns the language; does not own regular expressions (injected as a RegexEngine,
// see RulesPatterns), the case-file test runner or the CLI.
