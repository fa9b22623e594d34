//! The tables of `information_schema` as the translation reads them: their MySQL columns.
//!
//! The rows live in each connection's in-memory `information_schema` (the `catalog` module
//! builds the tables and views of [`INFORMATION_SCHEMA_DDL`] and fills them before a statement
//! that names one). A client's statement that names them is translated from its tree like any
//! other; the translation needs each table's MySQL columns, which are read once per process
//! from that same DDL (its CREATE TABLE statements are MySQL's too, but for their collations)
//! and from [`VIEW_COLUMNS`] for the three views, so the two cannot disagree on a column.
//!
//! Table names (`TABLE_NAME`: [`looked_up_by`]) are text of [`Collation::Name`] (compared
//! without regard to case but where a WHERE asks for one); the other text columns are
//! `utf8mb4_general_ci`. The node's own tables there (`xrpc_tables`, `xrpc_statistics`)
//! are not among them: a client naming them gets MySQL's 1109.

use std::collections::HashMap;
use std::sync::OnceLock;

use xrpc_sql_sqlite::{CatalogChange, Collation, ColumnType, MemoryCatalog, Table};

use super::databases::INFORMATION_SCHEMA;

/// The collation database and table names in `information_schema` are declared with, which
/// ORDER BY sorts them under: as MariaDB's `utf8mb3_general_ci` orders ASCII names (letters as
/// capitals, so `_` sorts after them), equal names byte for byte (`xrpc_sql_sqlite` registers
/// it; see `Collation::Name` for how a translated statement compares them).
pub(crate) const NAME_COLLATION: &str = xrpc_sql_sqlite::NAME_COLLATION;

/// The collation of `information_schema`'s other text columns (column, index and constraint
/// names, types, …): MariaDB's `utf8mb3_general_ci` for ASCII text, which compares letters as
/// capitals (so `_` sorts after them, where SQLite's NOCASE, folding to lower case, sorts it
/// before), equal when equal but for case.
pub(crate) const CI_NAME_COLLATION: &str = "xrpc_name_ci";

/// [`CI_NAME_COLLATION`]'s order.
pub(crate) fn compare_names_ci(a: &str, b: &str) -> std::cmp::Ordering {
    a.bytes()
        .map(|c| c.to_ascii_uppercase())
        .cmp(b.bytes().map(|c| c.to_ascii_uppercase()))
}

/// The catalog tables, created in the in-memory `information_schema` of every connection. Names
/// compare and sort without regard to case, as MySQL's `utf8mb3_general_ci` columns do
/// ([`CI_NAME_COLLATION`]), but database and table names, declared with [`NAME_COLLATION`]
/// for the queries the node writes on them (SHOW); a client's statement compares them as the
/// translation says (see `Collation::Name`).
pub(crate) const INFORMATION_SCHEMA_DDL: &str = "
CREATE TABLE information_schema.SCHEMATA (
  CATALOG_NAME VARCHAR(64) COLLATE xrpc_name_ci, SCHEMA_NAME VARCHAR(64) COLLATE xrpc_name, DEFAULT_CHARACTER_SET_NAME VARCHAR(64) COLLATE xrpc_name_ci,
  DEFAULT_COLLATION_NAME VARCHAR(64) COLLATE xrpc_name_ci, SQL_PATH VARCHAR(512) COLLATE xrpc_name_ci);
CREATE TABLE information_schema.xrpc_tables (
  TABLE_CATALOG VARCHAR(64) COLLATE xrpc_name_ci, TABLE_SCHEMA VARCHAR(64) COLLATE xrpc_name, TABLE_NAME VARCHAR(64) COLLATE xrpc_name,
  TABLE_TYPE VARCHAR(64) COLLATE xrpc_name_ci, ENGINE VARCHAR(64) COLLATE xrpc_name_ci, VERSION INT, ROW_FORMAT VARCHAR(10) COLLATE xrpc_name_ci,
  TABLE_ROWS BIGINT UNSIGNED, AUTO_INCREMENT BIGINT UNSIGNED, TABLE_COLLATION VARCHAR(64) COLLATE xrpc_name_ci,
  CREATE_OPTIONS VARCHAR(256) COLLATE xrpc_name_ci, TABLE_COMMENT TEXT, CREATE_TIME DATETIME);
