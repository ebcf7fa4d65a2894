//! The two spellings of a PostgreSQL connection libpq reads, read into `(keyword, value)`
//! pairs: a URL (`postgresql://user:password@host:port/db?key=value`, the scheme in any case)
//! and a key=value string (`host=h port=5432 dbname=db user=ana password='a b'`), and the one
//! form of either ever shown to a person, its password replaced by `***` ([`redact`]).

/// libpq's connection keywords: a `--db` value whose first word is one of them followed by
/// `=` is a key=value connection string, not a file.
const KEYWORDS: &[&str] = &[
    "application_name",
    "channel_binding",
    "client_encoding",
    "connect_timeout",
    "dbname",
    "fallback_application_name",
    "gssencmode",
    "host",
    "hostaddr",
    "keepalives",
    "keepalives_count",
    "keepalives_idle",
    "keepalives_interval",
    "load_balance_hosts",
    "options",
    "passfile",
    "password",
    "port",
    "require_auth",
    "service",
    "sslcert",
    "sslkey",
    "sslmode",
    "sslnegotiation",
    "sslrootcert",
    "target_session_attrs",
    "tcp_user_timeout",
    "user",
];

/// The URL schemes libpq reads (here in any case).
const SCHEMES: [&str; 2] = ["postgresql://", "postgres://"];

/// Where the URL's scheme ends, when `s` starts with one (any case).
fn scheme_len(s: &str) -> Option<usize> {
    SCHEMES.iter().find_map(|p| {
        s.get(..p.len())
            .filter(|h| h.eq_ignore_ascii_case(p))
            .map(|_| p.len())
    })
}

/// True when `s` is a key=value connection string: its first word is a libpq keyword, then
/// `=` (spaces allowed around it, as libpq allows).
#[must_use]
pub fn is_key_value(s: &str) -> bool {
    let t = s.trim_start();
    let end = t
        .find(|c: char| c == '=' || c.is_whitespace())
        .unwrap_or(t.len());
    KEYWORDS.contains(&&t[..end]) && t[end..].trim_start().starts_with('=')
}

/// True when `s` names a PostgreSQL database rather than a file: a `postgresql://` or
/// `postgres://` URL (the scheme in any case) or a key=value connection string.
#[must_use]
pub fn is_server(s: &str) -> bool {
    scheme_len(s).is_some() || is_key_value(s)
}

/// One `keyword = value` of a key=value string: where its value is, quotes included.
struct Item<'a> {
    key: &'a str,
    value: String,
    span: std::ops::Range<usize>,
}

/// Why a key=value string cannot be read: the message, and the byte where the value that
/// could not be read starts (the rest of the string is not shown).
struct Unreadable {
    message: String,
    from: usize,
}

/// The next `keyword = value` from byte `at`, with libpq's rules: spaces around `=`; a value
/// ends at a space unless quoted in `'...'`; `\` takes the next character as it is.
fn next_item<'a>(s: &'a str, at: &mut usize) -> Option<Result<Item<'a>, Unreadable>> {
    let b = s.as_bytes();
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    let mut i = *at;
    skip_ws(&mut i);
    if i == b.len() {
        return None;
    }
    let key_start = i;
    while i < b.len() && b[i] != b'=' && !b[i].is_ascii_whitespace() {
        i += 1;
    }
    let key = &s[key_start..i];
    skip_ws(&mut i);
    if b.get(i) != Some(&b'=') {
        *at = b.len();
        return Some(Err(Unreadable {
            message: format!("missing \"=\" after {}", shown_key(key)),
            from: key_start,
        }));
    }
    i += 1;
    skip_ws(&mut i);
    let start = i;
    let quoted = b.get(i) == Some(&b'\'');
    if quoted {
        i += 1;
    }
    let mut value = String::new();
    let mut chars = s[i..].char_indices();
    let mut closed = !quoted;
    let mut end = s.len();
    while let Some((k, c)) = chars.next() {
        if quoted && c == '\'' {
            closed = true;
            end = i + k + 1;
            break;
        }
        if !quoted && c.is_whitespace() {
            end = i + k;
            break;
        }
        if c == '\\' {
            if let Some((_, n)) = chars.next() {
                value.push(n);
            }
        } else {
            value.push(c);
        }
    }
    *at = end;
    if !closed {
        *at = s.len();
        return Some(Err(Unreadable {
            message: format!("the value of {} has no closing quote", shown_key(key)),
            from: start,
        }));
    }
    Some(Ok(Item {
        key,
        value,
        span: start..end,
    }))
}

