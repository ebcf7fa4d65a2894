//! Making a new database file whole or not at all: it is set up (WAL mode, every migration
//! committed) under a hidden temporary name in its folder, closed, and only then linked to its
//! name, which fails if the name appeared meanwhile (another process made the database first:
//! its file is kept and opened instead). A setup that fails (a full disk) removes the temporary
//! file, its `-wal`, `-shm` and `-journal`, and the folders made for it: no 4 KB file is left
//! that the next run would refuse or take for an empty database.
//!
//! A new database is never made beside a stale `-wal`, `-shm` or `-journal` (left by a database
//! deleted after a killed review, or by one deleted during a review): SQLite would replay the
//! old log into the new file (`database disk image is malformed`). They are moved aside first,
//! renamed `PATH-wal.stale-STAMP`, and the caller says so ([`Store::set_aside`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use rusqlite::Connection;

use super::engine::Conn;
use super::{sibling, Store, StoreError};

/// What a new database's temporary file is called beside `path`.
fn tmp_path(path: &Path) -> PathBuf {
    static SEQ: AtomicUsize = AtomicUsize::new(0);
    let name = path
        .file_name()
        .map_or_else(|| "spanreview.sqlite".into(), |n| n.to_string_lossy());
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    let file = format!(".{name}.{}-{seq}.spanreview-new", std::process::id());
    path.with_file_name(file)
}

/// The files SQLite may have made for the database `path`.
fn with_siblings(path: &Path) -> [PathBuf; 4] {
    [
        path.to_owned(),
        sibling(path, "-wal"),
        sibling(path, "-shm"),
        sibling(path, "-journal"),
    ]
}

/// Remove the temporary database `tmp` and the files beside it; best effort (a file that is
/// already gone is what is wanted).
fn remove(tmp: &Path) {
    for p in with_siblings(tmp) {
        let _ = std::fs::remove_file(p);
    }
}

/// Move aside the files SQLite would read beside the database `path`, which does not exist:
/// each renamed `PATH-wal.stale-STAMP`; returns (from, to) of each moved. A file that is not the
/// one seen while `path` was missing (another process made the database and opened it in
/// between) is put back.
pub(super) fn set_aside_stale(path: &Path) -> Vec<(PathBuf, PathBuf)> {
    use std::os::unix::fs::MetadataExt;
    let ino = |p: &Path| {
        std::fs::symlink_metadata(p)
            .ok()
            .map(|m| (m.dev(), m.ino()))
    };
    let seen: Vec<(PathBuf, (u64, u64))> = with_siblings(path)
        .into_iter()
        .skip(1)
        .filter_map(|p| ino(&p).map(|i| (p, i)))
        .collect();
    if seen.is_empty() || ino(path).is_some() {
        return Vec::new();
    }
    let stamp = super::file_stamp(std::time::SystemTime::now());
    let mut moved = Vec::new();
    for (p, id) in seen {
        let to = sibling(&p, &format!(".stale-{stamp}"));
        if std::fs::rename(&p, &to).is_err() {
            continue;
        }
        if ino(&to) == Some(id) {
            tracing::warn!(from = %p.display(), to = %to.display(), "a stale file beside a new database moved aside");
            moved.push((p, to));
        } else {
            let _ = std::fs::rename(&to, &p);
        }
    }
    moved
}

/// Make the folder of `path` (and its parents) if missing; the folders made, deepest first, so
/// that a failed creation can remove them again.
pub(super) fn make_folder(path: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) else {
        return Ok(Vec::new());
    };
    let missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .map(Path::to_path_buf)
        .collect();
    std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
        path: dir.to_owned(),
        source,
    })?;
    Ok(missing)
}

/// Remove the folders `made` (deepest first) while they are empty.
pub(super) fn remove_folders(made: &[PathBuf]) {
    for d in made {
        if std::fs::remove_dir(d).is_err() {
            break;
        }
    }
}

