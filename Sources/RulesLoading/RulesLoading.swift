// RulesLoading: a rules file of any service, from its path to a compiled program.
//
// Owns: reading a rules file within a bound (`BoundedFile`), telling Realtime Database rules
// (`database.rules.json`) from Firestore and Storage rules (`.rules`) by their first character,
// compiling either with the production `matches()` engines, and the one error a file that cannot
// be used gives (`RulesLoadError`: unreadable, or its `file:line:column` diagnostics). Does not own
// the languages (`RulesLanguage`, `DatabaseRules`), `matches()` (`RulesPatterns`), nor case files,
// the test runner or the linter (`RulesTesting`).
