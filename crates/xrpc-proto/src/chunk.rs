//! The columnar chunk codec: result rows as CHUNK messages instead of ROW messages.
//!
//! A chunk holds up to [`MAX_CHUNK_ROWS`] rows, stored column by column. Per column:
//!
//! - `null_bitmap` is present only when the column has a NULL in this chunk, and then is exactly
//!   `ceil(rows / 8)` bytes, most significant bit first (row `r` is `0x80 >> (r % 8)` of byte `r / 8`);
//! - the non-NULL values are concatenated in their chunk encoding ([`crate::value::encode_chunk_value`])
//!   in `fixed_size_column.value` for numbers and times, or `variable_size_column.value` for strings,
//!   decimals and sets, as the PolarDB-X engine chooses them. A NULL writes nothing.
//!
//! One CHUNK message carries at most [`MAX_COLUMNS_PER_MESSAGE`] columns; a wider chunk goes out as
//! consecutive messages with the same `row_count`, covering columns 0–9, 10–19, and so on.
//! [`ChunkAssembler`] puts them back together.
//!
//! # Invariants
//!
//! - [`ChunkEncoder`] reports itself full once [`MAX_CHUNK_ROWS`] rows are in, or once any column's
//!   data reaches the block size (4 KiB by default, as the engine does), so one chunk message stays small
//!   enough to stream under flow control.
//! - The decoder never panics: every length, bitmap and value is checked, and any inconsistency is a
//!   [`ChunkError`].
//! - For every row set the encoder accepts, assembling its messages gives back the same rows (up to the
//!   two documented chunk-form ambiguities of [`crate::value`]: midnight DATETIME vs DATE, and a SET
//!   holding only the empty string).

use bytes::Bytes;

use crate::messages::pb::resultset::{Chunk, Column, FixedSizeColumn, VariableSizeColumn};
use crate::value::{ColumnType, Value, ValueError, decode_chunk_value, encode_chunk_value};

/// Most rows in one chunk.
pub const MAX_CHUNK_ROWS: usize = 4096;
/// Most columns in one CHUNK message.
pub const MAX_COLUMNS_PER_MESSAGE: usize = 10;
/// Default size at which a column's data makes the chunk full.
pub const DEFAULT_BLOCK_SIZE: usize = 4096;

/// A chunk that cannot be encoded or decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChunkError {
    /// A row with the wrong number of values.
    #[error("row has {got} values but the result has {expected} columns")]
    RowArity {
        /// Columns in the result.
        expected: usize,
        /// Values in the row.
        got: usize,
    },
    /// A value whose type is not the column's.
    #[error("column {column} is {expected} but the value is {got}")]
    TypeMismatch {
        /// Column index.
        column: usize,
        /// The column's type.
        expected: ColumnType,
        /// The value's type.
        got: ColumnType,
    },
    /// A row pushed into a chunk that already holds [`MAX_CHUNK_ROWS`] rows.
    #[error("chunk already holds {MAX_CHUNK_ROWS} rows")]
    Full,
    /// `row_count` of 0 or over [`MAX_CHUNK_ROWS`].
    #[error("chunk row_count {0} is outside 1..=4096")]
    RowCount(u32),
    /// A continuation message whose `row_count` differs from the first part's.
    #[error("chunk part has row_count {got}, but the chunk started with {expected}")]
    PartRowCount {
        /// The first part's row count.
        expected: u32,
        /// This part's row count.
        got: u32,
    },
    /// A message with no columns, or more than [`MAX_COLUMNS_PER_MESSAGE`].
    #[error("chunk message has {0} columns; it must have 1 to 10")]
    PartColumns(usize),
    /// More columns arrived than the result has.
    #[error("chunk carries {got} columns but the result has {expected}")]
    TooManyColumns {
        /// Columns in the result.
        expected: usize,
        /// Columns received so far.
        got: usize,
    },
    /// A null bitmap of the wrong size.
    #[error("column {column}: null bitmap is {got} bytes, expected {expected}")]
    BitmapLength {
        /// Column index.
        column: usize,
        /// `ceil(rows / 8)`.
        expected: usize,
        /// Bytes received.
        got: usize,
    },
    /// A column with both or neither of the data fields, while it has non-NULL values.
    #[error(
        "column {column}: exactly one of fixed_size_column and variable_size_column must be set"
    )]
    ColumnData {
        /// Column index.
        column: usize,
    },
    /// A value that does not decode.
    #[error("column {column}, row {row}: {source}")]
    Value {
        /// Column index.
        column: usize,
        /// Row index within the chunk.
        row: usize,
        /// What was wrong with it.
        source: ValueError,
    },
    /// Bytes left over after the last value of a column.
    #[error("column {column}: {extra} bytes after the last value")]
    TrailingBytes {
        /// Column index.
        column: usize,
        /// Bytes left over.
        extra: usize,
    },
}

