//! The README's, the guides' (`docs/`) and `--help`'s claims, run as a new user runs them: each
//! test takes one claim that a walk through the README found wrong or untested, and checks it on
//! the command or the flow the README shows; every command the guides show is run, their links
//! lead somewhere, the tour does what it says and the picture is the screen.

mod commands;
mod doc_commands;
mod links;
mod screen;
mod screenshot;
mod tour;
