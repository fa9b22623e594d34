//! MySQL's types: of a column in the catalog ([`ColumnType`]) and of an expression ([`Ty`]),
//! and how each is held in SQLite. The catalog types serialize (serde) so an engine can keep
//! them with its databases.

use serde::{Deserialize, Serialize};

/// The collation of a text value: MySQL's default `utf8mb4_general_ci` or an exact one
/// (`utf8mb4_bin`, `BINARY`), both ignoring trailing spaces in comparisons (PAD SPACE), and
/// the two of `information_schema`'s table names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Collation {
    /// Case- and accent-insensitive (`utf8mb4_general_ci`), the SQLite collation
    /// [`CI_COLLATION`].
    Ci,
    /// Code point order (`utf8mb4_bin`), the SQLite collation [`BIN_COLLATION`].
    Bin,
    /// Byte for byte, trailing spaces counted (SQLite's `BINARY`): a name a WHERE asks for
    /// (see [`Collation::Name`]). Only comparisons have it, never a value.
    Exact,
    /// Table names in `information_schema`, which MariaDB declares `utf8mb3_general_ci` and
    /// compares as such, but for one thing: a condition of the WHERE's (or an inner join's
    /// ON's) top level that asks for a name (`TABLE_NAME = 'T1'`, `<=>`, `IN ('T1')`) makes it
    /// open only the table of that name, which the file system finds byte for byte. So a name is
    /// [`Collation::Ci`] text (the SQLite collation [`CI_COLLATION`]) but in such a condition,
    /// which the translation compares as [`Collation::Exact`], and in ORDER BY, where equal
    /// names are ordered byte for byte after (the SQLite collation [`NAME_COLLATION`]). Only
    /// the names MariaDB finds rows by have it. Against a column of another collation
    /// the other one decides (MariaDB converts `utf8mb3` to the other column's `utf8mb4`). No
    /// table column a client declares has it.
    Name,
}

/// The SQLite collation registered for `utf8mb4_general_ci`.
pub const CI_COLLATION: &str = "utf8mb4_general_ci";
/// The SQLite collation registered for `utf8mb4_bin`.
pub const BIN_COLLATION: &str = "utf8mb4_bin";
/// The SQLite collation registered for [`Collation::Name`].
pub const NAME_COLLATION: &str = "xrpc_name";
/// The SQLite collation registered for DECIMAL columns (held as text): numeric order.
pub const DECIMAL_COLLATION: &str = "mysql_decimal";
/// SQLite's schema of a connection's temporary tables (`CREATE TEMPORARY TABLE`).
pub const TEMP_SCHEMA: &str = "temp";
/// The SQLite collation registered for TIME columns (held as MySQL's text of the value,
/// `-05:00:00.25` to `838:59:59`): the order of the durations.
pub(crate) const TIME_COLLATION: &str = "mysql_time";

impl Collation {
    /// The SQLite collation's name.
    pub fn sqlite_name(self) -> &'static str {
        match self {
            Self::Ci | Self::Name => CI_COLLATION,
            Self::Bin => BIN_COLLATION,
            Self::Exact => "BINARY",
        }
    }

    /// The SQLite collation ORDER BY sorts text of this collation under: [`Self::sqlite_name`]
    /// but for names, whose equals are ordered byte for byte ([`NAME_COLLATION`]).
    pub fn order_name(self) -> &'static str {
        match self {
            Self::Name => NAME_COLLATION,
            other => other.sqlite_name(),
        }
    }

    /// Whether text functions (LIKE, LOCATE, FIELD, …) read text of this collation without
    /// regard to case and accents.
    pub fn folds_case(self) -> bool {
        matches!(self, Self::Ci | Self::Name)
    }

    /// A MySQL collation name (`utf8mb4_0900_ai_ci`, `latin1_bin`) as one of the two.
    pub fn from_mysql_name(name: &str) -> Option<Self> {
        let name = name.to_ascii_lowercase();
        if name == "binary" || name.ends_with("_bin") {
            Some(Self::Bin)
        } else if name.ends_with("_ci") || name.ends_with("_ai_ci") {
            Some(Self::Ci)
        } else {
            None
        }
    }
}