/// Whether the engine stores a column's values in `variable_size_column`.
fn is_variable_size(ty: ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Bytes | ColumnType::Enum | ColumnType::Decimal | ColumnType::Set
    )
}

#[derive(Debug)]
struct ColumnBuilder {
    ty: ColumnType,
    data: Vec<u8>,
    null_bitmap: Vec<u8>,
    has_null: bool,
}

/// Builds chunks row by row and emits them as CHUNK messages.
#[derive(Debug)]
pub struct ChunkEncoder {
    columns: Vec<ColumnBuilder>,
    rows: usize,
    block_size: usize,
}

impl ChunkEncoder {
    /// An encoder for a result with these column types, with the engine's 4 KiB block size.
    pub fn new(types: &[ColumnType]) -> Self {
        Self::with_block_size(types, DEFAULT_BLOCK_SIZE)
    }

    /// An encoder whose chunk is full once any column holds `block_size` bytes.
    pub fn with_block_size(types: &[ColumnType], block_size: usize) -> Self {
        let columns = types
            .iter()
            .map(|&ty| ColumnBuilder {
                ty,
                data: Vec::with_capacity(block_size.min(DEFAULT_BLOCK_SIZE)),
                null_bitmap: Vec::new(),
                has_null: false,
            })
            .collect();
        Self {
            columns,
            rows: 0,
            block_size,
        }
    }

    /// Rows in the chunk being built.
    pub fn row_count(&self) -> usize {
        self.rows
    }

    /// Whether the chunk should be sent before another row is added.
    pub fn is_full(&self) -> bool {
        self.rows >= MAX_CHUNK_ROWS || self.columns.iter().any(|c| c.data.len() >= self.block_size)
    }

    /// Appends one row. Returns whether the chunk is now full; a full chunk still accepts rows until it
    /// holds [`MAX_CHUNK_ROWS`], but callers should send it first.
    pub fn push_row(&mut self, row: &[Value]) -> Result<bool, ChunkError> {
        if row.len() != self.columns.len() {
            return Err(ChunkError::RowArity {
                expected: self.columns.len(),
                got: row.len(),
            });
        }
        if self.rows >= MAX_CHUNK_ROWS {
            return Err(ChunkError::Full);
        }
        // Check the whole row before writing any of it, so a bad row leaves the chunk untouched.
        for (index, (column, value)) in self.columns.iter().zip(row).enumerate() {
            if let Some(got) = value.column_type()
                && got != column.ty
            {
                return Err(ChunkError::TypeMismatch {
                    column: index,
                    expected: column.ty,
                    got,
                });
            }
        }
        let byte = self.rows / 8;
        let bit = 0x80u8 >> (self.rows % 8);
        for (column, value) in self.columns.iter_mut().zip(row) {
            if column.null_bitmap.len() <= byte {
                column.null_bitmap.push(0);
            }
            if value.is_null() {
                column.null_bitmap[byte] |= bit;
                column.has_null = true;
            } else {
                encode_chunk_value(value, &mut column.data);
            }
        }
        self.rows += 1;
        Ok(self.is_full())
    }

