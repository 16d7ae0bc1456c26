// Availability: display-name availability as the user types, and atomic claims.
//
// Owns: the `DisplayNamePolicy` seam (validation arrives from outside), the `ClaimStore` protocol
// and its in-memory implementation, the claim flow every store shares (the checks before
// storage, the decisions and their wording, the batch planner), the pure debounce state machine
// (`DebounceMachine`), the answer cache, suggestions, and the task-based `AvailabilityChecker`
// that drives them on any `Clock`. Does not own: the display-name rules themselves
// (FieldValidation, adapted in the RulesKit facade) or durable stores (SQLiteClaims,
// PostgresClaims), which add only their transactions and SQL.
