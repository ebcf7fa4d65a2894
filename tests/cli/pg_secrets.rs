//! How a PostgreSQL `--db` is read and its password kept: the URL schemes in any case and
//! libpq's key=value strings reach the server (a fake one here, which asks for the password
//! in clear and records what it is sent), a value that only looks like one is refused and
//! makes no file, the password file and the service file are read as libpq reads them, a
//! password on the command line is warned about once, and no output shows a password.

use std::fs;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::mpsc;

use serde_json::json;

use super::common::{self, bin};

/// What the fake server was sent: the startup message's parameters and the password.
#[derive(Debug, Default)]
struct Sent {
    params: Vec<(String, String)>,
    password: Option<String>,
}

impl Sent {
    fn param(&self, k: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(kk, _)| kk == k)
            .map(|(_, v)| v.as_str())
    }
}

/// A fake PostgreSQL server on loopback for one connection: it declines TLS, asks for the
/// password in clear, records what it gets, then refuses the login. Returns its port and
/// where the record arrives.
fn fake_server() -> (u16, mpsc::Receiver<Sent>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let Ok((mut s, _)) = listener.accept() else {
            return;
        };
        let mut sent = Sent::default();
        let read_msg = |s: &mut std::net::TcpStream| -> Option<Vec<u8>> {
            let mut len = [0u8; 4];
            s.read_exact(&mut len).ok()?;
            let n = u32::from_be_bytes(len) as usize;
            let mut body = vec![0u8; n.saturating_sub(4)];
            s.read_exact(&mut body).ok()?;
            Some(body)
        };
        let Some(mut startup) = read_msg(&mut s) else {
            return;
        };
        if startup == [0x04, 0xd2, 0x16, 0x2f] {
            // SSLRequest: no TLS here.
            let _ = s.write_all(b"N");
            let Some(next) = read_msg(&mut s) else {
                return;
            };
            startup = next;
        }
        let fields: Vec<String> = startup[4..]
            .split(|b| *b == 0)
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .collect();
        for kv in fields.chunks(2) {
            if let [k, v] = kv {
                if !k.is_empty() {
                    sent.params.push((k.clone(), v.clone()));
                }
            }
        }
        // AuthenticationCleartextPassword.
        let _ = s.write_all(&[b'R', 0, 0, 0, 8, 0, 0, 0, 3]);
        let mut tag = [0u8; 1];
        if s.read_exact(&mut tag).is_ok() && tag[0] == b'p' {
            if let Some(body) = read_msg(&mut s) {
                let pw = body.strip_suffix(&[0]).unwrap_or(&body);
                sent.password = Some(String::from_utf8_lossy(pw).into_owned());
            }
        }
        let mut err = vec![b'E', 0, 0, 0, 0];
        for (code, text) in [(b'S', "FATAL"), (b'C', "28P01"), (b'M', "fake server")] {
            err.push(code);
            err.extend_from_slice(text.as_bytes());
            err.push(0);
        }
        err.push(0);
        let n = u32::try_from(err.len() - 1).expect("small");
        err[1..5].copy_from_slice(&n.to_be_bytes());
        let _ = s.write_all(&err);
        let _ = tx.send(sent);
    });
    (port, rx)
}

/// A records file and a one-line decisions file in `dir`.
fn inputs(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let records = dir.join("records.jsonl");
    let rec = json!({"id": "r1", "query": "q", "context": "c", "output": "It’s 25°C in 東京 👋",
        "hallucination_labels": []});
    fs::write(&records, format!("{rec}\n")).expect("records");
    let d = dir.join("d.jsonl");
    fs::write(
        &d,
        format!("{}\n", json!({"record_id": "r1", "action": "clean"})),
    )
    .expect("d");
    (records, d)
}

