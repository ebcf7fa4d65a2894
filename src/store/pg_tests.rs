//! What only a server has: reaching it (or not), its schema version, another program's tables,
//! a connection lost mid-review, and logs moved between the engines. The tests that need a
//! server are skipped (and say so) without `SPANREVIEW_TEST_PG`; the others always run.

use super::test_db::{assert_log_unchangeable, PgDb, PrivateServer};
use super::*;
use crate::review::decision::{ActionKind, OutcomeKind};

fn dec(record: &str, reviewer: &str, action: ActionKind, second: u32) -> Decision {
    Decision {
        time: format!("2026-12-01T16:00:{second:02}.000Z"),
        note: Some(format!("{reviewer} on {record} 東京 👋")),
        ..Decision::about("ds", reviewer, record, "h°", action)
    }
}

/// A free loopback port nobody listens on (bound, then released).
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

#[test]
fn a_server_that_is_down_is_a_clear_error_without_the_password() {
    let url = format!(
        "postgresql://ana:hunter2@127.0.0.1:{}/team?sslmode=disable",
        closed_port()
    );
    for open in [Store::open, Store::open_existing, Store::open_snapshot] {
        let e = open(Path::new(&url)).expect_err("nobody listens");
        assert!(matches!(e, StoreError::Unreachable { .. }), "{e:?}");
        assert!(e.is_connection_lost());
        let msg = e.to_string();
        assert!(!msg.contains("hunter2"), "{msg}");
        assert!(!format!("{e:?}").contains("hunter2"), "{e:?}");
        assert!(msg.contains("ana:***@127.0.0.1"), "{msg}");
        assert!(msg.contains("is the server running"), "{msg}");
    }
    // PGPASSWORD is not shown either.
    let e = Store::open(Path::new(&url.replace("ana:hunter2@", "ana@"))).expect_err("down");
    assert!(!e.to_string().contains("hunter2"));
}

#[test]
fn a_bad_url_is_refused_before_connecting() {
    let e = Store::open(Path::new("postgresql://ana:hunter2@h/db?sslmode=maybe"))
        .expect_err("bad sslmode");
    let msg = e.to_string();
    assert!(
        msg.contains("sslmode=maybe") && !msg.contains("hunter2"),
        "{msg}"
    );
}

#[test]
fn reading_a_database_without_spanreview_tables_is_missing_and_creates_nothing() {
    let Some(db) = PgDb::create() else { return };
    for open in [Store::open_existing, Store::open_snapshot] {
        let e = open(&db.path()).expect_err("nothing there");
        assert!(matches!(e, StoreError::Missing { .. }), "{e:?}");
    }
    let store = Store::open(&db.path()).expect("created by the review");
    assert_eq!(store.schema_version().expect("v"), SCHEMA_VERSION);
    assert!(Store::open_existing(&db.path()).is_ok());
}

#[test]
fn another_programs_tables_are_refused_unless_asked() {
    let Some(db) = PgDb::create() else { return };
    let mut c = postgres::Client::connect(&db.url, postgres::NoTls).expect("raw");
    c.batch_execute("CREATE TABLE invoices (x int)")
        .expect("theirs");
    let e = Store::open(&db.path()).expect_err("foreign");
    assert!(
        matches!(&e, StoreError::Foreign { tables, .. } if tables == &["invoices"]),
        "{e:?}"
    );
    // Said of a PostgreSQL database as of an SQLite file.
    assert!(!e.to_string().contains("SQLite"), "{e}");
    let store = Store::open_init(&db.path()).expect("--db-init adds spanreview's tables");
    assert_eq!(store.schema_version().expect("v"), SCHEMA_VERSION);
}

#[test]
fn a_newer_schema_is_refused_and_an_older_one_not_read() {
    let Some(db) = PgDb::create() else { return };
    drop(Store::open(&db.path()).expect("migrated"));
    let mut c = postgres::Client::connect(&db.url, postgres::NoTls).expect("raw");
    c.batch_execute(&format!(
        "INSERT INTO schema_version VALUES ({}, 'later')",
        SCHEMA_VERSION + 1
    ))
    .expect("bump");
    for open in [Store::open, Store::open_existing] {
        let e = open(&db.path()).expect_err("newer");
        assert!(
            matches!(e, StoreError::TooNew { found, .. } if found == SCHEMA_VERSION + 1),
            "{e:?}"
        );
    }
    let Some(old) = PgDb::create() else { return };
    let mut c = postgres::Client::connect(&old.url, postgres::NoTls).expect("raw");
    c.batch_execute(pg::MIGRATIONS_FOR_TESTS[0])
        .and_then(|()| c.batch_execute("INSERT INTO schema_version VALUES (1, 'then')"))
        .expect("version 1");
    let e = Store::open_existing(&old.path()).expect_err("older");
    assert!(matches!(e, StoreError::TooOld { found: 1, .. }), "{e:?}");
    // The review migrates it, through every twin migration.
    let store = Store::open(&old.path()).expect("migrates");
    assert_eq!(store.schema_version().expect("v"), SCHEMA_VERSION);
}