CREATE VIEW information_schema.TABLES AS SELECT TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE,
  ENGINE, VERSION, ROW_FORMAT,
  CASE WHEN TABLE_TYPE = 'VIEW' THEN NULL ELSE xrpc_table_statistic(TABLE_SCHEMA, TABLE_NAME, 'rows') END AS TABLE_ROWS,
  CASE WHEN TABLE_TYPE = 'VIEW' THEN NULL ELSE xrpc_table_statistic(TABLE_SCHEMA, TABLE_NAME, 'avg_row') END AS AVG_ROW_LENGTH,
  CASE WHEN TABLE_TYPE = 'VIEW' THEN NULL ELSE xrpc_table_statistic(TABLE_SCHEMA, TABLE_NAME, 'data') END AS DATA_LENGTH,
  CASE WHEN TABLE_TYPE = 'VIEW' THEN NULL ELSE 0 END AS MAX_DATA_LENGTH,
  CASE WHEN TABLE_TYPE = 'VIEW' THEN NULL ELSE xrpc_table_statistic(TABLE_SCHEMA, TABLE_NAME, 'index') END AS INDEX_LENGTH,
  CASE WHEN TABLE_TYPE = 'VIEW' THEN NULL ELSE 0 END AS DATA_FREE,
  AUTO_INCREMENT, CREATE_TIME, NULL AS UPDATE_TIME, NULL AS CHECK_TIME,
  TABLE_COLLATION, NULL AS CHECKSUM, CREATE_OPTIONS, TABLE_COMMENT,
  CASE WHEN TABLE_TYPE = 'VIEW' THEN NULL ELSE 0 END AS MAX_INDEX_LENGTH,
  CASE WHEN TABLE_TYPE = 'VIEW' THEN NULL ELSE 'N' END AS TEMPORARY
  FROM xrpc_tables;
CREATE TABLE information_schema.COLUMNS (
  TABLE_CATALOG VARCHAR(64) COLLATE xrpc_name_ci, TABLE_SCHEMA VARCHAR(64) COLLATE xrpc_name, TABLE_NAME VARCHAR(64) COLLATE xrpc_name,
  COLUMN_NAME VARCHAR(64) COLLATE xrpc_name_ci, ORDINAL_POSITION INT UNSIGNED, COLUMN_DEFAULT TEXT,
  IS_NULLABLE VARCHAR(3) COLLATE xrpc_name_ci, DATA_TYPE LONGTEXT, CHARACTER_MAXIMUM_LENGTH BIGINT,
  CHARACTER_OCTET_LENGTH BIGINT, NUMERIC_PRECISION BIGINT UNSIGNED,
  NUMERIC_SCALE BIGINT UNSIGNED, DATETIME_PRECISION INT UNSIGNED,
  CHARACTER_SET_NAME VARCHAR(64) COLLATE xrpc_name_ci, COLLATION_NAME VARCHAR(64) COLLATE xrpc_name_ci, COLUMN_TYPE MEDIUMTEXT,
  COLUMN_KEY VARCHAR(3) COLLATE xrpc_name_ci, EXTRA VARCHAR(256) COLLATE xrpc_name_ci, PRIVILEGES VARCHAR(154) COLLATE xrpc_name_ci, COLUMN_COMMENT TEXT,
  IS_GENERATED VARCHAR(6) COLLATE xrpc_name_ci, GENERATION_EXPRESSION LONGTEXT);
