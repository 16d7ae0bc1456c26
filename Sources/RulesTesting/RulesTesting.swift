// RulesTesting: the offline test runner and linter for Firebase security rules.
//
// Owns: case files (JSON and YAML; see docs/RULES-TESTING.md), building requests from them,
// running them through a compiled `RulesLanguage` program, per-case results and coverage, and the
// rules linter (warnings reviewers of rules tend to miss). Does not own the rules language itself
// (parse, check, evaluate: `RulesLanguage`), `matches()` (`RulesPatterns`), nor reading and
// compiling a rules file (`RulesLoading`; the runners' `compile` and `readSource` call it).