#[test]
fn the_engines_have_the_same_migrations() {
    assert_eq!(pg::MIGRATIONS_FOR_TESTS.len(), MIGRATIONS.len());
}

#[test]
fn a_lost_connection_saves_nothing_says_so_and_the_next_write_reconnects() {
    let Some(db) = PgDb::create() else { return };
    let store = Store::open(&db.path()).expect("open");
    let first = store
        .append(&dec("r1", "ana", ActionKind::Accept, 1), None)
        .expect("saved");
    // The server ends this reviewer's session (as a restart or a network cut does).
    let mut admin = postgres::Client::connect(&db.url, postgres::NoTls).expect("admin");
    let ended = admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid() \
             AND application_name = 'spanreview'",
            &[],
        )
        .expect("terminate");
    assert_eq!(ended, 1, "the store's one connection");
    let state = RecordState {
        reviewed: true,
        flagged: false,
        outcome: OutcomeKind::Clean,
        stale: false,
    };
    let second = dec("r2", "ana", ActionKind::Clean, 2);
    let e = store.append(&second, Some(&state)).expect_err("not saved");
    assert!(e.is_connection_lost(), "{e}");
    // Nothing of it reached the log; trying again (the screen's retry) saves it once.
    let again = store.append(&second, Some(&state)).expect("reconnected");
    let log = store.decisions(None).expect("log");
    assert_eq!(log, [first, again]);
    assert_eq!(store.record_state("ds", "r2").expect("q"), Some(state));
}

#[test]
fn merge_moves_a_postgres_log_into_sqlite_and_back_losing_nothing() {
    let (Some(team), Some(back)) = (PgDb::create(), PgDb::create()) else {
        return;
    };
    let pg = Store::open(&team.path()).expect("pg");
    let a = pg
        .append(
            &dec("r°1", "ana", ActionKind::Accept, 1),
            Some(&RecordState {
                reviewed: true,
                ..RecordState::default()
            }),
        )
        .expect("a");
    let mut undo = dec("r°1", "ana", ActionKind::Undo, 2);
    undo.target = Some(a.id);
    pg.append(&undo, None).expect("undo");
    let mut flag = dec("r’2", "bo", ActionKind::Flag, 3);
    flag.flag_on = Some(false);
    pg.append(&flag, None).expect("flag");
    pg.save_plan(
        "ds",
        &[Assignment {
            record_id: "r°1".into(),
            reviewers: vec!["ana".into()],
        }],
    )
    .expect("plan");

    let dir = tempfile::tempdir().expect("tmp");
    let file = Store::open(&dir.path().join("laptop.sqlite")).expect("sqlite");
    let r = file.merge_from(&pg).expect("pg → sqlite");
    assert_eq!((r.read, r.added, r.states), (3, 3, 1));
    let home = Store::open(&back.path()).expect("pg again");
    let r = home.merge_from(&file).expect("sqlite → pg");
    assert_eq!((r.read, r.added), (3, 3));
    assert_eq!(
        home.merge_from(&file).expect("again").added,
        0,
        "idempotent"
    );
    // Same log (ids compare too: both logs started empty), same states.
    assert_eq!(
        home.decisions(None).expect("log"),
        pg.decisions(None).expect("log")
    );
    assert_eq!(
        file.decisions(None).expect("log"),
        pg.decisions(None).expect("log")
    );
    assert_eq!(
        home.record_states("ds").expect("s"),
        pg.record_states("ds").expect("s")
    );
    let origins = |s: &Store| -> Vec<String> {
        s.select_with_origin("origins", "", &[])
            .expect("rows")
            .into_iter()
            .map(|(_, o)| o)
            .collect()
    };
    assert_eq!(origins(&home), origins(&pg), "origins carried");
}

#[test]
fn a_reviewer_role_with_insert_and_select_only_on_the_log_can_review_and_apply() {
    let Some(db) = PgDb::create() else { return };
    drop(Store::open(&db.path()).expect("migrated by the owner"));
    let role = format!("spanreview_r{}", std::process::id());
    let mut admin = postgres::Client::connect(&db.url, postgres::NoTls).expect("admin");
    admin
        .batch_execute(&format!(
            "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN; {}",
            include_str!("pg/reviewer_role.sql").replace("TO reviewer", &format!("TO {role}"))
        ))
        .expect("role");
    let url = db.url.replacen("://postgres@", &format!("://{role}@"), 1);
    assert_ne!(url, db.url, "the test server's URL names the user postgres");
    let result = std::panic::catch_unwind(|| {
        let store = Store::open(Path::new(&url)).expect("the reviewer opens it");
        let d = store
            .append(
                &dec("r1", "ana", ActionKind::Accept, 1),
                Some(&RecordState::default()),
            )
            .expect("appends, with the record state");
        store
            .append(
                &dec("r1", "ana", ActionKind::Flag, 2),
                Some(&RecordState::default()),
            )
            .expect("updates the record state");
        assert_log_unchangeable(&store, d.id, "permission denied");
        assert_eq!(store.decisions(None).expect("log").len(), 2);
        // `apply`: ids taken from the log's sequence, the rows copied in.
        let rows: Vec<(Decision, String)> = (0..2)
            .map(|i| {
                let mut d = dec("r2", "ana", ActionKind::Accept, 3 + i);
                d.id = PROVISIONAL + i64::from(i);
                (d, format!("origin {i} °"))
            })
            .collect();
        let saved = store
            .append_batch(|_| {
                Ok::<_, ()>(Batch {
                    rows,
                    states: Vec::new(),
                    dry_run: false,
                })
            })
            .expect("the reviewer applies a file");
        assert_eq!(saved, Ok(2));
        assert_eq!(store.decisions(None).expect("log").len(), 4);
    });
    drop(admin);
    drop(db);
    if let Ok(server) = std::env::var(super::test_db::TEST_PG) {
        if let Ok(mut c) = postgres::Client::connect(&server, postgres::NoTls) {
            let _ = c.batch_execute(&format!("DROP ROLE IF EXISTS {role}"));
        }
    }
    if let Err(p) = result {
        std::panic::resume_unwind(p);
    }
}

