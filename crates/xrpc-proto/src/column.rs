//! X-protocol column constants: what a ColumnMetaData message's `original_type`, `collation`,
//! `content_type` and `flags` fields mean. The node's engines fill them in and the clients read
//! them, so they live beside the message catalogue.

/// MySQL's binary collation: the Java client returns raw bytes only for this one.
pub const COLLATION_BINARY: u64 = 63;
/// `utf8mb4_general_ci`: text columns.
pub const COLLATION_UTF8MB4: u64 = 45;

/// MySQL field types (`enum_field_types`), which ColumnMetaData carries as `original_type`.
pub mod mysql_type {
    /// DECIMAL (new decimal).
    pub const NEWDECIMAL: u32 = 246;
    /// TINYINT.
    pub const TINY: u32 = 1;
    /// SMALLINT.
    pub const SHORT: u32 = 2;
    /// INT.
    pub const LONG: u32 = 3;
    /// FLOAT.
    pub const FLOAT: u32 = 4;
    /// DOUBLE.
    pub const DOUBLE: u32 = 5;
    /// NULL-typed column.
    pub const NULL: u32 = 6;
    /// TIMESTAMP.
    pub const TIMESTAMP: u32 = 7;
    /// BIGINT.
    pub const LONGLONG: u32 = 8;
    /// MEDIUMINT.
    pub const INT24: u32 = 9;
    /// DATE.
    pub const DATE: u32 = 10;
    /// TIME.
    pub const TIME: u32 = 11;
    /// DATETIME.
    pub const DATETIME: u32 = 12;
    /// YEAR.
    pub const YEAR: u32 = 13;
    /// BIT.
    pub const BIT: u32 = 16;
    /// ENUM.
    pub const ENUM: u32 = 247;
    /// SET.
    pub const SET: u32 = 248;
    /// BLOB and TEXT.
    pub const BLOB: u32 = 252;
    /// VARCHAR and VARBINARY.
    pub const VAR_STRING: u32 = 253;
    /// CHAR and BINARY.
    pub const STRING: u32 = 254;
    /// JSON (MySQL; MariaDB's JSON is LONGTEXT on the wire).
    pub const JSON: u32 = 245;
    /// GEOMETRY and its subtypes.
    pub const GEOMETRY: u32 = 255;
}

/// ColumnMetaData `content_type` values, as MySQL's X Plugin sends them: what a BYTES or
/// DATETIME column holds.
pub mod content_type {
    /// BYTES holding a geometry (MySQL's internal format: SRID, then WKB).
    pub const GEOMETRY: u32 = 1;
    /// BYTES holding a JSON document.
    pub const JSON: u32 = 2;
    /// DATETIME holding a date only (a DATE column).
    pub const DATE: u32 = 1;
    /// DATETIME holding a date and a time (DATETIME and TIMESTAMP columns).
    pub const DATETIME: u32 = 2;
}

/// ColumnMetaData `flags` bits (MySQL X protocol meanings). The low bit means something different
/// per X type.
pub mod flags {
    /// UINT columns: the value is ZEROFILL.
    pub const UINT_ZEROFILL: u32 = 0x0001;
    /// DOUBLE, FLOAT and DECIMAL columns: UNSIGNED (the same bit as `UINT_ZEROFILL`).
    pub const NUMBER_UNSIGNED: u32 = 0x0001;
    /// BYTES columns: CHAR/BINARY, right-padded.
    pub const BYTES_RIGHTPAD: u32 = 0x0001;
    /// DATETIME columns: the column is a TIMESTAMP.
    pub const DATETIME_TIMESTAMP: u32 = 0x0001;
    /// The column is NOT NULL.
    pub const NOT_NULL: u32 = 0x0010;
    /// The column is part of the primary key.
    pub const PRIMARY_KEY: u32 = 0x0020;
    /// The column is part of a unique key.
    pub const UNIQUE_KEY: u32 = 0x0040;
    /// The column is part of a non-unique key.
    pub const MULTIPLE_KEY: u32 = 0x0080;
    /// The column is AUTO_INCREMENT.
    pub const AUTO_INCREMENT: u32 = 0x0100;
}
