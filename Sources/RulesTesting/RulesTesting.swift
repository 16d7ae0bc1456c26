// RulesTesting: the offline test runner for Firebase security rules.
//
// Owns: running case files through a compiled `RulesLanguage` or `DatabaseRules` program,
// per-case results, per-file outcomes, the report and its exit status, and coverage. Does not own
// the case-file format (`RulesCases`: the cases, reading and writing them, the request a case
// stands for), the rules linter (`RulesLinting`), the rules languages (`RulesLanguage`,
// `DatabaseRules`), `matches()` (`RulesPatterns`), nor reading and compiling a rules file
// (`RulesLoading`; the runners' `compile` and `readSource` call it).
//
// Re-exports RulesCases and RulesLinting, which were part of this module: code that imports
// RulesTesting keeps compiling unchanged. Code inside this package imports them by name.
@_exported import RulesCases
@_exported import RulesLinting
import RulesLanguage
