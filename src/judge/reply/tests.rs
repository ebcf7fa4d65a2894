use super::*;

fn envelope(content: &str, finish: &str) -> String {
    json!({"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0,
        "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
    .to_string()
}

#[test]
fn a_completion_gives_its_content_and_tokens() {
    let c = completion(&envelope("{}", "stop")).expect("ok");
    assert_eq!(
        (c.content.as_str(), c.prompt_tokens, c.completion_tokens),
        ("{}", 10, 5)
    );
}

#[test]
fn bad_replies_say_what_they_are() {
    let e =
        completion("<html><head><title>502 Bad Gateway</title></head></html>").expect_err("html");
    assert!(
        e.starts_with("the server answered HTML, not JSON: \"<html><head><title>502"),
        "{e}"
    );
    let e = completion("{\"choices\": [{\"message\": {\"content\": \"{\\\"lab").expect_err("cut");
    assert!(e.starts_with("the server's reply is not JSON"), "{e}");
    let e = completion(&envelope("{\"labeled\": [", "length")).expect_err("length");
    assert!(e.contains("cut off at the token limit"), "{e}");
    let e = completion(r#"{"error": {"message": "Rate limit reached", "type": "requests"}}"#)
        .expect_err("error");
    assert!(e.contains("Rate limit reached"), "{e}");
}

#[test]
fn a_verdict_is_read_from_plain_fenced_or_wrapped_json() {
    let body = r#"{"labeled": [{"span": 1, "label_correct": "false", "code": "", "reason": "ok"}],
        "unlabeled": [{"quote": "晴れ", "label": "contradiction", "code": "H1", "reason": "r"},
                      {"quote": "", "label": "", "code": "", "reason": ""}], "reasoning": "x"}"#;
    for content in [
        body.to_owned(),
        format!("```json\n{body}\n```"),
        format!("Sure! {body} Done."),
    ] {
        let v = verdict(&content, 2).expect("verdict");
        assert_eq!(v.labeled[0].span, 1);
        assert_eq!(v.labeled[0].label_correct, "false");
        assert_eq!(v.unlabeled.len(), 1, "the empty quote is no claim");
        assert_eq!(v.unlabeled[0].quote, "晴れ");
    }
    // Booleans, as halu-toolace's judges answer.
    let v = verdict(
        r#"{"labeled": [{"span": 0, "label_correct": true}], "unlabeled": []}"#,
        1,
    )
    .expect("bool");
    assert_eq!(v.labeled[0].label_correct, "true");
}

#[test]
fn a_reply_that_is_not_the_schema_is_refused() {
    let e = verdict("I cannot help with that.", 1).expect_err("prose");
    assert!(e.starts_with("the message holds no JSON object"), "{e}");
    let e = verdict(r#"{"verdict": "fine"}"#, 1).expect_err("no list");
    assert!(e.contains("no \"labeled\" list"), "{e}");
    let e = verdict(
        r#"{"labeled": [{"span": 3, "label_correct": "true"}], "unlabeled": []}"#,
        2,
    )
    .expect_err("span");
    assert!(
        e.contains("judges span 3; the record has 2 labeled spans"),
        "{e}"
    );
    let e = verdict(
        r#"{"labeled": [{"span": 0, "label_correct": "maybe"}], "unlabeled": []}"#,
        1,
    )
    .expect_err("value");
    assert!(e.contains("a \"labeled\" item"), "{e}");
}

#[test]
fn the_schema_is_strict_and_takes_the_rubric_codes() {
    let f = response_format(&["H1".into()]);
    assert_eq!(f["json_schema"]["strict"], json!(true));
    let s = &f["json_schema"]["schema"];
    assert_eq!(s["additionalProperties"], json!(false));
    assert_eq!(
        s["properties"]["labeled"]["items"]["properties"]["code"]["enum"],
        json!(["H1", ""])
    );
}
