//! The README's and `--help`'s claims, run as a new user runs them: each test takes one claim
//! that a walk through the README found wrong or untested, and checks it on the command or the
//! flow the README shows.

mod commands;
mod doc_commands;
mod screen;
mod screenshot;
