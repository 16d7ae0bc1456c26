// BatchValidation: the validator-agnostic engine behind `validate` at scale.
//
// Owns: reading files and stdin as raw bytes (plain lines, CSV, JSONL), detecting damaged
// records (`input.*` codes), checking records in parallel while keeping input order, writing
// results (text, JSONL, CSV, summaries) and the progress bar.
// Does not own: what makes a field valid. That arrives through ``FieldChecker``, so this module
// knows nothing about emails, passwords or display names and is tested with a toy checker.
//
// Pipeline: `RecordChunker` (bytes → framed records) → `RecordDecoder` (record → field bytes)
// → ``FieldChecker`` → `RecordWriter` (→ output bytes) → ``OutputSink``, driven by ``BatchRunner``.
