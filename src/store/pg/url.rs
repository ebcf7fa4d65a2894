//! `postgresql://` URLs: recognising one, reading it into the client's settings, and the one
//! form of it ever shown to a person, with the password taken out ([`redact`]).

use std::fmt;

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

/// True when `s` names a PostgreSQL database rather than a file.
#[must_use]
pub fn is_url(s: &str) -> bool {
    s.starts_with("postgresql://") || s.starts_with("postgres://")
}

/// `s` with any password removed: the `user:password@` of a URL becomes `user:***@`, and a
/// `password=` parameter `password=***`. Anything else is returned as it is.
#[must_use]
pub fn redact(s: &str) -> String {
    let Some(scheme_end) = s.find("://").map(|i| i + 3) else {
        return s.to_owned();
    };
    let (head, rest) = s.split_at(scheme_end);
    // The authority ends at the first '/', '?' or '#'; its user info at its last '@'.
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (auth, tail) = rest.split_at(auth_end);
    let auth = match auth.rfind('@') {
        Some(at) => match auth[..at].find(':') {
            Some(colon) => format!("{}:***{}", &auth[..colon], &auth[at..]),
            None => auth.to_owned(),
        },
        None => auth.to_owned(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let params: Vec<String> = query
                .split('&')
                .map(|p| match p.split_once('=') {
                    Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
                    _ => p.to_owned(),
                })
                .collect();
            format!("{path}?{}", params.join("&"))
        }
        None => tail.to_owned(),
    };
    format!("{head}{auth}{tail}")
}

/// Read a URL: `postgresql://[user[:password]@]host[:port]/dbname[?param=value&...]`, with
/// libpq's `sslmode` (`disable`, `prefer`, `require`, `verify-ca`, `verify-full`) and
/// `sslrootcert`. Without a password in the URL, `PGPASSWORD` gives it; without a user,
/// `PGUSER`, else the login name.
///
/// # Errors
/// The URL cannot be read; the message shows it with the password removed.
pub fn parse(url: &str) -> Result<PgUrl, String> {
    let shown = redact(url);
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut ssl = SslMode::Prefer;
    let mut root_cert = None;
    let mut passed = Vec::new();
    for p in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = p.split_once('=').unwrap_or((p, ""));
        match k {
            "sslmode" => {
                ssl = match v {
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
                }
            }
            "sslrootcert" => root_cert = Some(v.to_owned()),
            _ => passed.push(p),
        }
    }
    let rest = if passed.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", passed.join("&"))
    };
    let mut config: postgres::Config = rest.parse().map_err(|e| {
        format!("{shown} is not a PostgreSQL URL this spanreview can read ({e}): give postgresql://USER@HOST:PORT/DATABASE")
    })?;
    if config.get_dbname().is_none() {
        return Err(format!(
            "{shown} names no database: give postgresql://USER@HOST:PORT/DATABASE"
        ));
    }
    if config.get_password().is_none() {
        if let Some(p) = std::env::var_os("PGPASSWORD").filter(|p| !p.is_empty()) {
            config.password(p.as_encoded_bytes());
        }
    }
    if config.get_user().is_none() {
        if let Some(u) = std::env::var("PGUSER").ok().filter(|u| !u.is_empty()) {
            config.user(&u);
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
