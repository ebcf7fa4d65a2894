//! The engines the store tests run on: SQLite always; PostgreSQL too when `SPANREVIEW_TEST_PG`
//! is set, to the URL of a server's database in which the tests may create databases (CI sets
//! it: `.ci/pg.sh`). Each PostgreSQL test gets a database of its own, dropped after, so tests run
//! in parallel. When the variable is unset the PostgreSQL half is skipped, and the run says so
//! once on stderr (written past the test harness's capture, so it is seen).

use std::io::Write;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::engine::vals;
use super::Store;

/// The variable naming the test server.
pub const TEST_PG: &str = "SPANREVIEW_TEST_PG";

/// A fresh PostgreSQL database for one test, dropped with it.
pub struct PgDb {
    admin: String,
    name: String,
    /// Its URL.
    pub url: String,
}

static NEXT: AtomicU64 = AtomicU64::new(0);

impl PgDb {
    /// A new empty database on the test server, or `None` (said once) when there is none.
    pub fn create() -> Option<Self> {
        let Some(admin) = std::env::var(TEST_PG).ok().filter(|u| !u.is_empty()) else {
            say_skipped();
            return None;
        };
        let name = format!(
            "spanreview_t{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut c = postgres::Client::connect(&admin, postgres::NoTls)
            .unwrap_or_else(|e| panic!("{TEST_PG}: cannot connect to the test server: {e}"));
        c.batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap_or_else(|e| panic!("creating test database {name}: {e}"));
        let url = with_dbname(&admin, &name);
        Some(Self { admin, name, url })
    }

    /// The database as a `--db` value.
    pub fn path(&self) -> PathBuf {
        PathBuf::from(&self.url)
    }
}

impl Drop for PgDb {
    fn drop(&mut self) {
        if let Ok(mut c) = postgres::Client::connect(&self.admin, postgres::NoTls) {
            let _ = c.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

/// `url` with its database name replaced by `name`.
fn with_dbname(url: &str, name: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    let host_end = base[after_scheme..]
        .find('/')
        .map_or(base.len(), |i| after_scheme + i);
    let mut out = format!("{}/{name}", &base[..host_end]);
    if let Some(q) = query {
        out = format!("{out}?{q}");
    }
    out
}

fn say_skipped() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = writeln!(
            std::io::stderr(),
            "note: {TEST_PG} is not set: the store tests ran on SQLite only, PostgreSQL skipped \
             (`eval \"$(.ci/pg.sh start)\"` starts a test server)"
        );
    });
}

/// A store under test, keeping its PostgreSQL database alive.
pub struct TestStore {
    /// The store (dropped before the database).
    pub store: Store,
    _db: Option<PgDb>,
}

impl Deref for TestStore {
    type Target = Store;
    fn deref(&self) -> &Store {
        &self.store
    }
}

/// A new empty store on each engine: SQLite in memory, and a fresh PostgreSQL database when
/// the test server is set.
pub fn stores() -> Vec<TestStore> {
    let mut v = vec![TestStore {
        store: Store::open_in_memory().expect("sqlite in memory"),
        _db: None,
    }];
    if let Some(db) = PgDb::create() {
        v.push(TestStore {
            store: Store::open(&db.path()).expect("postgresql test database"),
            _db: Some(db),
        });
    }
    v
}

/// An SQLite file at `path` as another program (or another version of spanreview) leaves it:
/// `sql` run on it outside the store.
pub fn raw_sqlite(path: &Path, sql: &str) {
    let conn = rusqlite::Connection::open(path).expect("raw open");
    conn.execute_batch(sql).expect("raw sql");
}

/// A database location on each engine, for tests that open it several times (two processes):
/// an SQLite file in `dir`, and a fresh PostgreSQL database when the test server is set.
pub fn locations(dir: &Path, file: &str) -> Vec<(PathBuf, Option<PgDb>)> {
    let mut v = vec![(dir.join(file), None)];
    if let Some(db) = PgDb::create() {
        v.push((db.path(), Some(db)));
    }
    v
}

/// Run `test` on the database at each of [`locations`]: a file named `file` in a temporary
/// folder, and a fresh PostgreSQL database when the test server is set.
pub fn on_each_location(file: &str, test: impl Fn(&Path)) {
    let dir = tempfile::tempdir().expect("tmp");
    for (path, _db) in locations(dir.path(), file) {
        test(&path);
    }
}

/// Assert that `store`'s log refuses to change decision `id` and to delete decisions, each
/// refusal saying `why` (the schema's own refusal, or the server's missing privilege).
pub fn assert_log_unchangeable(store: &Store, id: i64, why: &str) {
    let e = store
        .conn
        .execute("UPDATE decision SET note = 'x' WHERE id = ?1", &vals![id])
        .expect_err("no UPDATE on the log");
    assert!(e.to_string().contains(why), "{e}");
    let e = store
        .conn
        .execute("DELETE FROM decision", &[])
        .expect_err("no DELETE on the log");
    assert!(e.to_string().contains(why), "{e}");
}

#[test]
fn the_test_database_url_keeps_host_and_parameters() {
    assert_eq!(
        with_dbname(
            "postgresql://postgres@127.0.0.1:5/postgres?sslmode=disable",
            "t1"
        ),
        "postgresql://postgres@127.0.0.1:5/t1?sslmode=disable"
    );
    assert_eq!(with_dbname("postgres://u@h", "t2"), "postgres://u@h/t2");
}

/// A test server of its own (`.ci/pg.sh start`, with TLS: `PG_SSL=1`), stopped and removed when
/// dropped: for what the shared one must not be put through.
pub struct PrivateServer {
    /// Its folder (with TLS, `root.crt` there: the test CA that signed its certificate).
    pub dir: PathBuf,
    /// The URL of its `postgres` database.
    pub url: String,
}

impl PrivateServer {
    /// Start one with TLS on (a certificate for localhost and 127.0.0.1 from a test CA).
    pub fn start_tls() -> Self {
        let out =
            std::process::Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/pg.sh"))
                .arg("start")
                .env("PG_SSL", "1")
                .output()
                .expect(".ci/pg.sh runs");
        assert!(
            out.status.success(),
            ".ci/pg.sh start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let value = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("export {key}=")))
                .unwrap_or_else(|| panic!("{key} in {text}"))
                .to_owned()
        };
        Self {
            dir: PathBuf::from(value("PG_TEST_DIR")),
            url: value(TEST_PG),
        }
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        let _ = std::process::Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/pg.sh"))
            .arg("stop")
            .arg(&self.dir)
            .status();
    }
}
