use super::*;

/// Passwords holding each URL delimiter, a space, quotes, a backslash and non-ASCII text.
pub(crate) const PASSWORDS: &[&str] = &[
    "An@:/?#%pw!",
    "p@ss",
    "a:b",
    "x/y",
    "q?r",
    "h#s",
    "50%off",
    "bang!",
    "two words",
    "it's",
    "back\\slash",
    "東京°’👋",
];

#[test]
fn urls_are_told_from_paths_in_any_case_and_key_value_strings_too() {
    for s in [
        "postgresql://h/db",
        "postgres://h/db",
        "POSTGRESQL://h/db",
        "PostgreS://h/db",
        "host=h dbname=db",
        "  dbname = db host=h",
        "password=x host=h",
        "service=team",
    ] {
        assert!(is_server(s), "{s}");
    }
    for s in [
        "postgresql.sqlite",
        "./postgres://x",
        "team.sqlite",
        "a=b.sqlite",
        "hostname=x",
        "host",
        "東京.sqlite",
    ] {
        assert!(!is_server(s), "{s}");
    }
}

#[test]
fn a_url_password_with_any_delimiter_is_masked_whole() {
    // userinfo ends at the last '@': nothing of the password is left after the mask.
    assert_eq!(
        redact("postgresql://ana:An@:/?#%pw!@host/db"),
        "postgresql://ana:***@host/db"
    );
    for pw in PASSWORDS {
        for scheme in ["postgresql://", "POSTGRES://"] {
            let url = format!("{scheme}ana:{pw}@db.example:5432/team?sslmode=require");
            let shown = redact(&url);
            assert_eq!(
                shown,
                format!("{scheme}ana:***@db.example:5432/team?sslmode=require")
            );
            let q = format!("{scheme}h/db?password={pw}&sslmode=require");
            assert!(!redact(&q).contains(pw), "{q} -> {}", redact(&q));
            assert!(has_password(&url) && has_password(&q));
        }
    }
    assert_eq!(redact("postgresql://ana@h:1/db"), "postgresql://ana@h:1/db");
    assert!(!has_password("postgresql://ana@h:1/db"));
    // A mistyped scheme's password is not shown either.
    assert_eq!(
        redact("postgresq://ana:pw@h/db"),
        "postgresq://ana:***@h/db"
    );
    assert_eq!(redact("team.sqlite"), "team.sqlite");
}

#[test]
fn a_key_value_password_is_masked_quoted_or_not() {
    for pw in PASSWORDS {
        let quoted = pw.replace('\\', "\\\\").replace('\'', "\\'");
        for s in [
            format!("host=h password='{quoted}' dbname=db"),
            format!("host=h password = '{quoted}'"),
            format!("host=h PASSWORD='{quoted}' dbname=db"),
        ] {
            let shown = redact(&s);
            assert!(
                shown.contains("***") && !shown.contains(&quoted),
                "{s} -> {shown}"
            );
            assert!(shown.starts_with("host=h "), "{shown}");
        }
        if !pw.contains([' ', '\'', '\\']) {
            let s = format!("host=h password={pw} dbname=db");
            assert_eq!(redact(&s), "host=h password=*** dbname=db");
        }
    }
    // An unterminated quote: the rest is not shown.
    assert_eq!(
        redact("host=h password='hunter2 dbname=db"),
        "host=h password=***"
    );
    assert_eq!(redact("host=h password"), "host=h ***");
    // An unquoted password with a space: libpq reads "two", then fails; neither is shown.
    assert_eq!(
        redact("host=h password=two words dbname=d"),
        "host=h password=*** ***"
    );
    let q = "postgresql://h/db?password=a&b@c&sslmode=require";
    assert_eq!(redact(q), "postgresql://h/db?password=***&sslmode=require");
    assert!(!redact("x password=hunter2").contains("hunter2"));
}

#[test]
fn key_value_strings_read_as_libpq_reads_them() {
    let p =
        pairs(r"host=h port = 5433 dbname='my db' user=ana password='it\'s a\\b' sslmode=require")
            .expect("pairs");
    let want: Vec<(String, String)> = [
        ("host", "h"),
        ("port", "5433"),
        ("dbname", "my db"),
        ("user", "ana"),
        ("password", "it's a\\b"),
        ("sslmode", "require"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    assert_eq!(p, want);
    // Written back for the client, the same pairs read back.
    assert_eq!(pairs(&to_key_value(&p)).expect("again"), p);
    for bad in [
        "host=h password='hunter2",
        "host=h dbname",
        "host=h pasword=hunter2",
    ] {
        let e = pairs(bad).expect_err(bad);
        assert!(!e.contains("hunter2"), "{e}");
    }
}

#[test]
fn url_parts_are_percent_decoded_and_raw_delimiters_refused() {
    let p = pairs("POSTGRESQL://ana:s3cr%40t%3A%2F@[::1]:5433,h2/te%20am?sslmode=verify-full")
        .expect("pairs");
    let get = |k: &str| p.iter().find(|(kk, _)| kk == k).map(|(_, v)| v.as_str());
    assert_eq!(get("user"), Some("ana"));
    assert_eq!(get("password"), Some("s3cr@t:/"));
    assert_eq!(get("host"), Some("::1,h2"));
    assert_eq!(get("port"), Some("5433,"));
    assert_eq!(get("dbname"), Some("te am"));
    assert_eq!(get("sslmode"), Some("verify-full"));
    for pw in ["p@ss", "x/y", "q?r", "h#s", "50%off"] {
        let url = format!("postgresql://ana:{pw}@h/db");
        let e = pairs(&url).expect_err(&url);
        assert!(!e.contains(pw) && e.contains("percent"), "{e}");
    }
}
