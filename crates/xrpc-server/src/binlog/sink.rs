//! Where entries go: the [`Sink`] trait and the file sink.
//!
//! The background writer (`writer.rs`) is the only caller of a sink, so a sink may block (on a
//! disk, a socket) without ever holding up a request: entries then wait in the bounded queue, and
//! once it is full new ones are dropped and counted.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use prost::Message;
use xrpc_proto::binlog::BinlogEntry;

/// A destination for binary log entries. A program embedding the node installs its own with
/// [`Binlog::install_sink`](super::Binlog::install_sink).
pub trait Sink: Send {
    /// Writes one entry. An error is logged (rate-limited) and the entry counted as dropped.
    fn write(&mut self, entry: &BinlogEntry) -> io::Result<()>;

    /// Makes what was written durable enough for a reader: called whenever the queue runs empty.
    fn flush(&mut self) -> io::Result<()>;
}

/// The default largest file of a [`FileSink`]: 64 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 64 << 20;

/// The default number of files a [`FileSink`] keeps.
pub const DEFAULT_MAX_FILES: usize = 8;

/// Writes length-delimited entries to `binlog-NNNNNNNN.xbl` files in a directory, starting a new
/// file before one would grow past its size limit and deleting the oldest beyond the file limit.
///
/// File numbers go on from the highest already in the directory, so the files of successive runs
/// sort in the order they were written, and `xrpc binlog DIR/*.xbl` reads them in order. A single
/// entry larger than the limit gets a file of its own.
#[derive(Debug)]
pub struct FileSink {
    dir: PathBuf,
    max_file_bytes: u64,
    max_files: usize,
    next_number: u64,
    current: Option<(BufWriter<File>, u64)>,
    scratch: Vec<u8>,
}

impl FileSink {
    /// A sink writing into `dir` (created if missing).
    pub fn new(dir: &Path, max_file_bytes: u64, max_files: usize) -> io::Result<Self> {
        fs::create_dir_all(dir)?;
        let next_number = files_in(dir)?.last().map_or(1, |(n, _)| n + 1);
        Ok(Self {
            dir: dir.to_owned(),
            max_file_bytes: max_file_bytes.max(1),
            max_files: max_files.max(1),
            next_number,
            current: None,
            scratch: Vec::new(),
        })
    }

    /// The directory written to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn rotate(&mut self) -> io::Result<()> {
        if let Some((mut file, _)) = self.current.take() {
            file.flush()?;
        }
        let path = self
            .dir
            .join(xrpc_proto::binlog::file_name(self.next_number));
        self.next_number += 1;
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(&path)?;
        self.current = Some((BufWriter::with_capacity(64 << 10, file), 0));
        let files = files_in(&self.dir)?;
        let excess = files.len().saturating_sub(self.max_files);
        for (_, path) in &files[..excess] {
            fs::remove_file(path)?;
        }
        Ok(())
    }
}

/// The sink's files in `dir`, oldest first.
pub fn files_in(dir: &Path) -> io::Result<Vec<(u64, PathBuf)>> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(number) = name.to_str().and_then(xrpc_proto::binlog::file_number) else {
            continue;
        };
        files.push((number, entry.path()));
    }
    files.sort();
    Ok(files)
}

impl Sink for FileSink {
    fn write(&mut self, entry: &BinlogEntry) -> io::Result<()> {
        self.scratch.clear();
        entry
            .encode_length_delimited(&mut self.scratch)
            .map_err(io::Error::other)?;
        let len = self.scratch.len() as u64;
        let full = match &self.current {
            None => true,
            Some((_, written)) => *written > 0 && written + len > self.max_file_bytes,
        };
        if full {
            self.rotate()?;
        }
        let (file, written) = self.current.as_mut().expect("rotate opened a file");
        file.write_all(&self.scratch)?;
        *written += len;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.current {
            Some((file, _)) => file.flush(),
            None => Ok(()),
        }
    }
}

/// Reads every entry of a binary log file; the error says at which byte a damaged entry starts.
pub fn read_file(path: &Path) -> io::Result<Vec<BinlogEntry>> {
    let bytes = fs::read(path)?;
    let mut rest = &bytes[..];
    let mut entries = Vec::new();
    while !rest.is_empty() {
        let at = bytes.len() - rest.len();
        let entry = BinlogEntry::decode_length_delimited(&mut rest).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: damaged entry at byte {at}: {e}", path.display()),
            )
        })?;
        entries.push(entry);
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(sequence: u64, payload_len: usize) -> BinlogEntry {
        BinlogEntry {
            sequence,
            payload: vec![b'x'; payload_len],
            payload_length: payload_len as u32,
            ..Default::default()
        }
    }

    #[test]
    fn rotates_by_size_and_keeps_a_bounded_number_of_files() {
        let dir = tempfile::tempdir().unwrap();
        let one = entry(1, 100).encoded_len() as u64 + 1;
        let mut sink = FileSink::new(dir.path(), 3 * one, 2).unwrap();
        for sequence in 1..=10 {
            sink.write(&entry(sequence, 100)).unwrap();
        }
        sink.flush().unwrap();
        let files = files_in(dir.path()).unwrap();
        // 10 entries at 3 per file make files 1..=4; only the last 2 are kept.
        assert_eq!(
            files.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
            vec![3, 4]
        );
        let kept: Vec<u64> = files
            .iter()
            .flat_map(|(_, p)| read_file(p).unwrap())
            .map(|e| e.sequence)
            .collect();
        assert_eq!(kept, vec![7, 8, 9, 10]);
        for (_, path) in &files[..1] {
            assert!(fs::metadata(path).unwrap().len() <= 3 * one);
        }
    }

    #[test]
    fn a_new_sink_continues_the_numbering() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = FileSink::new(dir.path(), 1 << 20, 8).unwrap();
        first.write(&entry(1, 1)).unwrap();
        first.flush().unwrap();
        drop(first);
        let mut second = FileSink::new(dir.path(), 1 << 20, 8).unwrap();
        second.write(&entry(2, 1)).unwrap();
        second.flush().unwrap();
        let files = files_in(dir.path()).unwrap();
        assert_eq!(
            files.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
            vec![1, 2]
        );
        assert_eq!(read_file(&files[1].1).unwrap()[0].sequence, 2);
    }

    #[test]
    fn damaged_files_are_reported_with_the_offset() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.xbl");
        let mut bytes = Vec::new();
        entry(1, 10).encode_length_delimited(&mut bytes).unwrap();
        let good = bytes.len();
        bytes.extend_from_slice(&[50, 1, 2]);
        fs::write(&path, bytes).unwrap();
        let err = read_file(&path).unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("damaged entry at byte {good}")),
            "{err}"
        );
    }
}
