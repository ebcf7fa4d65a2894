//! A PostgreSQL `--db` value (a URL or a key=value string): recognising one, reading it into
//! the client's settings with the password from it, `PGPASSWORD` or the password file, and
//! the one form of it ever shown to a person, with the password taken out ([`redact`]).

use std::fmt;

use super::conninfo;
use super::passfile;
pub use conninfo::{has_password, redact};

/// How TLS is used (the URL's `sslmode`, with libpq's meanings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// Never (`disable`).
    Disable,
    /// When the server offers it, without checking its certificate (`prefer`, libpq's default).
    Prefer,
    /// Always, without checking the certificate (`require`): encrypted, not authenticated.
    Require,
    /// Always, the certificate checked against the trusted roots and the host name
    /// (`verify-full`; `verify-ca` is taken as this, stricter).
    VerifyFull,
}

/// A PostgreSQL database named by a URL: the client's settings and what to show.
#[derive(Clone)]
pub struct PgUrl {
    /// The client's settings (password included).
    pub config: postgres::Config,
    /// TLS.
    pub ssl: SslMode,
    /// `sslrootcert`: a PEM file of roots for `verify-full` (else the Mozilla roots).
    pub root_cert: Option<String>,
    /// The URL as given, password removed.
    pub shown: String,
}

impl fmt::Debug for PgUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the config: it holds the password.
        f.write_str(&self.shown)
    }
}

/// True when `s` names a PostgreSQL database rather than a file: a `postgresql://` or
/// `postgres://` URL (the scheme in any case) or a libpq key=value string whose first word is
/// a connection keyword (`host=h dbname=db`).
#[must_use]
pub fn is_url(s: &str) -> bool {
    conninfo::is_server(s)
}

/// Take the last `key`'s value out of `pairs`.
fn take(pairs: &mut Vec<(String, String)>, key: &str) -> Option<String> {
    let mut found = None;
    pairs.retain(|(k, v)| {
        if k == key {
            found = Some(v.clone());
            false
        } else {
            true
        }
    });
    found
}

/// The host a password file line is matched against: the first host, `localhost` for a Unix
/// socket folder or none (as libpq).
fn first_host(config: &postgres::Config) -> String {
    match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(h)) if !h.is_empty() => h.clone(),
        _ => "localhost".to_owned(),
    }
}