/// Make the database `path` (which did not exist) whole: set up under a temporary name, then
/// linked into place. When the name appeared meanwhile, the new file is discarded and the one
/// there is left for the caller to open. `before_link` runs just before the link (tests make
/// the name appear there).
///
/// # Errors
/// The setup fails (messages name `path`, never the temporary file): nothing is left behind.
pub(super) fn create(path: &Path, before_link: impl FnOnce()) -> Result<(), StoreError> {
    let tmp = tmp_path(path);
    let made = setup_closed(&tmp, path).map(|()| {
        before_link();
        link(&tmp, path);
    });
    remove(&tmp);
    made
}

/// Set the database up at `tmp` (errors naming `path`), close it (its WAL checkpointed into it
/// and removed) and sync it to disk.
fn setup_closed(tmp: &Path, path: &Path) -> Result<(), StoreError> {
    let db_err = |what: &str, source: rusqlite::Error| StoreError::Db {
        path: path.to_owned(),
        what: what.into(),
        source: source.into(),
    };
    // SQLite's message quotes the file it could not open: the temporary name means nothing to
    // the user, so it is told as the database's.
    let conn = Connection::open(tmp).map_err(|e| StoreError::Db {
        path: path.to_owned(),
        what: "creating".into(),
        source: super::DbError::Setup(
            e.to_string()
                .replace(&*tmp.to_string_lossy(), &path.to_string_lossy()),
        ),
    })?;
    let store = Store::setup_with(conn, Some(path.to_owned()), false)?;
    if let Conn::Sqlite(c) = store.conn {
        c.close()
            .map_err(|(_, e)| db_err("closing the new database", e))?;
    }
    // Closing checkpoints the WAL into the file and deletes it; one left holds part of the
    // schema, so the file alone is not the database.
    if sibling(tmp, "-wal").exists() {
        return Err(StoreError::Db {
            path: path.to_owned(),
            what: "closing the new database".into(),
            source: super::DbError::Setup("its write-ahead log could not be folded into it".into()),
        });
    }
    std::fs::File::open(tmp)
        .and_then(|f| f.sync_all())
        .map_err(|e| StoreError::Db {
            path: path.to_owned(),
            what: "syncing the new database".into(),
            source: super::DbError::Setup(e.to_string()),
        })
}

/// Give the finished database `tmp` the name `path`, unless `path` exists by now (a link,
/// not a rename, since only a link refuses an existing name). When the link fails, the caller
/// opens what is there: the database another process made meanwhile (`AlreadyExists`: theirs
/// is kept), or, on a file system without hard links (FAT, some network ones), nothing yet,
/// and SQLite creates it in place as it did before.
fn link(tmp: &Path, path: &Path) {
    if std::fs::hard_link(tmp, path).is_ok() {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            // The new name survives a power cut once its folder is synced.
            let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("ls")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_new_database_is_whole_under_its_name_and_nothing_else_is_left() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("new’ 東京/team😀.sqlite");
        let store = Store::open(&path).expect("open");
        assert_eq!(
            store.schema_version().expect("v"),
            super::super::SCHEMA_VERSION
        );
        drop(store);
        assert_eq!(names(&dir.path().join("new’ 東京")), vec!["team😀.sqlite"]);
        let again = Store::open_existing(&path).expect("reopen");
        assert!(again.decisions(None).expect("log").is_empty());
    }

    /// Another process made the database between our setup and our link: its file is kept as
    /// it is (not replaced by ours) and our temporary file is removed.
    #[test]
    fn a_name_that_appeared_meanwhile_is_kept_and_ours_discarded() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("team°.sqlite");
        let theirs = b"their database \xE2\x80\x99";
        create(&path, || std::fs::write(&path, theirs).expect("write")).expect("create");
        assert_eq!(std::fs::read(&path).expect("read"), theirs);
        assert_eq!(names(dir.path()), vec!["team°.sqlite"]);
    }

    /// A setup that fails names the database, never the temporary file: here the temporary
    /// name is taken by a folder, so SQLite cannot create it.
    #[test]
    fn a_failed_setup_names_the_database() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("team’.sqlite");
        let tmp = tmp_path(&path);
        std::fs::create_dir(&tmp).expect("mkdir");
        let e = setup_closed(&tmp, &path).expect_err("fails");
        assert!(e.to_string().contains("team’.sqlite"), "{e}");
        assert!(!e.to_string().contains("spanreview-new"), "{e}");
        assert!(!path.exists());
    }
}
