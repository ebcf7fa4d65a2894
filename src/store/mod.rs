//! SQLite storage: numbered migrations, the append-only decision log.