/// The login name, which the client takes for a user not given.
fn login_name() -> String {
    ["PGUSER", "USER", "LOGNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|u| !u.is_empty()))
        .unwrap_or_default()
}

/// Read a `--db` value naming a PostgreSQL database, as libpq reads it: a URL
/// `postgresql://[user[:password]@]host[:port][,...]/dbname[?keyword=value&...]` (the scheme
/// in any case, parts percent-encoded) or a key=value string (`host=h dbname=db user=ana`,
/// values quoted in `'...'`, `\` escaping). libpq's `sslmode` (`disable`, `allow`, `prefer`,
/// `require`, `verify-ca`, `verify-full`) and `sslrootcert` are read here; `service` (else
/// `PGSERVICE`) fills what the string leaves unset from the service file. Without a
/// password, `PGPASSWORD` gives it, else the password file (`passfile`, `PGPASSFILE`,
/// `~/.pgpass`); without a user, `PGUSER`, else the login name.
///
/// # Errors
/// The value cannot be read; the message shows it with the password removed.
pub fn parse(url: &str) -> Result<PgUrl, String> {
    let shown = redact(url);
    let bad = |why: String| {
        format!(
            "{shown} is not a PostgreSQL connection this spanreview can read ({why}): give \
             postgresql://USER@HOST:PORT/DATABASE or \"host=HOST port=PORT dbname=DATABASE \
             user=USER\""
        )
    };
    let mut pairs = conninfo::pairs(url).map_err(bad)?;
    let service = take(&mut pairs, "service")
        .or_else(|| std::env::var("PGSERVICE").ok().filter(|s| !s.is_empty()));
    if let Some(name) = &service {
        let defaults = passfile::service(name).map_err(|e| format!("{shown}: {e}"))?;
        for (k, v) in defaults {
            if !pairs.iter().any(|(have, _)| *have == k) {
                pairs.push((k, v));
            }
        }
        conninfo::pairs(&conninfo::to_key_value(&pairs))
            .map_err(|e| format!("{shown}: service {name:?}: {e}"))?;
    }
    let mut ssl = SslMode::Prefer;
    if let Some(mode) = take(&mut pairs, "sslmode") {
        ssl = match mode.as_str() {
            "disable" => SslMode::Disable,
            "allow" | "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" | "verify-full" => SslMode::VerifyFull,
            other => {
                return Err(format!(
                    "{shown}: sslmode={other} is not one of disable, prefer, require, \
                     verify-ca, verify-full"
                ))
            }
        };
    }
    let root_cert = take(&mut pairs, "sslrootcert");
    let passfile = take(&mut pairs, "passfile");
    let mut config: postgres::Config = conninfo::to_key_value(&pairs)
        .parse()
        .map_err(|e: postgres::Error| bad(e.to_string()))?;
    if config.get_dbname().is_none() {
        return Err(format!(
            "{shown} names no database: give postgresql://USER@HOST:PORT/DATABASE"
        ));
    }
    if config.get_user().is_none() {
        let user = login_name();
        if !user.is_empty() {
            config.user(&user);
        }
    }
    if config.get_password().is_none() {
        if let Some(p) = std::env::var_os("PGPASSWORD").filter(|p| !p.is_empty()) {
            config.password(p.as_encoded_bytes());
        } else {
            let host = first_host(&config);
            let port = config
                .get_ports()
                .first()
                .copied()
                .unwrap_or(5432)
                .to_string();
            let wanted = passfile::Wanted {
                host: &host,
                port: &port,
                dbname: config.get_dbname().unwrap_or_default(),
                user: config.get_user().unwrap_or_default(),
            };
            if let Some(p) = passfile::password_for(passfile.as_deref(), wanted) {
                config.password(p);
            }
        }
    }
    config.application_name("spanreview");
    config.connect_timeout(std::time::Duration::from_secs(10));
    Ok(PgUrl {
        config,
        ssl,
        root_cert,
        shown,
    })
}

/// The warning for the password file a connection to `url` would read but libpq refuses
/// (group- or world-readable, not a plain file): only when neither `url` nor `PGPASSWORD`
/// gives a password, so the file would be read.
#[must_use]
pub fn pass_file_warning(url: &str) -> Option<String> {
    if has_password(url) || std::env::var_os("PGPASSWORD").is_some_and(|p| !p.is_empty()) {
        return None;
    }
    let pairs = conninfo::pairs(url).ok()?;
    let own = pairs.iter().rev().find(|(k, _)| k == "passfile");
    passfile::refused(&passfile::pass_file(own.map(|(_, v)| v.as_str()))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_is_never_shown() {
        for (url, shown) in [
            (
                "postgresql://ana:s3cr%40t:x@db.example:5432/team?sslmode=require",
                "postgresql://ana:***@db.example:5432/team?sslmode=require",
            ),
            (
                "postgres://ana:pw@h/db?password=pw2&sslmode=verify-full",
                "postgres://ana:***@h/db?password=***&sslmode=verify-full",
            ),
            ("postgresql://ana@h:1/db", "postgresql://ana@h:1/db"),
            ("postgresql://東京:пароль@h/d", "postgresql://東京:***@h/d"),
            ("team.sqlite", "team.sqlite"),
        ] {
            assert_eq!(redact(url), shown, "{url}");
            assert!(!redact(url).contains("pw") && !redact(url).contains("s3cr"));
        }
        // A URL that cannot be read: the error shows it without the password.
        let e = parse("postgresql://ana:hunter2@h:notaport/db").expect_err("bad port");
        assert!(!e.contains("hunter2") && e.contains("ana:***@h"), "{e}");
        let e = parse("postgresql://ana:hunter2@h/db?sslmode=sometimes").expect_err("bad mode");
        assert!(
            !e.contains("hunter2") && e.contains("sslmode=sometimes"),
            "{e}"
        );
        // Parsed, the password is kept for the server and not in the shown form or Debug.
        let u = parse("postgresql://ana:hunter2@h:5433/db?sslmode=verify-full").expect("url");
        assert_eq!(u.config.get_password(), Some(&b"hunter2"[..]));
        assert_eq!(u.ssl, SslMode::VerifyFull);
        assert!(!format!("{u:?} {}", u.shown).contains("hunter2"));
    }

    #[test]
    fn urls_are_told_from_paths() {
        assert!(is_url("postgresql://h/db") && is_url("postgres://h/db"));
        assert!(!is_url("postgresql.sqlite") && !is_url("./postgres://x"));
        assert!(parse("postgresql://ana@h").is_err(), "no database named");
    }
}