/// The MySQL type of an expression, which fixes both the SQL the translation emits for the
/// operators around it and the text a client receives ([`crate::text_of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// The NULL literal.
    Null,
    /// BIGINT (every integer type, BOOLEAN, YEAR): SQLite INTEGER.
    Int,
    /// DECIMAL with this many fraction digits: SQLite TEXT (exact), or INTEGER for scale 0.
    Decimal(u8),
    /// DOUBLE: SQLite REAL.
    Double,
    /// FLOAT (a column's values): SQLite REAL, printed with six digits.
    Float,
    /// Text under a collation: SQLite TEXT.
    Str(Collation),
    /// Binary strings (BINARY, VARBINARY, BLOB): SQLite BLOB.
    Bytes,
    /// DATE: SQLite TEXT `YYYY-MM-DD`.
    Date,
    /// DATETIME and TIMESTAMP: SQLite TEXT `YYYY-MM-DD HH:MM:SS[.ffffff]`.
    DateTime,
    /// TIME: SQLite TEXT `[-]HH:MM:SS`.
    Time,
    /// A value whose type is known only when the statement runs: an argument `?` or a user
    /// variable. Operators on it dispatch on SQLite's storage class.
    Dyn,
}

impl Ty {
    /// Whether this is a number type (or NULL).
    pub(crate) fn is_numeric(self) -> bool {
        matches!(
            self,
            Self::Int | Self::Decimal(_) | Self::Double | Self::Float
        )
    }

    /// Whether values are held as text in a date or time format.
    pub(crate) fn is_temporal(self) -> bool {
        matches!(self, Self::Date | Self::DateTime | Self::Time)
    }

    /// The collation of a text type.
    pub(crate) fn collation(self) -> Option<Collation> {
        match self {
            Self::Str(c) => Some(c),
            _ => None,
        }
    }

    /// A short code for the type, passed to functions that format values (`my_text`).
    pub(crate) fn code(self) -> String {
        match self {
            Self::Decimal(s) => format!("d{s}"),
            Self::Double => "f".into(),
            Self::Float => "g".into(),
            Self::Int => "i".into(),
            _ => "s".into(),
        }
    }
}

/// What an argument `?` holds when the statement runs, as far as the comparisons around it
/// depend on it. An argument is the literal it stands for (MySQL substitutes it into the text),
/// so a comparison with one of a known class is translated as with such a literal: plain SQLite
/// operators where they give MySQL's answer, which lets SQLite search an index. `Unknown`
/// leaves the comparison to dispatch on the value's storage class at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArgClass {
    /// NULL.
    Null,
    /// An integer SQLite holds as INTEGER (a BIGINT literal).
    Int,
    /// A floating-point number (a DOUBLE).
    Real,
    /// UTF-8 text: a string literal under `utf8mb4_general_ci`.
    Text,
    /// Bytes that are not UTF-8: a binary string.
    Bytes,
    /// Anything else (a DECIMAL, a date or time, an integer past BIGINT): known at run time.
    Unknown,
}

impl ArgClass {
    /// The type of the literal an argument of this class stands for.
    pub(crate) fn ty(self) -> Ty {
        match self {
            Self::Null => Ty::Null,
            Self::Int => Ty::Int,
            Self::Real => Ty::Double,
            Self::Text => Ty::Str(Collation::Ci),
            Self::Bytes => Ty::Bytes,
            Self::Unknown => Ty::Dyn,
        }
    }
}

