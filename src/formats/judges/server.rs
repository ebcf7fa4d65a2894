//! Whether a `--judge` value names a PostgreSQL server rather than a file.

use std::path::Path;

/// True when a `--judge` file names a PostgreSQL database: a `postgresql://` or
/// `postgres://` URL (any case), or a key=value string (its first word holds `=`, and no file
/// has that name). The store reads it, or refuses it with the reason (its `is_url` is the
/// exact rule; formats cannot import the store).
pub(super) fn is_server(file: &str) -> bool {
    let scheme = |p: &str| {
        file.get(..p.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(p))
    };
    scheme("postgresql://")
        || scheme("postgres://")
        || (file
            .split_whitespace()
            .next()
            .is_some_and(|w| w.contains('='))
            && !Path::new(file).exists())
}
