// RulesVerification: proves properties of Firebase security rules for every request, or finds a
// request (a witness case) that breaks them. Owns the property-file format, the SMT encoding of
// the rules language (Encoder), the Z3 wrapper (the only importer of CZ3) and witness replay.
// Does not own the language (RulesLanguage), the case-file format or runner (RulesTesting), or
// `matches()` (RulesPatterns): witnesses are replayed through exactly those.
