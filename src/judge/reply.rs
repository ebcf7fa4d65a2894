//! The reply: the JSON schema asked for in `response_format`, the chat-completion envelope a
//! server answers with, and the verdict in its message (schema-checked here, since a server
//! without `json_schema` support, or a model ignoring it, may answer anything).

use serde_json::{json, Map, Value};

/// What the judge says about one labeled span (`label_correct` in the decision line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanVerdict {
    /// The span's number in the prompt (its index among the record's gold spans).
    pub span: usize,
    /// `"true"`, `"false"` or `"unknown"`.
    pub label_correct: &'static str,
    /// The rubric code (empty without a rubric).
    pub code: String,
    /// One sentence.
    pub reason: String,
}

/// A hallucination the judge found that no labeled span covers: a quote of the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The quoted text, as the model wrote it.
    pub quote: String,
    /// Its label.
    pub label: String,
    /// The rubric code (empty without a rubric).
    pub code: String,
    /// One sentence.
    pub reason: String,
}

/// The model's whole verdict on one record.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Verdict {
    /// Per labeled span, in the reply's order.
    pub labeled: Vec<SpanVerdict>,
    /// The unlabeled hallucinations.
    pub unlabeled: Vec<Claim>,
    /// About the whole answer.
    pub reasoning: String,
}

/// The useful part of a chat-completion response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// `choices[0].message.content`.
    pub content: String,
    /// `usage.prompt_tokens` (0 when the server gives none).
    pub prompt_tokens: u64,
    /// `usage.completion_tokens`.
    pub completion_tokens: u64,
}

/// The `response_format` of the request: a strict JSON schema of [`Verdict`]; with rubric
/// `codes`, `code` is one of them (or empty).
#[must_use]
pub fn response_format(codes: &[String]) -> Value {
    let code = if codes.is_empty() {
        json!({"type": "string"})
    } else {
        let mut all: Vec<Value> = codes.iter().map(|c| json!(c)).collect();
        all.push(json!(""));
        json!({"type": "string", "enum": all})
    };
    let object = |props: Value, required: &[&str]| {
        json!({"type": "object", "properties": props, "required": required,
               "additionalProperties": false})
    };
    let labeled = object(
        json!({"span": {"type": "integer"},
               "label_correct": {"type": "string", "enum": ["true", "false", "unknown"]},
               "code": code, "reason": {"type": "string"}}),
        &["span", "label_correct", "code", "reason"],
    );
    let unlabeled = object(
        json!({"quote": {"type": "string"}, "label": {"type": "string"}, "code": code,
               "reason": {"type": "string"}}),
        &["quote", "label", "code", "reason"],
    );
    let schema = object(
        json!({"labeled": {"type": "array", "items": labeled},
               "unlabeled": {"type": "array", "items": unlabeled},
               "reasoning": {"type": "string"}}),
        &["labeled", "unlabeled", "reasoning"],
    );
    json!({"type": "json_schema",
           "json_schema": {"name": "span_verdicts", "strict": true, "schema": schema}})
}

/// The first `n` characters of `s`, escaped for one line, for an error message.
#[must_use]
pub fn snippet(s: &str, n: usize) -> String {
    let cut: String = s.chars().take(n).collect();
    let more = if s.chars().nth(n).is_some() {
        "..."
    } else {
        ""
    };
    format!("{}{more}", Value::String(cut))
}

/// An error reply's body for a message: its `error.message` (OpenAI) or `message` (vLLM), an
/// HTML page's title, else its start.
#[must_use]
pub fn describe(body: &str) -> String {
    let t = body.trim();
    if let Ok(v) = serde_json::from_str::<Value>(t) {
        let msg = v
            .get("error")
            .and_then(|e| e.get("message").or(Some(e)))
            .or_else(|| v.get("message"))
            .and_then(Value::as_str);
        if let Some(m) = msg {
            return snippet(m, 200);
        }
    }
    if t.starts_with('<') {
        let lower = t.to_lowercase();
        let title = lower
            .find("<title>")
            .and_then(|a| lower[a..].find("</title>").map(|b| (a + 7, a + b)))
            .and_then(|(a, b)| t.get(a..b));
        return format!("an HTML page ({})", snippet(title.unwrap_or(t).trim(), 80));
    }
    snippet(t, 120)
}

