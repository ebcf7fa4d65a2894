//! The two files libpq reads a connection's settings from, read as libpq reads them: the
//! password file (`PGPASSFILE`, else `~/.pgpass`: `host:port:database:user:password` lines,
//! `*` for any, `\:` and `\\` escaped; ignored, with a warning, when group or others may read
//! it) and the connection service file (`PGSERVICEFILE`, else `~/.pg_service.conf`, then
//! `PGSYSCONFDIR/pg_service.conf`: `[name]` sections of `keyword=value` lines).

use std::path::{Path, PathBuf};

/// The user's home folder (`HOME`).
fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// An environment variable's value, unset when empty.
fn var(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The password file libpq would read: `passfile` (the connection's own), else
/// `PGPASSFILE`, else `~/.pgpass`.
#[must_use]
pub fn pass_file(passfile: Option<&str>) -> Option<PathBuf> {
    passfile
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| var("PGPASSFILE"))
        .or_else(|| home().map(|h| h.join(".pgpass")))
}

/// Why libpq would not read the password file at `path` (it is no plain file, or group or
/// others may read it), as libpq's warning says it; `None` when it is read (or not there).
#[must_use]
pub fn refused(path: &Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return Some(format!(
            "password file {} is not a plain file: it is not read",
            path.display()
        ));
    }
    (meta.permissions().mode() & 0o077 != 0).then(|| {
        format!(
            "password file {} has group or world access; permissions should be u=rw (0600) \
             or less: it is not read",
            path.display()
        )
    })
}

/// The fields of a password file line, `\` taking the next character as it is.
fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => field.extend(chars.next()),
            ':' if out.len() < 4 => out.push(std::mem::take(&mut field)),
            // The password ends at an unescaped ':', as libpq reads it.
            ':' => break,
            c => field.push(c),
        }
    }
    out.push(field);
    out
}

/// What a password file line is matched against: the host (`localhost` for a socket folder
/// or none, as libpq), port, database and user.
#[derive(Debug, Clone, Copy)]
pub struct Wanted<'a> {
    /// Host name (`localhost` for a Unix socket).
    pub host: &'a str,
    /// Port, as written (`5432` by default).
    pub port: &'a str,
    /// Database.
    pub dbname: &'a str,
    /// User.
    pub user: &'a str,
}

/// The password of the first line of `text` (a password file) matching `w`.
#[must_use]
pub fn password_in(text: &str, w: Wanted<'_>) -> Option<String> {
    text.lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(fields)
        .filter(|f| f.len() == 5)
        .find(|f| {
            [w.host, w.port, w.dbname, w.user]
                .iter()
                .zip(f)
                .all(|(want, got)| got == "*" || got == want)
        })
        .map(|mut f| f.swap_remove(4))
}

/// The password libpq would take from the password file for `w`: none when the file is
/// missing, unreadable or refused ([`refused`]).
#[must_use]
pub fn password_for(passfile: Option<&str>, w: Wanted<'_>) -> Option<String> {
    let path = pass_file(passfile)?;
    if refused(&path).is_some() {
        return None;
    }
    let text = std::fs::read_to_string(&path).ok()?;
    password_in(&text, w)
}

/// The `keyword=value` lines of section `[name]` of a service file's `text`, or `None` when
/// it has no such section.
///
/// # Errors
/// A line of the section is no `keyword=value`, or names `service` again (nested services
/// are not supported, as in libpq).
pub fn service_in(
    text: &str,
    name: &str,
    file: &Path,
) -> Result<Option<Vec<(String, String)>>, String> {
    let mut found = None;
    let mut inside = false;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if inside {
                break;
            }
            inside = section == name;
            if inside {
                found = Some(Vec::new());
            }
            continue;
        }
        if !inside {
            continue;
        }
        let place = format!("{}:{}", file.display(), n + 1);
        let Some((k, v)) = line.split_once('=') else {
            return Err(format!(
                "{place}: expected keyword=value in service {name:?}"
            ));
        };
        let k = k.trim();
        if k == "service" {
            return Err(format!(
                "{place}: nested service specifications are not supported"
            ));
        }
        if let Some(pairs) = found.as_mut() {
            pairs.push((k.to_owned(), v.trim().to_owned()));
        }
    }
    Ok(found)
}

/// The service files libpq reads, in its order: `PGSERVICEFILE` (else `~/.pg_service.conf`),
/// then `PGSYSCONFDIR/pg_service.conf`.
fn service_files() -> Vec<PathBuf> {
    let user = var("PGSERVICEFILE").or_else(|| home().map(|h| h.join(".pg_service.conf")));
    let system = var("PGSYSCONFDIR").map(|d| d.join("pg_service.conf"));
    user.into_iter().chain(system).collect()
}

/// The settings of service `name` from the first service file that defines it.
///
/// # Errors
/// No service file defines it, or its section cannot be read.
pub fn service(name: &str) -> Result<Vec<(String, String)>, String> {
    let files = service_files();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        if let Some(pairs) = service_in(&text, name, file)? {
            return Ok(pairs);
        }
    }
    let looked: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    Err(format!(
        "definition of service {name:?} not found (looked in: {})",
        if looked.is_empty() {
            "no service file: set PGSERVICEFILE or HOME".to_owned()
        } else {
            looked.join(", ")
        }
    ))
}

#[cfg(test)]
#[path = "passfile_tests.rs"]
mod tests;