/// A column's declared MySQL type, as the catalog keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ColumnType {
    /// TINYINT … BIGINT, BOOL, YEAR: the bounds of its values.
    Int {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// BIT(width), 1 to 63 bits: an integer from 0 to 2^width - 1, sent as MySQL's BIT. MySQL
    /// reads it as a number in arithmetic and comparisons with numbers, as a binary string
    /// elsewhere (the translation allows it only where it is a number).
    Bit {
        /// Bits.
        width: u8,
    },
    /// YEAR: 1901 to 2155, held as the integer (the year 0000 is refused: MySQL writes it
    /// with four digits where the integer has one).
    Year,
    /// DECIMAL(precision, scale), or DECIMAL(precision, scale) UNSIGNED.
    Decimal {
        /// Total digits.
        precision: u8,
        /// Fraction digits.
        scale: u8,
        /// `UNSIGNED`: a negative value is out of range.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        unsigned: bool,
    },
    /// DOUBLE, REAL.
    Double,
    /// FLOAT.
    Float,
    /// CHAR(n): trailing spaces are removed on read.
    Char {
        /// Characters.
        length: u32,
        /// Its collation.
        collation: Collation,
    },
    /// VARCHAR(n), TEXT types, JSON.
    VarChar {
        /// Characters at most.
        length: u32,
        /// Its collation.
        collation: Collation,
    },
    /// BINARY, VARBINARY, BLOB types.
    Bytes {
        /// Bytes at most.
        length: u32,
        /// BINARY(n): a shorter value is padded with zero bytes to `length`, as MySQL stores it.
        #[serde(default)]
        fixed: bool,
    },
    /// DATE.
    Date,
    /// DATETIME and TIMESTAMP with their fraction digits.
    DateTime {
        /// Fraction digits, 0 to 6.
        fsp: u8,
        /// TIMESTAMP: its values lie from 1970-01-01 00:00:01 to 2038-01-19 03:14:07 (UTC).
        #[serde(default)]
        timestamp: bool,
    },
    /// TIME with its fraction digits.
    Time {
        /// Fraction digits, 0 to 6.
        #[serde(default)]
        fsp: u8,
    },
    /// SET: some of its members, held as their declared texts in declaration order, joined
    /// by commas.
    Set {
        /// The members in order (member `i` is bit `i` of the value MySQL sorts by).
        values: Vec<String>,
        /// Its collation.
        collation: Collation,
    },
    /// ENUM: one of its members, held as the member's text.
    Enum {
        /// The members in order (their index is what MySQL sorts and computes with).
        values: Vec<String>,
        /// Its collation.
        collation: Collation,
    },
}

impl ColumnType {
    /// The expression type of the column's values.
    pub fn ty(&self) -> Ty {
        match self {
            Self::Int { .. } => Ty::Int,
            Self::Decimal { scale, .. } => Ty::Decimal(*scale),
            Self::Double => Ty::Double,
            Self::Float => Ty::Float,
            Self::Char { collation, .. }
            | Self::VarChar { collation, .. }
            | Self::Enum { collation, .. }
            | Self::Set { collation, .. } => Ty::Str(*collation),
            Self::Bytes { .. } => Ty::Bytes,
            Self::Bit { .. } | Self::Year => Ty::Int,
            Self::Date => Ty::Date,
            Self::DateTime { .. } => Ty::DateTime,
            Self::Time { .. } => Ty::Time,
        }
    }

    /// The fraction digits of a DATETIME, TIMESTAMP or TIME type; 0 for any other.
    pub fn fsp(&self) -> u8 {
        match self {
            Self::DateTime { fsp, .. } | Self::Time { fsp } => *fsp,
            _ => 0,
        }
    }

    /// Whether this is an UNSIGNED integer type.
    pub fn is_unsigned(&self) -> bool {
        matches!(
            self,
            Self::Int { min: 0, .. }
                | Self::Bit { .. }
                | Self::Year
                | Self::Decimal { unsigned: true, .. }
        )
    }

    /// The column's declaration in SQLite: its affinity and collation.
    pub fn sqlite_decl(&self) -> String {
        match self {
            Self::Int { .. } | Self::Bit { .. } | Self::Year => "INTEGER".into(),
            Self::Decimal { .. } => format!("TEXT COLLATE {DECIMAL_COLLATION}"),
            Self::Double | Self::Float => "REAL".into(),
            Self::Char { collation, .. }
            | Self::VarChar { collation, .. }
            | Self::Enum { collation, .. }
            | Self::Set { collation, .. } => {
                format!("TEXT COLLATE {}", collation.sqlite_name())
            }
            Self::Bytes { .. } => "BLOB".into(),
            Self::Date | Self::DateTime { .. } => "TEXT".into(),
            Self::Time { .. } => format!("TEXT COLLATE {TIME_COLLATION}"),
        }
    }
}

