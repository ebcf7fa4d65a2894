//! The `spanreview` binary: parse the command line and dispatch.

use std::process::ExitCode;

use spanreview::model::escape;

/// mimalloc: export and the record readers allocate and free many large strings (records'
/// contexts) across threads, where it frees several times faster than the system allocator.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match spanreview::cli::Cli::try_parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    match spanreview::cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            let message = spanreview::cli::error_message(&e);
            // Paths and values in errors come from the user's files: escaped for the terminal.
            eprintln!("spanreview: {}", escape::line(&message));
            ExitCode::from(2)
        }
    }
}

/// Print clap's message (help, version or a usage error) and give its exit code. clap quotes
/// a bad argument as it is: when an argument holds a control or bidirectional character, the
/// message is printed plain with those escaped (else as clap prints it, colours included).
/// A newline in an argument cannot be told from the message's own once rendered, so the
/// message is that of the arguments escaped one by one, when they fail the same way.
fn usage_error(e: &clap::Error) -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let hostile = args
        .iter()
        .any(|a| a.to_string_lossy().chars().any(escape::is_hidden));
    if !hostile {
        e.exit();
    }
    let escaped = args
        .iter()
        .map(|a| escape::line(&a.to_string_lossy()).into_owned().into());
    let text = match spanreview::cli::Cli::try_parse_args(escaped) {
        Err(again) if again.kind() == e.kind() => again.render().to_string(),
        _ => e.render().to_string(),
    };
    let text = escape::lines(&text);
    if e.use_stderr() {
        eprint!("{text}");
    } else {
        print!("{text}");
    }
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
}