CREATE TABLE information_schema.xrpc_statistics (
  TABLE_CATALOG VARCHAR(64) COLLATE xrpc_name_ci, TABLE_SCHEMA VARCHAR(64) COLLATE xrpc_name, TABLE_NAME VARCHAR(64) COLLATE xrpc_name,
  NON_UNIQUE INT, INDEX_SCHEMA VARCHAR(64) COLLATE xrpc_name, INDEX_NAME VARCHAR(64) COLLATE xrpc_name_ci, SEQ_IN_INDEX INT UNSIGNED,
  COLUMN_NAME VARCHAR(64) COLLATE xrpc_name_ci, COLLATION VARCHAR(1) COLLATE xrpc_name_ci, CARDINALITY BIGINT, SUB_PART BIGINT,
  PACKED VARCHAR(10) COLLATE xrpc_name_ci, NULLABLE VARCHAR(3) COLLATE xrpc_name_ci, INDEX_TYPE VARCHAR(11) COLLATE xrpc_name_ci, COMMENT VARCHAR(8) COLLATE xrpc_name_ci,
  INDEX_COMMENT VARCHAR(2048) COLLATE xrpc_name_ci, IGNORED VARCHAR(3) COLLATE xrpc_name_ci);
CREATE VIEW information_schema.STATISTICS AS SELECT s.TABLE_CATALOG, s.TABLE_SCHEMA, s.TABLE_NAME,
  s.NON_UNIQUE, s.INDEX_SCHEMA, s.INDEX_NAME, s.SEQ_IN_INDEX, s.COLUMN_NAME, s.COLLATION,
  xrpc_index_cardinality(s.TABLE_SCHEMA, s.TABLE_NAME, (SELECT group_concat(p.COLUMN_NAME, char(1)
    ORDER BY p.SEQ_IN_INDEX) FROM xrpc_statistics p WHERE p.TABLE_SCHEMA = s.TABLE_SCHEMA
    AND p.TABLE_NAME = s.TABLE_NAME AND p.INDEX_NAME = s.INDEX_NAME AND p.SEQ_IN_INDEX <= s.SEQ_IN_INDEX))
  AS CARDINALITY, s.SUB_PART, s.PACKED, s.NULLABLE,
  s.INDEX_TYPE, s.COMMENT, s.INDEX_COMMENT, s.IGNORED FROM xrpc_statistics s;
CREATE TABLE information_schema.TABLE_CONSTRAINTS (
  CONSTRAINT_CATALOG VARCHAR(512) COLLATE xrpc_name_ci, CONSTRAINT_SCHEMA VARCHAR(64) COLLATE xrpc_name, CONSTRAINT_NAME VARCHAR(64) COLLATE xrpc_name_ci,
  TABLE_SCHEMA VARCHAR(64) COLLATE xrpc_name, TABLE_NAME VARCHAR(64) COLLATE xrpc_name, CONSTRAINT_TYPE VARCHAR(64) COLLATE xrpc_name_ci);
CREATE TABLE information_schema.CHECK_CONSTRAINTS (
  CONSTRAINT_CATALOG VARCHAR(512) COLLATE xrpc_name_ci, CONSTRAINT_SCHEMA VARCHAR(64) COLLATE xrpc_name,
  TABLE_NAME VARCHAR(64) COLLATE xrpc_name, CONSTRAINT_NAME VARCHAR(64) COLLATE xrpc_name_ci,
  LEVEL VARCHAR(6) COLLATE xrpc_name_ci, CHECK_CLAUSE LONGTEXT);
CREATE TABLE information_schema.KEY_COLUMN_USAGE (
  CONSTRAINT_CATALOG VARCHAR(512) COLLATE xrpc_name_ci, CONSTRAINT_SCHEMA VARCHAR(64) COLLATE xrpc_name, CONSTRAINT_NAME VARCHAR(64) COLLATE xrpc_name_ci,
  TABLE_CATALOG VARCHAR(512) COLLATE xrpc_name_ci, TABLE_SCHEMA VARCHAR(64) COLLATE xrpc_name, TABLE_NAME VARCHAR(64) COLLATE xrpc_name,
  COLUMN_NAME VARCHAR(64) COLLATE xrpc_name_ci, ORDINAL_POSITION BIGINT, POSITION_IN_UNIQUE_CONSTRAINT BIGINT,
  REFERENCED_TABLE_SCHEMA VARCHAR(64) COLLATE xrpc_name, REFERENCED_TABLE_NAME VARCHAR(64) COLLATE xrpc_name, REFERENCED_COLUMN_NAME VARCHAR(64) COLLATE xrpc_name_ci);