/// `apply` into `db` from a fresh folder (also its HOME), with `env` set; returns the run
/// and the folder's files afterwards.
fn apply_into(
    db: &str,
    env: &[(&str, &str)],
    setup: impl FnOnce(&Path),
) -> (assert_cmd::assert::Assert, Vec<String>) {
    let dir = tempfile::tempdir().expect("tmp");
    let (records, d) = inputs(dir.path());
    setup(dir.path());
    let mut cmd = bin();
    cmd.current_dir(dir.path())
        .env("HOME", dir.path())
        .env_remove("PGPASSWORD")
        .env_remove("PGPASSFILE")
        .env_remove("PGSERVICE")
        .env_remove("PGSERVICEFILE")
        .env_remove("SPANREVIEW_DB")
        .arg("apply")
        .arg(&records)
        .arg("--decisions")
        .arg(&d)
        .args(["--reviewer", "ana", "--db", db]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let a = cmd.assert();
    let mut names = common::names(dir.path());
    names.retain(|n| n != "records.jsonl" && n != "d.jsonl" && !n.starts_with('.'));
    (a, names)
}

fn received(rx: &mpsc::Receiver<Sent>) -> Sent {
    rx.recv_timeout(std::time::Duration::from_secs(20))
        .expect("the fake server was reached")
}

#[test]
fn upper_case_urls_and_key_value_strings_reach_the_server() {
    for form in [
        "POSTGRESQL://ana:An%40pw@127.0.0.1:PORT/team",
        "Postgres://ana:An%40pw@127.0.0.1:PORT/team?sslmode=prefer",
        "host=127.0.0.1 port=PORT dbname=team user=ana password=An@pw",
        "host = 127.0.0.1 port=PORT dbname='team' user=ana password='An@pw'",
    ] {
        let (port, rx) = fake_server();
        let db = form.replace("PORT", &port.to_string());
        let (a, files) = apply_into(&db, &[], |_| {});
        let a = a.code(2);
        let sent = received(&rx);
        assert_eq!(sent.param("user"), Some("ana"), "{form}");
        assert_eq!(sent.param("database"), Some("team"), "{form}");
        assert_eq!(sent.password.as_deref(), Some("An@pw"), "{form}");
        assert!(files.is_empty(), "{form}: no local file: {files:?}");
        let err = common::stderr(&a);
        assert!(err.contains("cannot connect"), "{form}: {err}");
        assert!(!err.contains("An@pw") && !err.contains("An%40pw"), "{err}");
    }
}

#[test]
fn a_value_that_looks_like_a_connection_but_is_none_is_refused_and_makes_no_file() {
    for db in [
        "postgresq://ana:hunter2@127.0.0.1:1/team",
        "mysql://ana:hunter2@h/db",
        "hots=127.0.0.1 password=hunter2",
        "host=127.0.0.1 dbname=team password='hunter2",
        "host=127.0.0.1 dbname=team pasword=hunter2",
        "postgresql://ana:hunter2@127.0.0.1:notaport/team",
        "postgresql://ana:hunt@er2@127.0.0.1/team",
        "./password=hunter2.sqlite",
    ] {
        let (a, files) = apply_into(db, &[], |_| {});
        let a = a.code(2);
        let err = common::stderr(&a);
        assert!(
            !err.contains("hunter2") && !err.contains("er2"),
            "{db}: {err}"
        );
        assert!(files.is_empty(), "{db}: {files:?}");
        assert!(!err.contains("saved"), "{db}: {err}");
    }
}

#[test]
fn a_password_on_the_command_line_is_warned_about_once() {
    let warning = "visible to other users; use PGPASSWORD or ~/.pgpass";
    let (port, _rx) = fake_server();
    let url = format!("postgresql://ana:p@ss:w/rd@127.0.0.1:{port}/team");
    let (a, _) = apply_into(&url, &[], |_| {});
    let err = common::stderr(&a.code(2));
    assert_eq!(err.matches(warning).count(), 1, "{err}");
    assert!(!err.contains("p@ss") && !err.contains("w/rd"), "{err}");
    // The password from PGPASSWORD, or the URL from SPANREVIEW_DB: nothing to warn about.
    let (port, _rx) = fake_server();
    let url = format!("postgresql://ana@127.0.0.1:{port}/team");
    let (a, _) = apply_into(&url, &[("PGPASSWORD", "hunter2")], |_| {});
    let err = common::stderr(&a.code(2));
    assert!(!err.contains(warning) && !err.contains("hunter2"), "{err}");
}

/// Write `text` to `path` with permissions `mode`.
fn write_mode(path: &Path, text: &str, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::write(path, text).expect("write");
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
}

#[test]
fn the_password_file_gives_the_password_unless_others_may_read_it() {
    for (mode, env, want) in [
        (0o600, None, Some("from:file")),
        (0o644, None, None),
        (0o600, Some("from-env"), Some("from-env")),
    ] {
        let (port, rx) = fake_server();
        let url = format!("postgresql://ana@127.0.0.1:{port}/team");
        let line = format!("other:*:*:*:nope\n127.0.0.1:{port}:team:ana:from\\:file\n");
        let env: Vec<(&str, &str)> = env.map(|p| ("PGPASSWORD", p)).into_iter().collect();
        let (a, _) = apply_into(&url, &env, |home| {
            write_mode(&home.join(".pgpass"), &line, mode)
        });
        let err = common::stderr(&a.code(2));
        if want.is_some() {
            assert_eq!(received(&rx).password.as_deref(), want, "{mode:o}: {err}");
        }
        assert_eq!(
            err.contains("group or world access"),
            mode != 0o600,
            "{err}"
        );
        assert!(
            !err.contains("from:file") && !err.contains("from-env"),
            "{err}"
        );
    }
}

#[test]
fn a_service_names_the_server_and_its_password_file_line() {
    let (port, rx) = fake_server();
    let (a, files) = apply_into(
        "service=team",
        &[("PGSERVICEFILE", "services.conf")],
        |home| {
            let conf = format!(
                "# ours\n[other]\nhost=nowhere\n[team]\nhost=127.0.0.1\nport={port}\ndbname=東京\nuser=ana\n"
            );
            fs::write(home.join("services.conf"), conf).expect("services");
            write_mode(
                &home.join(".pgpass"),
                &format!("*:{port}:東京:ana:s3cret\n"),
                0o600,
            );
        },
    );
    a.code(2);
    let sent = received(&rx);
    assert_eq!(sent.param("database"), Some("東京"));
    assert_eq!(sent.password.as_deref(), Some("s3cret"));
    assert_eq!(files, ["services.conf"], "no database file");
    let (a, _) = apply_into(
        "service=none",
        &[("PGSERVICEFILE", "services.conf")],
        |_| {},
    );
    let err = common::stderr(&a.code(2));
    assert!(err.contains("service \"none\" not found"), "{err}");
}

#[test]
fn a_key_value_string_and_an_upper_case_url_save_on_a_real_server() {
    let Some(pg) = crate::pg_server::PgDb::create() else {
        return;
    };
    let url = pg.path().display().to_string();
    let rest = url.split_once("://").expect("url").1;
    let (user, rest) = rest.split_once('@').expect("user");
    let (hostport, db) = rest.split_once('/').expect("db");
    let (host, port) = hostport.split_once(':').expect("port");
    let kv = format!("host={host} port={port} dbname='{db}' user={user}");
    let upper = format!(
        "POSTGRESQL://{rest_all}",
        rest_all = url.split_once("://").expect("u").1
    );
    // The same line through both: the second finds it on the server (its origin, derived
    // from its content, is there), so both reached the one server.
    for (db_arg, said) in [
        (&kv, "1 decisions saved, 0 already"),
        (&upper, "0 decisions saved, 1 already"),
    ] {
        let (a, files) = apply_into(db_arg, &[], |_| {});
        let out = String::from_utf8_lossy(&a.success().get_output().stdout).into_owned();
        assert!(out.contains(said), "{db_arg}: {out}");
        assert!(files.is_empty(), "{db_arg}: {files:?}");
    }
    let a = bin()
        .args(["decisions", "--json", "--db"])
        .arg(&url)
        .assert()
        .success();
    let out = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert_eq!(
        out.lines().count(),
        1,
        "the line saved once on the server: {out}"
    );
}