/// A column in the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    /// Its name as declared.
    pub name: String,
    /// Its MySQL type.
    #[serde(deserialize_with = "kept_column_type")]
    pub ty: ColumnType,
    /// `NOT NULL` (or part of the primary key).
    pub not_null: bool,
    /// Whether it has a default (an explicit `DEFAULT`, or NULL for a nullable column).
    pub has_default: bool,
    /// `AUTO_INCREMENT`.
    pub auto_increment: bool,
    /// `ON UPDATE CURRENT_TIMESTAMP`.
    pub on_update_now: bool,
    /// `COMMENT '…'`.
    pub comment: Option<String>,
    /// Its `DEFAULT` as the SQLite expression the table declares.
    #[serde(default)]
    pub default: Option<String>,
    /// Its type as declared (`bigint(20) unsigned`, `LONGTEXT`, `TIMESTAMP`, …), for the
    /// catalog statements: [`Column::ty`] does not tell TEXT from VARCHAR(65535) or TIMESTAMP
    /// from DATETIME. Empty in definitions kept before it was.
    #[serde(default)]
    pub declared: String,
    /// `GENERATED ALWAYS AS (…) VIRTUAL | STORED`: a column computed from the row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<Generated>,
}

/// A generated column's expression. SQLite stores every one (`GENERATED ALWAYS AS (…)
/// STORED`): computed when the row is written, so a value that does not fit the column is the
/// write's error; MariaDB computes a VIRTUAL one when it is read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Generated {
    /// The expression as SQLite's, converted to the column's type as a strict write converts.
    pub sql: String,
    /// The expression as MariaDB prints it back (`` `price` * `qty` ``).
    pub shown: String,
    /// Declared STORED (else VIRTUAL).
    pub stored: bool,
}

impl Column {
    /// A nullable column of type `ty` with no declaration of its own (no default but NULL,
    /// no attributes, [`Column::declared`] empty): a value computed into a column.
    pub fn undeclared(name: String, ty: ColumnType) -> Self {
        Self {
            name,
            ty,
            not_null: false,
            has_default: true,
            auto_increment: false,
            on_update_now: false,
            comment: None,
            default: None,
            declared: String::new(),
            generated: None,
        }
    }
}

/// A kept [`ColumnType`], including the form definitions kept before TIME had fraction digits
/// (a bare `Time`).
fn kept_column_type<'de, D: serde::Deserializer<'de>>(d: D) -> Result<ColumnType, D::Error> {
    #[derive(Deserialize)]
    enum Bare {
        Time,
    }
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Kept {
        Current(ColumnType),
        Bare(Bare),
    }
    Ok(match Kept::deserialize(d)? {
        Kept::Current(ty) => ty,
        Kept::Bare(Bare::Time) => ColumnType::Time { fsp: 0 },
    })
}

/// An index in the catalog: MySQL's name, and the SQLite index that implements it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Index {
    /// MySQL's name (per table).
    pub name: String,
    /// SQLite's name (per database).
    pub sqlite_name: String,
    /// `UNIQUE`.
    pub unique: bool,
    /// Its columns in key order.
    #[serde(default)]
    pub columns: Vec<String>,
    /// The columns a plain index keys by a prefix (`KEY k (c(191))`): the column and the
    /// prefix's length in characters, which SHOW CREATE TABLE and SHOW INDEX give back (SQLite
    /// indexes the whole column).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prefixes: Vec<(String, u32)>,
    /// Made for a foreign key that no other key served (InnoDB's generated index): dropped when
    /// a later index can serve the key instead, as InnoDB drops it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub generated: bool,
}

impl Index {
    /// The prefix length column `column` is keyed by, if any.
    pub fn prefix(&self, column: &str) -> Option<u32> {
        self.prefixes
            .iter()
            .find(|(c, _)| c.eq_ignore_ascii_case(column))
            .map(|(_, n)| *n)
    }
}

/// A CHECK constraint as MariaDB prints it back: the condition re-printed from its parse tree
/// (lower-case operators, back-quoted declared column names, canonical function names), not
/// the text written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShownCheck {
    /// The constraint's name (a column's check is named by its column).
    pub name: String,
    /// The column a column-level check is written on (`n int CHECK (n > 0)`, and a JSON
    /// column's `json_valid` check); `None` for a table's `CONSTRAINT … CHECK (…)`.
    pub column: Option<String>,
    /// The condition, written inside `CHECK (…)`.
    pub clause: String,
    /// The columns the condition reads, as declared; empty in definitions kept before it was.
    #[serde(default)]
    pub columns: Vec<String>,
}