CREATE TABLE information_schema.REFERENTIAL_CONSTRAINTS (
  CONSTRAINT_CATALOG VARCHAR(512) COLLATE xrpc_name_ci, CONSTRAINT_SCHEMA VARCHAR(64) COLLATE xrpc_name, CONSTRAINT_NAME VARCHAR(64) COLLATE xrpc_name_ci,
  UNIQUE_CONSTRAINT_CATALOG VARCHAR(512) COLLATE xrpc_name_ci, UNIQUE_CONSTRAINT_SCHEMA VARCHAR(64) COLLATE xrpc_name,
  UNIQUE_CONSTRAINT_NAME VARCHAR(64) COLLATE xrpc_name_ci, MATCH_OPTION VARCHAR(64) COLLATE xrpc_name_ci,
  UPDATE_RULE VARCHAR(64) COLLATE xrpc_name_ci, DELETE_RULE VARCHAR(64) COLLATE xrpc_name_ci, TABLE_NAME VARCHAR(64) COLLATE xrpc_name,
  REFERENCED_TABLE_NAME VARCHAR(64) COLLATE xrpc_name);
CREATE TABLE information_schema.FILES (
  FILE_ID BIGINT NOT NULL, FILE_NAME VARCHAR(512) COLLATE xrpc_name_ci, FILE_TYPE VARCHAR(20) COLLATE xrpc_name_ci NOT NULL,
  TABLESPACE_NAME VARCHAR(64) COLLATE xrpc_name_ci, TABLE_CATALOG VARCHAR(64) COLLATE xrpc_name_ci NOT NULL,
  TABLE_SCHEMA VARCHAR(64) COLLATE xrpc_name, TABLE_NAME VARCHAR(64) COLLATE xrpc_name,
  LOGFILE_GROUP_NAME VARCHAR(64) COLLATE xrpc_name_ci, LOGFILE_GROUP_NUMBER BIGINT, ENGINE VARCHAR(64) COLLATE xrpc_name_ci NOT NULL,
  FULLTEXT_KEYS VARCHAR(64) COLLATE xrpc_name_ci, DELETED_ROWS BIGINT, UPDATE_COUNT BIGINT, FREE_EXTENTS BIGINT,
  TOTAL_EXTENTS BIGINT, EXTENT_SIZE BIGINT NOT NULL, INITIAL_SIZE BIGINT UNSIGNED, MAXIMUM_SIZE BIGINT UNSIGNED,
  AUTOEXTEND_SIZE BIGINT UNSIGNED, CREATION_TIME DATETIME, LAST_UPDATE_TIME DATETIME, LAST_ACCESS_TIME DATETIME,
  RECOVER_TIME BIGINT, TRANSACTION_COUNTER BIGINT, VERSION BIGINT UNSIGNED, ROW_FORMAT VARCHAR(10) COLLATE xrpc_name_ci,
  TABLE_ROWS BIGINT UNSIGNED, AVG_ROW_LENGTH BIGINT UNSIGNED, DATA_LENGTH BIGINT UNSIGNED,
  MAX_DATA_LENGTH BIGINT UNSIGNED, INDEX_LENGTH BIGINT UNSIGNED, DATA_FREE BIGINT UNSIGNED, CREATE_TIME DATETIME,
  UPDATE_TIME DATETIME, CHECK_TIME DATETIME, CHECKSUM BIGINT UNSIGNED, STATUS VARCHAR(20) COLLATE xrpc_name_ci NOT NULL,
  EXTRA VARCHAR(255) COLLATE xrpc_name_ci);
CREATE VIEW information_schema.VIEWS AS SELECT TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME,
  my_unsupported('information_schema.VIEWS.VIEW_DEFINITION') AS VIEW_DEFINITION,
  'NONE' AS CHECK_OPTION,
  my_unsupported('information_schema.VIEWS.IS_UPDATABLE') AS IS_UPDATABLE,
  my_unsupported('information_schema.VIEWS.DEFINER') AS DEFINER,
  my_unsupported('information_schema.VIEWS.SECURITY_TYPE') AS SECURITY_TYPE,
  'utf8mb4' AS CHARACTER_SET_CLIENT, 'utf8mb4_general_ci' AS COLLATION_CONNECTION,
  my_unsupported('information_schema.VIEWS.ALGORITHM') AS ALGORITHM
  FROM TABLES WHERE TABLE_TYPE = 'VIEW';
