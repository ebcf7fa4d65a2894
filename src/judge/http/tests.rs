use super::*;

#[test]
fn retry_after_takes_seconds_and_refuses_what_is_not() {
    assert_eq!(retry_after("1"), Some(Duration::from_secs(1)));
    assert_eq!(retry_after(" 0.5 "), Some(Duration::from_millis(500)));
    assert_eq!(retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    assert_eq!(retry_after("-3"), None);
    assert_eq!(retry_after("NaN"), None);
}

#[test]
fn the_completions_path_is_added_to_a_base_once() {
    assert_eq!(
        completions_url("http://localhost:8000/v1"),
        "http://localhost:8000/v1/chat/completions"
    );
    assert_eq!(
        completions_url("http://h/v1/"),
        "http://h/v1/chat/completions"
    );
    assert_eq!(
        completions_url("https://h/v1/chat/completions"),
        "https://h/v1/chat/completions"
    );
}

#[test]
fn a_refused_connection_fails_after_its_retries_naming_the_last_error() {
    // A port nothing listens on: bind one, then close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("a")
        .port();
    let c = Client::new(
        ClientOptions {
            url: format!("http://127.0.0.1:{port}/v1/chat/completions"),
            key: Some("sk-secret-xyz".into()),
            timeout: Duration::from_secs(5),
            retries: 2,
            backoff: Duration::from_millis(1),
        },
        1,
    );
    let mut waits = Vec::new();
    let Sent::Failed(why) = c.send(b"{}", |d| waits.push(d)) else {
        panic!("not refused")
    };
    assert!(
        why.starts_with("request failed: ") && why.ends_with("(after 3 attempts)"),
        "{why}"
    );
    assert!(!why.contains("sk-secret"), "{why}");
    assert_eq!(
        waits,
        [Duration::from_millis(1), Duration::from_millis(2)],
        "doubling backoff"
    );
}