/// A table in the catalog, with the options MySQL shows for it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Table {
    /// The MySQL database it is in.
    #[serde(default)]
    pub database: String,
    /// Its name.
    pub name: String,
    /// Its columns in order.
    pub columns: Vec<Column>,
    /// The primary key's columns in key order (empty without one).
    #[serde(default)]
    pub primary_key: Vec<String>,
    /// Its secondary indexes.
    pub indexes: Vec<Index>,
    /// Its foreign keys as SQLite's table constraints (`FOREIGN KEY (…) REFERENCES …`).
    #[serde(default)]
    pub foreign_keys: Vec<String>,
    /// Its foreign keys as SHOW CREATE TABLE writes them (`CONSTRAINT `t_ibfk_1` FOREIGN KEY
    /// (`a`) REFERENCES `p` (`id`) ON DELETE CASCADE`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub foreign_keys_shown: Vec<String>,
    /// Its enforced CHECK constraints as SQLite's table constraints
    /// (`CONSTRAINT "name" CHECK (my_check(…, 'name'))`), by MySQL's name.
    #[serde(default)]
    pub checks: Vec<(String, String)>,
    /// Its CHECK constraints as MariaDB's SHOW CREATE TABLE writes them, one for each of
    /// [`Table::checks`] in the same order; empty when any has no printed form MariaDB's
    /// (see [`ShownCheck`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks_shown: Vec<ShownCheck>,
    /// Table options as written (`ENGINE`, `DEFAULT CHARSET`, `COMMENT`, …), names upper case.
    pub options: Vec<(String, String)>,
    /// `CREATE TEMPORARY TABLE`: the session's own, in SQLite's `temp` schema of its
    /// connection, found before a table of its database of the same name.
    #[serde(default)]
    pub temporary: bool,
    /// `CREATE VIEW`: the view's definition; its [`Table::columns`] are the view's columns
    /// as its SELECT typed them when it was created.
    #[serde(default)]
    pub view: Option<View>,
    /// When the table was created (`YYYY-MM-DD HH:MM:SS`, the node's local time), as the
    /// engine that keeps the definition records it: information_schema's CREATE_TIME. `None`
    /// in definitions kept before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
}

/// A view's definition as the catalog keeps it. A statement naming the view translates its
/// SELECT again against the catalog of the day, as MySQL opens a view's tables anew each time.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct View {
    /// The SELECT as MySQL text (the parse tree printed, which parses back to the same tree).
    pub query: String,
    /// The database its unqualified table names are in: the current one when it was created.
    pub names_in: String,
    /// The names of the SELECT's columns when the view was created, in order; the view's
    /// columns are these (renamed by the view's column list, if it has one), so a `*` over a
    /// table that gained columns since still gives the columns it gave then.
    pub selected: Vec<String>,
    /// Declared `ALGORITHM=TEMPTABLE`: MySQL reads it into a temporary table, so it is not
    /// written through (1288, 1471).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub temptable: bool,
}

impl Table {
    /// The column called `name` (case-insensitive, as MySQL's column names are).
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name))
    }

    /// What MySQL's result metadata says of column `name`'s declaration: NOT NULL, its keys,
    /// AUTO_INCREMENT and UNSIGNED.
    pub fn flags_of(&self, name: &str) -> ColumnFlags {
        let Some(column) = self.column(name) else {
            return ColumnFlags::default();
        };
        let is = |c: &String| c.eq_ignore_ascii_case(name);
        ColumnFlags {
            not_null: column.not_null,
            primary_key: self.primary_key.iter().any(is),
            unique_key: self
                .indexes
                .iter()
                .any(|i| i.unique && i.columns.iter().any(is)),
            multiple_key: self
                .indexes
                .iter()
                .any(|i| !i.unique && i.columns.first().is_some_and(is)),
            auto_increment: column.auto_increment,
            unsigned: column.ty.is_unsigned(),
        }
    }
}

/// The flags of a result column that is a table's column, from the column's declaration, as
/// MySQL's result metadata carries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ColumnFlags {
    /// `NOT NULL` (declared, or a primary key column).
    pub not_null: bool,
    /// A column of the primary key.
    pub primary_key: bool,
    /// A column of a unique key.
    pub unique_key: bool,
    /// The first column of a non-unique key.
    pub multiple_key: bool,
    /// `AUTO_INCREMENT`.
    pub auto_increment: bool,
    /// An UNSIGNED integer.
    pub unsigned: bool,
}

