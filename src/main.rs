//! The `spanreview` binary: parse the command line and dispatch.

use std::io::Write;
use std::process::ExitCode;

use spanreview::model::escape;

/// mimalloc: export and the record readers allocate and free many large strings (records'
/// contexts) across threads, where it frees several times faster than the system allocator.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // A write past `ulimit -f` fails with EFBIG (handled as a full disk) instead of killing.
    spanreview::tui::terminal::catch_file_size_signal();
    let cli = match spanreview::cli::Cli::try_parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    match spanreview::cli::run(cli) {
        Ok(code) => code,
        // The reader of standard output stopped (`| head`): quietly, as Unix tools end.
        Err(e) if spanreview::cli::is_closed_pipe(&e) => ExitCode::from(2),
        Err(e) => {
            let message = spanreview::cli::error_message(&e);
            // Paths and values in errors come from the user's files: escaped for the terminal.
            spanreview::cli::line_to_stderr(&format!("spanreview: {}", escape::line(&message)));
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
    let printed = if hostile {
        let escaped = args
            .iter()
            .map(|a| escape::line(&a.to_string_lossy()).into_owned().into());
        let text = match spanreview::cli::Cli::try_parse_args(escaped) {
            Err(again) if again.kind() == e.kind() => again.render().to_string(),
            _ => e.render().to_string(),
        };
        let text = escape::lines(&text);
        if e.use_stderr() {
            std::io::stderr().lock().write_all(text.as_bytes())
        } else {
            std::io::stdout().lock().write_all(text.as_bytes())
        }
    } else {
        e.print()
    }
    .and_then(|()| std::io::stdout().lock().flush());
    let code = ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
    match printed {
        // Help or version not written (a full disk): not a success. A reader that stopped
        // early (`--help | head`) is no failure.
        Err(err) if !e.use_stderr() && err.kind() != std::io::ErrorKind::BrokenPipe => {
            let what = match e.kind() {
                clap::error::ErrorKind::DisplayVersion => "the version",
                _ => "the help",
            };
            spanreview::cli::line_to_stderr(&format!(
                "spanreview: writing {what} to standard output: {err}"
            ));
            ExitCode::from(2)
        }
        _ => code,
    }
}