/// Read a chat-completion response body.
///
/// # Errors
/// Not JSON (HTML from a proxy, a cut body), an `error` object, no message content, or a
/// reply cut off by the token limit (`finish_reason` `length`).
pub fn completion(body: &str) -> Result<Completion, String> {
    let v: Value = serde_json::from_str(body).map_err(|e| {
        let t = body.trim_start();
        if t.starts_with('<') {
            format!("the server answered HTML, not JSON: {}", snippet(t, 80))
        } else {
            format!("the server's reply is not JSON ({e}): {}", snippet(t, 80))
        }
    })?;
    if let Some(err) = v.get("error") {
        let msg = err.get("message").and_then(Value::as_str).unwrap_or("");
        return Err(format!(
            "the server answered an error: {}",
            snippet(msg, 200)
        ));
    }
    let choice = v
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| format!("the reply has no choices: {}", snippet(body, 80)))?;
    let usage = |k: &str| {
        v.get("usage")
            .and_then(|u| u.get(k))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let completion_tokens = usage("completion_tokens");
    if choice.get("finish_reason").and_then(Value::as_str) == Some("length") {
        return Err(format!(
            "the reply was cut off at the token limit (finish_reason \"length\", \
             {completion_tokens} completion tokens): raise --max-tokens"
        ));
    }
    let message = choice.get("message");
    let Some(content) = message
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
    else {
        let refusal = message
            .and_then(|m| m.get("refusal"))
            .and_then(Value::as_str);
        return Err(match refusal {
            Some(r) => format!("the model refused: {}", snippet(r, 200)),
            None => "the reply has no choices[0].message.content".to_owned(),
        });
    };
    Ok(Completion {
        content: content.to_owned(),
        prompt_tokens: usage("prompt_tokens"),
        completion_tokens,
    })
}

/// The JSON object in a message: the whole message, else inside a Markdown code fence, else
/// from its first `{` to its last `}` (a model that talks around it).
fn object_in(content: &str) -> Option<Map<String, Value>> {
    let t = content.trim();
    let fenced = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .and_then(|r| r.trim_end().strip_suffix("```"));
    let braces = t
        .find('{')
        .zip(t.rfind('}'))
        .and_then(|(a, b)| t.get(a..=b));
    [Some(t), fenced, braces]
        .into_iter()
        .flatten()
        .find_map(|c| match serde_json::from_str(c) {
            Ok(Value::Object(m)) => Some(m),
            _ => None,
        })
}

/// `label_correct` as the decision line writes it; booleans and yes/no are taken too.
fn label_correct(v: Option<&Value>) -> Option<&'static str> {
    match v? {
        Value::Bool(true) => Some("true"),
        Value::Bool(false) => Some("false"),
        Value::String(s) => match s.trim().to_lowercase().as_str() {
            "true" | "yes" => Some("true"),
            "false" | "no" => Some("false"),
            "unknown" => Some("unknown"),
            _ => None,
        },
        _ => None,
    }
}

fn text(o: &Map<String, Value>, k: &str) -> String {
    o.get(k)
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .to_owned()
}

/// Read the verdict in a message `content` about a record with `spans` labeled spans.
///
/// # Errors
/// No JSON object in it, no `labeled` or `unlabeled` list, an item that is not the schema, or
/// a span number the record does not have: each says what and quotes the value.
pub fn verdict(content: &str, spans: usize) -> Result<Verdict, String> {
    let obj = object_in(content)
        .ok_or_else(|| format!("the message holds no JSON object: {}", snippet(content, 80)))?;
    let list = |k: &str| match obj.get(k) {
        Some(Value::Array(a)) => Ok(a.as_slice()),
        None | Some(Value::Null) => Err(format!("the reply is not the schema: no {k:?} list")),
        Some(v) => Err(format!(
            "the reply is not the schema: {k:?} is not a list: {}",
            snippet(&v.to_string(), 60)
        )),
    };
    let mut out = Verdict {
        reasoning: text(&obj, "reasoning"),
        ..Verdict::default()
    };
    for item in list("labeled")? {
        let bad = || {
            format!(
                "the reply is not the schema: a \"labeled\" item {}",
                snippet(&item.to_string(), 80)
            )
        };
        let o = item.as_object().ok_or_else(bad)?;
        let span = o
            .get("span")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(bad)?;
        if span >= spans {
            return Err(format!(
                "the reply judges span {span}; the record has {spans} labeled span{}",
                if spans == 1 { "" } else { "s" }
            ));
        }
        let label_correct = label_correct(o.get("label_correct")).ok_or_else(bad)?;
        out.labeled.push(SpanVerdict {
            span,
            label_correct,
            code: text(o, "code"),
            reason: text(o, "reason"),
        });
    }
    for item in list("unlabeled")? {
        let o = item.as_object().ok_or_else(|| {
            format!(
                "the reply is not the schema: an \"unlabeled\" item {}",
                snippet(&item.to_string(), 80)
            )
        })?;
        let quote = o.get("quote").and_then(Value::as_str).unwrap_or("");
        if quote.trim().is_empty() {
            continue; // "none found" written as an empty quote
        }
        out.unlabeled.push(Claim {
            quote: quote.to_owned(),
            label: text(o, "label"),
            code: text(o, "code"),
            reason: text(o, "reason"),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
