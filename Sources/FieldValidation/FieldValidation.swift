// FieldValidation: rule packs (validation rules as data) and the email, password and
// display-name validators.
//
// Pipeline: rule pack file → `RulePackLoader` (YAML → `RulePack`) → `RulePackSet` (ordering,
// overrides, disables) → `CompiledRuleSet` (PCRE2 patterns, lists, Swift rules) → validator →
// `validate(input)` → `ValidationResult`. Owns the policies; does not own I/O beyond reading
// pack directories, and knows nothing about the CLI.