    /// Emits the chunk as CHUNK messages of at most [`MAX_COLUMNS_PER_MESSAGE`] columns each, and starts
    /// a new, empty chunk. Returns nothing when no row was pushed.
    pub fn take_messages(&mut self) -> Vec<Chunk> {
        if self.rows == 0 || self.columns.is_empty() {
            self.rows = 0;
            return Vec::new();
        }
        let row_count = u32::try_from(self.rows).expect("at most 4096 rows");
        let bitmap_len = self.rows.div_ceil(8);
        let mut messages = Vec::with_capacity(self.columns.len().div_ceil(MAX_COLUMNS_PER_MESSAGE));
        for part in self.columns.chunks_mut(MAX_COLUMNS_PER_MESSAGE) {
            let columns = part
                .iter_mut()
                .map(|column| {
                    let value = Bytes::from(std::mem::take(&mut column.data));
                    let null_bitmap = column.has_null.then(|| {
                        column.null_bitmap.truncate(bitmap_len);
                        Bytes::copy_from_slice(&column.null_bitmap)
                    });
                    column.null_bitmap.clear();
                    column.has_null = false;
                    let (fixed_size_column, variable_size_column) = if is_variable_size(column.ty) {
                        (None, Some(VariableSizeColumn { value }))
                    } else {
                        (Some(FixedSizeColumn { value }), None)
                    };
                    Column {
                        null_bitmap,
                        fixed_size_column,
                        variable_size_column,
                    }
                })
                .collect();
            messages.push(Chunk { row_count, columns });
        }
        self.rows = 0;
        messages
    }
}

/// One decoded chunk, column by column.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedChunk {
    row_count: usize,
    columns: Vec<Vec<Value>>,
}

impl DecodedChunk {
    /// Rows in the chunk.
    pub fn row_count(&self) -> usize {
        self.row_count
    }

    /// The values of column `index`, one per row.
    pub fn column(&self, index: usize) -> &[Value] {
        &self.columns[index]
    }

    /// All columns.
    pub fn columns(&self) -> &[Vec<Value>] {
        &self.columns
    }

    /// Converts to rows, the layout ROW messages give.
    pub fn into_rows(self) -> Vec<Vec<Value>> {
        let mut rows: Vec<Vec<Value>> = (0..self.row_count)
            .map(|_| Vec::with_capacity(self.columns.len()))
            .collect();
        for column in self.columns {
            for (row, value) in rows.iter_mut().zip(column) {
                row.push(value);
            }
        }
        rows
    }
}

/// Reassembles CHUNK messages, which may be split by columns, into decoded chunks.
#[derive(Debug)]
pub struct ChunkAssembler {
    types: Vec<ColumnType>,
    /// Row count of the chunk whose parts are arriving, and the columns decoded so far.
    pending: Option<(u32, Vec<Vec<Value>>)>,
}

impl ChunkAssembler {
    /// An assembler for a result with these column types.
    pub fn new(types: Vec<ColumnType>) -> Self {
        Self {
            types,
            pending: None,
        }
    }

    /// Whether a chunk has started but not all of its columns have arrived.
    pub fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Takes one CHUNK message. Returns the chunk once its last column has arrived.
    pub fn push(&mut self, message: &Chunk) -> Result<Option<DecodedChunk>, ChunkError> {
        let row_count = message.row_count;
        if row_count == 0 || row_count as usize > MAX_CHUNK_ROWS {
            return Err(ChunkError::RowCount(row_count));
        }
        if message.columns.is_empty() || message.columns.len() > MAX_COLUMNS_PER_MESSAGE {
            return Err(ChunkError::PartColumns(message.columns.len()));
        }
        let (expected_rows, mut columns) = self
            .pending
            .take()
            .unwrap_or_else(|| (row_count, Vec::with_capacity(self.types.len())));
        if expected_rows != row_count {
            return Err(ChunkError::PartRowCount {
                expected: expected_rows,
                got: row_count,
            });
        }
        let received = columns.len() + message.columns.len();
        if received > self.types.len() {
            return Err(ChunkError::TooManyColumns {
                expected: self.types.len(),
                got: received,
            });
        }
        for column in &message.columns {
            let index = columns.len();
            columns.push(decode_column(
                index,
                self.types[index],
                row_count as usize,
                column,
            )?);
        }
        if columns.len() == self.types.len() {
            Ok(Some(DecodedChunk {
                row_count: row_count as usize,
                columns,
            }))
        } else {
            self.pending = Some((row_count, columns));
            Ok(None)
        }
    }
}

