use super::*;

const W: Wanted<'static> = Wanted {
    host: "db.example",
    port: "5432",
    dbname: "team",
    user: "ana",
};

#[test]
fn the_first_matching_line_gives_the_password() {
    let text = "\
# comment
other:5432:team:ana:nope
db.example:5433:team:ana:wrong-port
db.example:5432:*:ana:p\\:w\\\\x:ignored
*:*:*:*:fallback
";
    assert_eq!(password_in(text, W).as_deref(), Some("p:w\\x"));
    let bo = Wanted { user: "bo", ..W };
    assert_eq!(password_in(text, bo).as_deref(), Some("fallback"));
    assert_eq!(
        password_in("db.example:5432:team:ana\n", W),
        None,
        "4 fields"
    );
    assert_eq!(
        password_in("db.example:5432:team:ana:東京°’👋\r\n", W).as_deref(),
        Some("東京°’👋")
    );
}

#[test]
fn a_file_others_may_read_is_refused_as_libpq_refuses_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tmp");
    let f = dir.path().join("pgpass");
    std::fs::write(&f, "*:*:*:*:secret\n").expect("write");
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    assert_eq!(refused(&f), None);
    let path = f.to_str().expect("utf-8");
    assert_eq!(password_for(Some(path), W).as_deref(), Some("secret"));
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let why = refused(&f).expect("refused");
    assert!(why.contains("group or world access"), "{why}");
    assert_eq!(password_for(Some(path), W), None);
    assert!(refused(dir.path()).is_some(), "a folder is no plain file");
}

#[test]
fn a_service_section_is_read_and_a_missing_one_told() {
    let text = "\
# services
[other]
host=elsewhere
[team]
host = db.example
port=5433
dbname=team
[last]
host=x
";
    let file = Path::new("pg_service.conf");
    let got = service_in(text, "team", file).expect("ok").expect("found");
    assert_eq!(
        got,
        vec![
            ("host".to_owned(), "db.example".to_owned()),
            ("port".to_owned(), "5433".to_owned()),
            ("dbname".to_owned(), "team".to_owned()),
        ]
    );
    assert_eq!(service_in(text, "none", file).expect("ok"), None);
    let e = service_in("[t]\nservice=u\n", "t", file).expect_err("nested");
    assert!(
        e.contains("pg_service.conf:2") && e.contains("nested"),
        "{e}"
    );
    let e = service_in("[t]\nhost\n", "t", file).expect_err("no =");
    assert!(e.contains("pg_service.conf:2"), "{e}");
}