";

/// The columns of the views of [`INFORMATION_SCHEMA_DDL`], as MySQL column definitions.
const VIEW_COLUMNS: &[(&str, &str)] = &[
    (
        "TABLES",
        "TABLE_CATALOG VARCHAR(64), TABLE_SCHEMA VARCHAR(64) COLLATE xrpc_name, \
         TABLE_NAME VARCHAR(64) COLLATE xrpc_name, TABLE_TYPE VARCHAR(64), ENGINE VARCHAR(64), \
         VERSION INT, ROW_FORMAT VARCHAR(10), TABLE_ROWS BIGINT UNSIGNED, \
         AVG_ROW_LENGTH BIGINT UNSIGNED, DATA_LENGTH BIGINT UNSIGNED, \
         MAX_DATA_LENGTH BIGINT UNSIGNED, INDEX_LENGTH BIGINT UNSIGNED, \
         DATA_FREE BIGINT UNSIGNED, AUTO_INCREMENT BIGINT UNSIGNED, CREATE_TIME DATETIME, \
         UPDATE_TIME DATETIME, CHECK_TIME DATETIME, TABLE_COLLATION VARCHAR(64), \
         CHECKSUM BIGINT UNSIGNED, CREATE_OPTIONS VARCHAR(256), TABLE_COMMENT TEXT, \
         MAX_INDEX_LENGTH BIGINT UNSIGNED, TEMPORARY VARCHAR(1)",
    ),
    (
        "STATISTICS",
        "TABLE_CATALOG VARCHAR(64), TABLE_SCHEMA VARCHAR(64) COLLATE xrpc_name, \
         TABLE_NAME VARCHAR(64) COLLATE xrpc_name, NON_UNIQUE INT, \
         INDEX_SCHEMA VARCHAR(64) COLLATE xrpc_name, INDEX_NAME VARCHAR(64), \
         SEQ_IN_INDEX INT UNSIGNED, COLUMN_NAME VARCHAR(64), COLLATION VARCHAR(1), \
         CARDINALITY BIGINT, SUB_PART BIGINT, PACKED VARCHAR(10), NULLABLE VARCHAR(3), \
         INDEX_TYPE VARCHAR(11), COMMENT VARCHAR(8), INDEX_COMMENT VARCHAR(2048), \
         IGNORED VARCHAR(3)",
    ),
    (
        "VIEWS",
        "TABLE_CATALOG VARCHAR(64), TABLE_SCHEMA VARCHAR(64) COLLATE xrpc_name, \
         TABLE_NAME VARCHAR(64) COLLATE xrpc_name, VIEW_DEFINITION LONGTEXT, \
         CHECK_OPTION VARCHAR(8), IS_UPDATABLE VARCHAR(3), DEFINER VARCHAR(384), \
         SECURITY_TYPE VARCHAR(7), CHARACTER_SET_CLIENT VARCHAR(32), \
         COLLATION_CONNECTION VARCHAR(64), ALGORITHM VARCHAR(10)",
    ),
];

/// The table `name` of `information_schema` (any case), or `None` when MySQL's has it and the
/// node does not, or it is the node's own.
pub(crate) fn table(name: &str) -> Option<Table> {
    static TABLES: OnceLock<HashMap<String, Table>> = OnceLock::new();
    TABLES
        .get_or_init(|| {
            definitions()
                .into_iter()
                .map(|(name, columns)| (name.to_ascii_uppercase(), read(&name, &columns)))
                .collect()
        })
        .get(&name.to_ascii_uppercase())
        .cloned()
}

