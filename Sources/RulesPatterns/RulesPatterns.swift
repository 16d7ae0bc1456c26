// RulesPatterns: the RE2-syntax `matches()` library for the rules language, run on the PCRE2 engine.
