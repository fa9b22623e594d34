//! [`Pipeline`]: statements collected to be sent together on one session, in one write. The
//! builder is the same for both transports; each transport's session type gives it its `send`
//! ([`crate::blocking::Session::pipeline`], `crate::aio::Session::pipeline`).

use crate::driver::PipelineItem;
use crate::types::Param;

/// Statements to send together on the session `S`; see `Session::pipeline` of either transport.
#[derive(Debug)]
pub struct Pipeline<'s, S> {
    pub(crate) session: &'s mut S,
    pub(crate) items: Vec<PipelineItem>,
}

impl<'s, S> Pipeline<'s, S> {
    /// An empty pipeline on `session`.
    pub(crate) fn new(session: &'s mut S) -> Self {
        Self {
            session,
            items: Vec::new(),
        }
    }

    /// Adds a statement whose result is read back.
    pub fn push(mut self, sql: impl Into<String>) -> Self {
        self.items.push((sql.into(), Vec::new(), false));
        self
    }

    /// Adds a statement with arguments whose result is read back.
    pub fn push_with_args(mut self, sql: impl Into<String>, args: Vec<Param>) -> Self {
        self.items.push((sql.into(), args, false));
        self
    }

    /// Adds a statement whose result is not read back (`SET …`, `BEGIN`). If it fails, the next
    /// statement fails with its error instead of running.
    pub fn fire_and_forget(mut self, sql: impl Into<String>) -> Self {
        self.items.push((sql.into(), Vec::new(), true));
        self
    }

    /// Statements added so far.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether no statement was added.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}