/// Every table's name and MySQL column definitions (with the node's `COLLATE` names): the
/// DDL's tables but the node's own, and the views.
fn definitions() -> Vec<(String, String)> {
    let prefix = format!("CREATE TABLE {INFORMATION_SCHEMA}.");
    let mut tables: Vec<(String, String)> = INFORMATION_SCHEMA_DDL
        .split(';')
        .filter_map(|statement| {
            let statement = statement.trim().strip_prefix(&prefix)?;
            let (name, columns) = statement.split_once('(')?;
            let columns = columns.trim_end().strip_suffix(')')?;
            Some((name.trim().to_owned(), columns.to_owned()))
        })
        .filter(|(name, _)| !name.starts_with("xrpc_"))
        .collect();
    tables.extend(
        VIEW_COLUMNS
            .iter()
            .map(|(name, columns)| ((*name).to_owned(), (*columns).to_owned())),
    );
    tables
}

/// One table's definition, read by the translation as the CREATE TABLE it is in MySQL (the
/// collations taken out first, then put back on the columns).
fn read(name: &str, columns: &str) -> Table {
    let plain: Vec<String> = columns
        .split(',')
        .map(|column| {
            column
                .trim()
                .replace(&format!(" COLLATE {CI_NAME_COLLATION}"), "")
                .replace(&format!(" COLLATE {NAME_COLLATION}"), "")
        })
        .collect();
    let sql = format!("CREATE TABLE `{name}` ({})", plain.join(", "));
    let parsed = xrpc_sql::parse_one_statement(&sql, &xrpc_sql::Options::default())
        .unwrap_or_else(|err| panic!("information_schema.{name} reads as MySQL: {err}"));
    let statement = parsed.statement().expect("a CREATE TABLE statement");
    let catalog = MemoryCatalog::new(Some(INFORMATION_SCHEMA));
    let translation = xrpc_sql_sqlite::translate(statement, &catalog)
        .unwrap_or_else(|err| panic!("information_schema.{name} translates: {err}"));
    let Some(CatalogChange::Create(mut table)) = translation.change else {
        panic!("information_schema.{name}: a CREATE TABLE creates a table");
    };
    for column in &mut table.columns {
        if looked_up_by(&column.name)
            && let ColumnType::VarChar { collation, .. } | ColumnType::Char { collation, .. } =
                &mut column.ty
        {
            *collation = Collation::Name;
        }
    }
    table
}

/// Whether a WHERE that asks for one value of column `column` finds the table's rows by it
/// byte for byte, as MariaDB opens a table by its name: `TABLE_NAME`. MariaDB finds
/// databases so too (`TABLE_SCHEMA`, `SCHEMA_NAME`, …), but the node keeps database names in
/// lower case, as MariaDB does with `lower_case_table_names` 1, where it finds them without
/// regard to case: a database asked for by the name it was created with is found. The other
/// names (`INDEX_SCHEMA`, `REFERENCED_TABLE_NAME`, …) compare as any `utf8mb3_general_ci`
/// text.
fn looked_up_by(column: &str) -> bool {
    column.eq_ignore_ascii_case("TABLE_NAME")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalog_table_and_view_reads_with_table_names_of_their_own_collation() {
        let expected = [
            ("SCHEMATA", 5),
            ("TABLES", 23),
            ("COLUMNS", 22),
            ("STATISTICS", 17),
            ("TABLE_CONSTRAINTS", 6),
            ("CHECK_CONSTRAINTS", 6),
            ("KEY_COLUMN_USAGE", 12),
            ("REFERENTIAL_CONSTRAINTS", 11),
            ("FILES", 38),
            ("VIEWS", 11),
        ];
        for (name, columns) in expected {
            let table = table(&name.to_ascii_lowercase()).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(table.columns.len(), columns, "{name}");
            for column in &table.columns {
                let ColumnType::VarChar { collation, .. } = column.ty else {
                    continue;
                };
                let expected = if column.name == "TABLE_NAME" {
                    Collation::Name
                } else {
                    Collation::Ci
                };
                assert_eq!(collation, expected, "{name}.{}", column.name);
            }
        }
        assert!(table("xrpc_tables").is_none());
        assert!(table("PROCESSLIST").is_none());
    }
}