/// What the translation needs to know about the database: the tables and their columns.
/// The engine implements it over its own catalog; [`crate::MemoryCatalog`] is one kept in
/// memory from the changes DDL statements report.
pub trait Catalog {
    /// The table `name` in database `schema` (the current database when `None`): the session's
    /// temporary table of that name in that database, else the database's own.
    fn table(&self, schema: Option<&str>, name: &str) -> Option<Table>;
    /// The table or view `name` of database `schema` itself, never a temporary table (a
    /// view's SELECT does not see them). By default [`Catalog::table`] unless that is a
    /// temporary table; then the database's own from [`Catalog::tables`], if listed.
    fn base_table(&self, schema: &str, name: &str) -> Option<Table> {
        match self.table(Some(schema), name) {
            Some(t) if t.temporary => self
                .tables(schema)?
                .into_iter()
                .find(|t| !t.temporary && t.name.eq_ignore_ascii_case(name)),
            other => other,
        }
    }
    /// The session's temporary table `name` (of any database), to tell whether a CREATE
    /// TEMPORARY TABLE may make it. None unless the catalog says otherwise.
    fn temporary_table(&self, name: &str) -> Option<Table> {
        let _ = name;
        None
    }
    /// The current database's name: where unqualified table names are, and for MySQL's
    /// messages (`FUNCTION db.f does not exist`). `None` is MySQL's "No database selected".
    fn current_schema(&self) -> Option<String>;
    /// The name SQLite knows MySQL database `database` by on the connection (the schema name it
    /// is attached under): the name itself unless the catalog says otherwise.
    fn sqlite_schema(&self, database: &str) -> String {
        database.to_string()
    }
    /// Whether database `database` exists (a table can be created in it). Every name does
    /// unless the catalog says otherwise.
    fn has_database(&self, database: &str) -> bool {
        let _ = database;
        true
    }
    /// Every table of database `database`, or `None` when the catalog cannot list them (then
    /// what needs them, such as rebuilding a table other tables may reference, is refused).
    fn tables(&self, database: &str) -> Option<Vec<Table>> {
        let _ = database;
        None
    }
    /// Whether the session checks foreign keys (`@@foreign_key_checks`): a foreign key to a
    /// table that does not exist yet is accepted only while it does not, as in MySQL.
    fn foreign_key_checks(&self) -> bool {
        true
    }
    /// The session's value of system variable `name` (lower case, without `@@` or scope), or
    /// `None` for one the catalog does not report (reading it is then refused with 1235).
    fn system_variable(&self, name: &str) -> Option<SystemValue> {
        let _ = name;
        None
    }
    /// Whether the ON UPDATE CURRENT_TIMESTAMP triggers of `table` keep still while the engine
    /// numbers an insert's rows again: their condition reads `my_renumbering()`, as the
    /// triggers the translation makes do. Where they do not, an insert that would number its
    /// rows again is refused. True unless the catalog says otherwise.
    fn on_update_skips_renumbering(&self, table: &Table) -> bool {
        let _ = table;
        true
    }
    /// The global value of system variable `name` (`@@global.name`, lower case), or `None`
    /// for one the catalog does not report (reading it is then refused with 1235).
    fn global_system_variable(&self, name: &str) -> Option<SystemValue> {
        let _ = name;
        None
    }
}

/// A system variable's value as a statement reads it (`@@name`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SystemValue {
    /// A number (`@@foreign_key_checks`).
    Int(i64),
    /// A text (`@@character_set_client`).
    Text(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_column_kept_before_fraction_digits_reads_as_time_0() {
        let kept = r#"{"name":"t","ty":"Time","not_null":false,"has_default":true,
            "auto_increment":false,"on_update_now":false,"comment":null}"#;
        let column: Column = serde_json::from_str(kept).unwrap();
        assert_eq!(column.ty, ColumnType::Time { fsp: 0 });
        let again: Column = serde_json::from_str(&serde_json::to_string(&column).unwrap()).unwrap();
        assert_eq!(again, column);
    }
}