/// True when `key` names the password (any case).
fn is_password(key: &str) -> bool {
    key.eq_ignore_ascii_case("password")
}

/// A keyword as a message may quote it: one holding `password` (a value run into it) is not.
fn shown_key(key: &str) -> String {
    if key.to_ascii_lowercase().contains("password") {
        "\"password\"".to_owned()
    } else {
        format!("{key:?}")
    }
}

/// `s` (a URL's part after the scheme) with each `password=` parameter's value `***`: the
/// value ends at the next `&KEYWORD=` (a raw `&` in it is not taken for its end), else at the
/// end of the URL.
fn redact_url_params(s: &str) -> String {
    let lower = s.to_ascii_lowercase();
    let mut out = String::with_capacity(s.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some(i) = lower[from..].find("password=").map(|i| i + from) {
        let starts_param = i == 0 || matches!(s.as_bytes()[i - 1], b'?' | b'&');
        let start = i + "password=".len();
        from = start;
        if !starts_param {
            continue;
        }
        let end = s[start..]
            .match_indices('&')
            .map(|(k, _)| start + k)
            .find(|&k| {
                let next = &s[k + 1..];
                next.split_once('=')
                    .is_some_and(|(key, _)| KEYWORDS.contains(&key))
            })
            .unwrap_or(s.len());
        out.push_str(&s[copied..start]);
        out.push_str("***");
        copied = end;
        from = end;
    }
    out.push_str(&s[copied..]);
    out
}

/// A key=value string with the password's value `***` (and an unknown keyword's); a value
/// that cannot be read is not shown either, nor anything after it.
fn redact_key_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut copied = 0;
    let mut at = 0;
    while let Some(item) = next_item(s, &mut at) {
        match item {
            // An unknown keyword may be a misspelt `password`: its value is not shown either.
            Ok(item) if is_password(item.key) || !KEYWORDS.contains(&item.key) => {
                out.push_str(&s[copied..item.span.start]);
                out.push_str("***");
                copied = item.span.end;
            }
            Ok(_) => {}
            Err(e) => {
                out.push_str(&s[copied..e.from]);
                if e.from < s.len() {
                    out.push_str("***");
                }
                copied = s.len();
            }
        }
    }
    out.push_str(&s[copied..]);
    out
}

/// Where a URL's user info ends (the `@`), as the password may hold any delimiter: the last
/// `@` of the URL. `None` without one.
fn user_info_end(rest: &str) -> Option<usize> {
    rest.rfind('@')
}

/// A URL with its password `***`: the user info ends at the URL's last `@` (a password may
/// hold `@ : / ? #` unencoded), and a `password=` parameter's value is masked first
/// ([`redact_url_params`]).
fn redact_url(s: &str, scheme: usize) -> String {
    let (head, rest) = s.split_at(scheme);
    let rest = redact_url_params(rest);
    let auth = match user_info_end(&rest) {
        Some(at) => {
            let info = &rest[..at];
            match info.find(':') {
                Some(colon) => format!("{}:***{}", &info[..colon], &rest[at..]),
                None => rest.clone(),
            }
        }
        None => rest.clone(),
    };
    format!("{head}{auth}")
}

/// `s` with any password removed: a URL's `user:password@` becomes `user:***@`, its
/// `password=` parameter `password=***`, and a key=value string's `password=...` (quoted or
/// not) `password=***`. Anything else is returned as it is, except that a value holding
/// `password=` has what follows it replaced, whatever it is.
#[must_use]
pub fn redact(s: &str) -> String {
    if let Some(scheme) = scheme_len(s) {
        return redact_url(s, scheme);
    }
    if is_key_value(s) {
        return redact_key_value(s);
    }
    if s.contains("://") {
        // Another scheme (a mistyped one): its user info is not shown either.
        if let Some(i) = s.find("://") {
            return redact_url(s, i + 3);
        }
    }
    match s.to_ascii_lowercase().find("password=") {
        Some(i) => format!("{}***", &s[..i + "password=".len()]),
        None => s.to_owned(),
    }
}

/// True when `s` holds a password (a URL's or a key=value string's).
#[must_use]
pub fn has_password(s: &str) -> bool {
    redact(s) != s
}

/// `s` percent-decoded, as libpq decodes a URL's parts: `%` must start two hex digits.
fn decode(s: &str, what: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            let Some(byte) = hex else {
                return Err(format!(
                    "the {what} holds a '%' that starts no percent-encoded byte: write '%' as %25"
                ));
            };
            out.push(byte);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("the {what} is not UTF-8 once percent-decoded"))
}