/// Whether the store's connection is encrypted, as the server sees it.
fn encrypted(store: &Store) -> bool {
    store
        .conn
        .query(
            "SELECT ssl::int FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .expect("pg_stat_ssl")[0]
        .get(0)
        .expect("ssl")
}

#[test]
fn sslmode_is_honoured_through_rustls() {
    let Some(db) = PgDb::create() else { return };
    // The shared test server has no TLS: `require` and `verify-full` refuse to go on without.
    for mode in ["require", "verify-full"] {
        let e = Store::open(Path::new(&format!("{}?sslmode={mode}", db.url))).expect_err(mode);
        assert!(matches!(e, StoreError::Unreachable { .. }), "{mode}: {e}");
        assert!(e.to_string().contains("TLS"), "{mode}: {e}");
    }
    let plain = Store::open(Path::new(&format!("{}?sslmode=prefer", db.url))).expect("prefer");
    assert!(!encrypted(&plain));

    let server = PrivateServer::start_tls();
    let base = server.url.clone();
    let cert = server.dir.join("root.crt");
    // require: encrypted, the certificate (of a CA nobody trusts) not checked, as libpq.
    let store = Store::open(Path::new(&format!("{base}?sslmode=require"))).expect("require");
    assert!(encrypted(&store));
    // verify-full: checked against sslrootcert and the host name; refused against the public
    // roots, and for a name the certificate does not carry.
    let good = format!("{base}?sslmode=verify-full&sslrootcert={}", cert.display());
    assert!(encrypted(&Store::open(Path::new(&good)).expect("verified")));
    let e = Store::open(Path::new(&format!("{base}?sslmode=verify-full"))).expect_err("unknown");
    assert!(e.to_string().contains("certificate"), "{e}");
    // The same server under a name its certificate does not carry (hostaddr: where to connect).
    let other_name = good.replace("@127.0.0.1:", "@db.example:") + "&hostaddr=127.0.0.1";
    let e = Store::open(Path::new(&other_name)).expect_err("not its name");
    assert!(e.to_string().contains("certificate"), "{e}");
}

#[test]
fn a_commit_whose_reply_was_lost_is_found_by_its_origin_not_reported_unsaved() {
    let Some(db) = PgDb::create() else { return };
    let store = Store::open(&db.path()).expect("open");
    let lose_the_next_reply = || match &store.conn {
        Conn::Pg(c) => c.lose_commit_reply.set(true),
        Conn::Sqlite(_) => unreachable!("a URL opens PostgreSQL"),
    };
    let state = RecordState::default();
    lose_the_next_reply();
    let one = store
        .append(&dec("r1", "ana", ActionKind::Accept, 1), Some(&state))
        .expect("committed before the reply was lost: saved");
    lose_the_next_reply();
    let two = store
        .append_all_then(&[dec("r2", "ana", ActionKind::Clean, 2)], &|_| {
            state.clone()
        })
        .expect("the screen's save, the same");
    assert_eq!(store.decisions(None).expect("log"), [one, two[0].clone()]);
}

/// A database set to acknowledge commits before they are flushed would let a crash lose a
/// decision the screen said was saved: the store's connection turns flushing back on.
#[test]
fn commits_are_flushed_even_where_the_database_says_not_to() {
    let Some(db) = PgDb::create() else { return };
    let mut c = postgres::Client::connect(&db.url, postgres::NoTls).expect("raw");
    c.batch_execute(
        "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET synchronous_commit = off', \
         current_database()); END $$",
    )
    .expect("set off");
    drop(c);
    let mut raw = postgres::Client::connect(&db.url, postgres::NoTls).expect("raw again");
    let theirs: String = raw
        .query_one("SHOW synchronous_commit", &[])
        .expect("show")
        .get(0);
    assert_eq!(theirs, "off", "the database's setting took");
    let store = Store::open(&db.path()).expect("open");
    let rows = store
        .conn
        .query("SHOW synchronous_commit", &[])
        .expect("show");
    assert_eq!(rows[0].0[0], super::engine::Value::Text("on".into()));
}