fn decode_column(
    index: usize,
    ty: ColumnType,
    rows: usize,
    column: &Column,
) -> Result<Vec<Value>, ChunkError> {
    let bitmap = match &column.null_bitmap {
        Some(bitmap) => {
            if bitmap.len() != rows.div_ceil(8) {
                return Err(ChunkError::BitmapLength {
                    column: index,
                    expected: rows.div_ceil(8),
                    got: bitmap.len(),
                });
            }
            Some(bitmap.as_ref())
        }
        None => None,
    };
    let is_null = |row: usize| bitmap.is_some_and(|b| b[row / 8] & (0x80 >> (row % 8)) != 0);
    let data = match (&column.fixed_size_column, &column.variable_size_column) {
        (Some(fixed), None) => fixed.value.as_ref(),
        (None, Some(variable)) => variable.value.as_ref(),
        (None, None) if (0..rows).all(is_null) => &[][..],
        _ => return Err(ChunkError::ColumnData { column: index }),
    };
    let mut cursor = data;
    let mut values = Vec::with_capacity(rows);
    for row in 0..rows {
        if is_null(row) {
            values.push(Value::Null);
        } else {
            let value =
                decode_chunk_value(ty, &mut cursor).map_err(|source| ChunkError::Value {
                    column: index,
                    row,
                    source,
                })?;
            values.push(value);
        }
    }
    if !cursor.is_empty() {
        return Err(ChunkError::TrailingBytes {
            column: index,
            extra: cursor.len(),
        });
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn text(s: &str) -> Value {
        Value::Bytes(Bytes::copy_from_slice(s.as_bytes()))
    }

    fn assemble(types: &[ColumnType], messages: &[Chunk]) -> Vec<Vec<Value>> {
        let mut assembler = ChunkAssembler::new(types.to_vec());
        let mut rows = Vec::new();
        for message in messages {
            if let Some(chunk) = assembler.push(message).unwrap() {
                rows.extend(chunk.into_rows());
            }
        }
        assert!(!assembler.is_pending());
        rows
    }

    #[test]
    fn null_bitmap_is_msb_first_and_only_where_a_null_exists() {
        let types = [ColumnType::Sint, ColumnType::Bytes];
        let mut encoder = ChunkEncoder::new(&types);
        encoder.push_row(&[Value::Null, text("a")]).unwrap();
        encoder.push_row(&[Value::Sint(-1), text("")]).unwrap();
        let messages = encoder.take_messages();
        assert_eq!(messages.len(), 1);
        let chunk = &messages[0];
        assert_eq!(chunk.row_count, 2);
        let ints = &chunk.columns[0];
        assert_eq!(ints.null_bitmap.as_deref(), Some(&[0x80][..]));
        assert_eq!(
            ints.fixed_size_column.as_ref().unwrap().value.as_ref(),
            [0x01]
        );
        let strings = &chunk.columns[1];
        assert_eq!(strings.null_bitmap, None);
        // varint(len + 1), bytes, 0x00 — twice.
        assert_eq!(
            strings
                .variable_size_column
                .as_ref()
                .unwrap()
                .value
                .as_ref(),
            [0x02, b'a', 0x00, 0x01, 0x00]
        );
    }

    #[test]
    fn bitmap_is_exactly_ceil_rows_over_eight_bytes() {
        let mut encoder = ChunkEncoder::new(&[ColumnType::Uint]);
        for row in 0..9 {
            let value = if row == 8 {
                Value::Null
            } else {
                Value::Uint(row)
            };
            encoder.push_row(&[value]).unwrap();
        }
        let messages = encoder.take_messages();
        assert_eq!(
            messages[0].columns[0].null_bitmap.as_deref(),
            Some(&[0x00, 0x80][..])
        );
    }

    #[test]
    fn wide_chunks_are_split_into_messages_of_ten_columns() {
        let types = vec![ColumnType::Sint; 23];
        let mut encoder = ChunkEncoder::new(&types);
        let row: Vec<Value> = (0..23).map(Value::Sint).collect();
        encoder.push_row(&row).unwrap();
        encoder.push_row(&row).unwrap();
        let messages = encoder.take_messages();
        let widths: Vec<usize> = messages.iter().map(|m| m.columns.len()).collect();
        assert_eq!(widths, [10, 10, 3]);
        assert!(messages.iter().all(|m| m.row_count == 2));

        let mut assembler = ChunkAssembler::new(types.clone());
        assert_eq!(assembler.push(&messages[0]).unwrap(), None);
        assert!(assembler.is_pending());
        assert_eq!(assembler.push(&messages[1]).unwrap(), None);
        let chunk = assembler.push(&messages[2]).unwrap().unwrap();
        assert_eq!(chunk.into_rows(), vec![row.clone(), row]);
    }

    #[test]
    fn chunk_is_full_at_4096_rows() {
        let mut encoder = ChunkEncoder::new(&[ColumnType::Bit]);
        for i in 0..MAX_CHUNK_ROWS - 1 {
            assert!(
                !encoder.push_row(&[Value::Null]).unwrap(),
                "full early at {i}"
            );
        }
        assert!(encoder.push_row(&[Value::Null]).unwrap());
        assert_eq!(encoder.push_row(&[Value::Null]), Err(ChunkError::Full));
        let messages = encoder.take_messages();
        assert_eq!(messages[0].row_count, 4096);
        assert_eq!(
            messages[0].columns[0].null_bitmap.as_ref().unwrap().len(),
            512
        );
        assert_eq!(encoder.row_count(), 0);
    }

    #[test]
    fn chunk_is_full_when_a_column_reaches_the_block_size() {
        let mut encoder = ChunkEncoder::with_block_size(&[ColumnType::Bytes], 64);
        assert!(!encoder.push_row(&[text(&"x".repeat(30))]).unwrap());
        assert!(encoder.push_row(&[text(&"y".repeat(40))]).unwrap());
    }

    #[test]
    fn bad_rows_leave_the_chunk_untouched() {
        let mut encoder = ChunkEncoder::new(&[ColumnType::Sint, ColumnType::Double]);
        assert_eq!(
            encoder.push_row(&[Value::Sint(1), Value::Uint(2)]),
            Err(ChunkError::TypeMismatch {
                column: 1,
                expected: ColumnType::Double,
                got: ColumnType::Uint
            })
        );
        assert_eq!(
            encoder.push_row(&[Value::Sint(1)]),
            Err(ChunkError::RowArity {
                expected: 2,
                got: 1
            })
        );
        assert_eq!(encoder.row_count(), 0);
        assert!(encoder.take_messages().is_empty());
    }

    #[test]
    fn malformed_chunks_are_typed_errors() {
        let column = |value: &[u8]| Column {
            null_bitmap: None,
            fixed_size_column: Some(FixedSizeColumn {
                value: Bytes::copy_from_slice(value),
            }),
            variable_size_column: None,
        };
        let chunk = |rows, columns| Chunk {
            row_count: rows,
            columns,
        };
        let types = vec![ColumnType::Sint, ColumnType::Sint];

        let mut a = ChunkAssembler::new(types.clone());
        assert_eq!(
            a.push(&chunk(0, vec![column(&[])])),
            Err(ChunkError::RowCount(0))
        );
        assert_eq!(
            a.push(&chunk(4097, vec![column(&[])])),
            Err(ChunkError::RowCount(4097))
        );
        assert_eq!(a.push(&chunk(1, vec![])), Err(ChunkError::PartColumns(0)));
        assert_eq!(
            a.push(&chunk(1, vec![column(&[2]), column(&[2]), column(&[2])])),
            Err(ChunkError::TooManyColumns {
                expected: 2,
                got: 3
            })
        );
        assert_eq!(
            a.push(&chunk(1, vec![column(&[2, 4])])),
            Err(ChunkError::TrailingBytes {
                column: 0,
                extra: 1
            })
        );
        assert!(matches!(
            a.push(&chunk(2, vec![column(&[2])])),
            Err(ChunkError::Value {
                column: 0,
                row: 1,
                ..
            })
        ));
        let mut with_bitmap = column(&[]);
        with_bitmap.null_bitmap = Some(Bytes::from_static(&[0xc0, 0x00]));
        assert_eq!(
            a.push(&chunk(2, vec![with_bitmap])),
            Err(ChunkError::BitmapLength {
                column: 0,
                expected: 1,
                got: 2
            })
        );
        let both = Column {
            variable_size_column: Some(VariableSizeColumn {
                value: Bytes::new(),
            }),
            ..column(&[2])
        };
        assert_eq!(
            a.push(&chunk(1, vec![both])),
            Err(ChunkError::ColumnData { column: 0 })
        );

        // A second part must repeat the first part's row count.
        let mut b = ChunkAssembler::new(types);
        assert_eq!(b.push(&chunk(1, vec![column(&[2])])), Ok(None));
        assert_eq!(
            b.push(&chunk(2, vec![column(&[2, 2])])),
            Err(ChunkError::PartRowCount {
                expected: 1,
                got: 2
            })
        );
    }

    #[test]
    fn an_all_null_column_may_omit_its_data() {
        let column = Column {
            null_bitmap: Some(Bytes::from_static(&[0xe0])),
            fixed_size_column: None,
            variable_size_column: None,
        };
        let mut a = ChunkAssembler::new(vec![ColumnType::Double]);
        let chunk = a
            .push(&Chunk {
                row_count: 3,
                columns: vec![column],
            })
            .unwrap()
            .unwrap();
        assert_eq!(chunk.column(0), [Value::Null, Value::Null, Value::Null]);
    }

    fn arb_value(ty: ColumnType) -> BoxedStrategy<Value> {
        let non_null = match ty {
            ColumnType::Sint => any::<i64>().prop_map(Value::Sint).boxed(),
            ColumnType::Uint => any::<u64>().prop_map(Value::Uint).boxed(),
            ColumnType::Double => any::<f64>()
                .prop_filter("NaN is not equal to itself", |v| !v.is_nan())
                .prop_map(Value::Double)
                .boxed(),
            ColumnType::Float => any::<f32>()
                .prop_filter("NaN is not equal to itself", |v| !v.is_nan())
                .prop_map(Value::Float)
                .boxed(),
            ColumnType::Bit => any::<u64>().prop_map(Value::Bit).boxed(),
            _ => proptest::collection::vec(any::<u8>(), 0..40)
                .prop_map(|b| Value::Bytes(b.into()))
                .boxed(),
        };
        prop_oneof![1 => Just(Value::Null), 4 => non_null].boxed()
    }

    fn arb_result() -> impl Strategy<Value = (Vec<ColumnType>, Vec<Vec<Value>>)> {
        let ty = prop_oneof![
            Just(ColumnType::Sint),
            Just(ColumnType::Uint),
            Just(ColumnType::Double),
            Just(ColumnType::Float),
            Just(ColumnType::Bit),
            Just(ColumnType::Bytes),
        ];
        proptest::collection::vec(ty, 1..25).prop_flat_map(|types| {
            let row = types.iter().map(|&ty| arb_value(ty)).collect::<Vec<_>>();
            (Just(types), proptest::collection::vec(row, 1..40))
        })
    }

    proptest! {
        #[test]
        fn rows_survive_chunk_encoding_and_reassembly((types, rows) in arb_result()) {
            let mut encoder = ChunkEncoder::with_block_size(&types, 256);
            let mut messages = Vec::new();
            for row in &rows {
                if encoder.push_row(row).unwrap() {
                    messages.extend(encoder.take_messages());
                }
            }
            messages.extend(encoder.take_messages());
            prop_assert!(messages.iter().all(|m| m.columns.len() <= MAX_COLUMNS_PER_MESSAGE));
            prop_assert_eq!(assemble(&types, &messages), rows);
        }

        #[test]
        fn arbitrary_columns_never_panic(
            rows in 0u32..20,
            bitmap in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..4)),
            data in proptest::collection::vec(any::<u8>(), 0..64),
            ty in prop_oneof![Just(ColumnType::Sint), Just(ColumnType::Bytes), Just(ColumnType::Decimal),
                              Just(ColumnType::Time), Just(ColumnType::DateTime), Just(ColumnType::Set)],
        ) {
            let column = Column {
                null_bitmap: bitmap.map(Bytes::from),
                fixed_size_column: Some(FixedSizeColumn { value: Bytes::from(data) }),
                variable_size_column: None,
            };
            let _ = ChunkAssembler::new(vec![ty]).push(&Chunk { row_count: rows, columns: vec![column] });
        }
    }
}
