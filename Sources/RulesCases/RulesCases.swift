// RulesCases: the case-file format for security rules, the one thing `validate rules test`, the
// service's `decide` endpoint and the verifier's witnesses share.
//
// Owns: the case types (Firestore and Storage `RulesTestCase`, Realtime Database
// `DatabaseTestCase`), reading case files and request files from JSON or YAML with
// `file:line:column` errors (`CaseFileLoader`, `DatabaseCaseFileLoader`, the bounded
// `JSONReader` and `YAMLReader`), writing a case as witnesses are written (`CaseFileWriter`), and
// the request (and document lookups, or database root) a case stands for. Does not own running
// suites, results, reports or the linter (`RulesTesting`, `RulesLinting`), the rules languages
// (`RulesLanguage`, `DatabaseRules`), nor reading and compiling rules files (`RulesLoading`;
// only its bounded file reader is used here).
