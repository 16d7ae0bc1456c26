// SQLiteClaims: the embedded ClaimStore on SQLite through GRDB.
