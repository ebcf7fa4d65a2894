//! A record read only as far as a pass over every record needs (`triage`): with the format's
//! borrowing reader where it has one ([`crate::formats::ragtruth::lite`]), the answer and gold
//! spans first, the evidence and the request when asked for; else read whole.

use crate::formats::dataset::DataFile;
use crate::formats::ragtruth::lite::{self, Lazy};
use crate::formats::{Format, FormatError};
use crate::model::Record;

/// Record `i` of a file as far as it has been read: no `raw` value, and until asked for, no
/// evidence or request when the format reads them lazily.
#[derive(Debug)]
pub struct Partial<'a> {
    file: &'a DataFile,
    i: usize,
    bytes: &'a [u8],
    state: State<'a>,
}

#[derive(Debug)]
enum State<'a> {
    Lazy(Lazy<'a>),
    Whole(Record),
}

impl Partial<'_> {
    /// The record as read so far.
    #[must_use]
    pub fn record(&self) -> &Record {
        match &self.state {
            State::Lazy(l) => &l.record,
            State::Whole(r) => r,
        }
    }

    /// The record with its evidence read.
    ///
    /// # Errors
    /// As [`DataFile::record`], when the evidence needs the full reader and it fails.
    pub fn with_context(&mut self) -> Result<&Record, FormatError> {
        self.read(|l| l.context())
    }

    /// The record with every field read (what its content hash covers).
    ///
    /// # Errors
    /// As [`Partial::with_context`].
    pub fn whole(&mut self) -> Result<&Record, FormatError> {
        self.read(|l| l.query() && l.context())
    }

    /// The record once `more` has read more of a lazy one into it; read whole the full way
    /// when `more` says the line needs it.
    fn read(&mut self, more: impl FnOnce(&mut Lazy<'_>) -> bool) -> Result<&Record, FormatError> {
        let read = match &mut self.state {
            State::Lazy(l) => more(l),
            State::Whole(_) => true,
        };
        if !read {
            self.state = State::Whole(self.file.record_in(self.i, self.bytes)?);
        }
        Ok(self.record())
    }
}

impl DataFile {
    /// Call `f` with record `i` read as far as the format allows ([`Partial`]): what the full
    /// reader would give, field for field, but no `raw` value.
    ///
    /// # Errors
    /// I/O errors reading the line, a record the format cannot read, or `f`'s error.
    pub fn with_partial<T>(
        &self,
        i: usize,
        f: impl FnOnce(&mut Partial<'_>) -> Result<T, FormatError>,
    ) -> Result<T, FormatError> {
        let bytes = self.bytes(i)?;
        let lazy = match self.format {
            Format::Ragtruth => lite::parse_lazy(&bytes),
            _ => None,
        };
        let state = match lazy {
            Some(l) => State::Lazy(l),
            None => State::Whole(self.record_in(i, &bytes)?),
        };
        f(&mut Partial {
            file: self,
            i,
            bytes: &bytes,
            state,
        })
    }
}
