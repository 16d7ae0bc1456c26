// RulesVerification: proves properties of Firebase security rules for every request, or finds a
// request (a witness case) that breaks them. Owns the property-file format, the SMT encoding of
// the rules language (Encoder), the Z3 wrapper (the only importer of CZ3) and witness replay.
// Does not own the language (RulesLanguage), the case-file format (RulesCases: witnesses are
// written with its `CaseFileWriter`, read back with its loader and decided as its requests), the
// linter whose ownership holes it proves (RulesLinting), or `matches()` (RulesPatterns):
// witnesses are replayed through exactly those, as `validate rules test` runs them.