/// A URL's pairs: `user`, `password`, `host` and `port` (comma-separated lists, as libpq's),
/// `dbname`, then the query's parameters, every part percent-decoded. The user info ends at
/// the last `@`; a user or password holding a raw `@ / ? #` is refused (libpq would read
/// another host), asking for it percent-encoded.
fn url_pairs(s: &str, scheme: usize) -> Result<Vec<(String, String)>, String> {
    let mut rest = &s[scheme..];
    let mut pairs = Vec::new();
    if let Some(at) = user_info_end(rest) {
        let info = &rest[..at];
        if info.contains(['@', '/', '?', '#']) {
            return Err(
                "the user name or password holds a raw '@', '/', '?' or '#': percent-encode it \
                 (%40, %2F, %3F, %23)"
                    .to_owned(),
            );
        }
        let (user, password) = match info.split_once(':') {
            Some((u, p)) => (u, Some(p)),
            None => (info, None),
        };
        if !user.is_empty() {
            pairs.push(("user".to_owned(), decode(user, "user name")?));
        }
        if let Some(p) = password {
            pairs.push(("password".to_owned(), decode(p, "password")?));
        }
        rest = &rest[at + 1..];
    }
    let host_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (hosts, mut rest) = rest.split_at(host_end);
    if !hosts.is_empty() {
        let (mut names, mut ports) = (Vec::new(), Vec::new());
        for chunk in hosts.split(',') {
            let (name, port) = if let Some(v6) = chunk.strip_prefix('[') {
                let (name, after) = v6
                    .split_once(']')
                    .ok_or_else(|| format!("the host {chunk:?} has no closing ']'"))?;
                match after {
                    "" => (name, ""),
                    p if p.starts_with(':') => (name, &p[1..]),
                    _ => return Err(format!("the host {chunk:?} is not [ADDRESS]:PORT")),
                }
            } else {
                chunk.split_once(':').unwrap_or((chunk, ""))
            };
            names.push(decode(name, "host")?);
            ports.push(decode(port, "port")?);
        }
        if names.iter().any(|n| !n.is_empty()) {
            pairs.push(("host".to_owned(), names.join(",")));
        }
        if ports.iter().any(|p| !p.is_empty()) {
            pairs.push(("port".to_owned(), ports.join(",")));
        }
    }
    if let Some(path) = rest.strip_prefix('/') {
        let end = path.find('?').unwrap_or(path.len());
        if end > 0 {
            pairs.push(("dbname".to_owned(), decode(&path[..end], "database name")?));
        }
        rest = &path[end..];
    }
    if let Some(query) = rest.strip_prefix('?') {
        for p in query.split('&').filter(|p| !p.is_empty()) {
            let Some((k, v)) = p.split_once('=') else {
                let k = if is_password(p) { "***" } else { p };
                return Err(format!("the parameter {k:?} has no '=VALUE'"));
            };
            pairs.push((decode(k, "parameter name")?, decode(v, "parameter value")?));
        }
    }
    Ok(pairs)
}

/// The `(keyword, value)` pairs of a URL or key=value string, as libpq reads them (a
/// keyword not libpq's is refused, naming it).
///
/// # Errors
/// `s` cannot be read: the message says why, never quoting the password.
pub fn pairs(s: &str) -> Result<Vec<(String, String)>, String> {
    let pairs = if let Some(scheme) = scheme_len(s) {
        url_pairs(s, scheme)?
    } else {
        let mut out = Vec::new();
        let mut at = 0;
        while let Some(item) = next_item(s, &mut at) {
            let item = item.map_err(|e| e.message)?;
            out.push((item.key.to_owned(), item.value));
        }
        out
    };
    if let Some((k, _)) = pairs.iter().find(|(k, _)| !KEYWORDS.contains(&k.as_str())) {
        let k = if is_password(k) { "***" } else { k };
        return Err(format!(
            "{k:?} is not a connection keyword libpq knows (host, port, dbname, user, \
             password, service, sslmode, ...)"
        ));
    }
    Ok(pairs)
}

/// `pairs` as a key=value string for the client's own reader, every value quoted.
#[must_use]
pub fn to_key_value(pairs: &[(String, String)]) -> String {
    let mut out = String::new();
    for (k, v) in pairs {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(k);
        out.push_str("='");
        for c in v.chars() {
            if c == '\'' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
        out.push('\'');
    }
    out
}

#[cfg(test)]
#[path = "conninfo_tests.rs"]
mod tests;
