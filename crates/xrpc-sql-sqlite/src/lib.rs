//! MySQL on SQLite: translation of statements parsed by `xrpc-sql` into SQLite SQL, and
//! MySQL's function library as SQLite functions.
//!
//! # Design
//!
//! **Parse once, bind, translate from the tree.** The caller parses a statement's text once
//! (`xrpc_sql::parse`) and caches the [`Translation`] by text, so a repeated statement, or one
//! with `?` arguments, costs nothing new. [`translate`] resolves every name against a
//! [`Catalog`] (tables, columns with their MySQL types), so each expression has a MySQL type
//! ([`Ty`]); the type decides the SQL emitted for the operators around it and the text a client
//! receives for a result column ([`text_of`]). Nothing here looks at statement text.
//!
//! **MySQL's answer or MySQL's error.** What the translation does not cover is refused with the
//! error MySQL gives for an unsupported feature ([`TranslateError::Unsupported`], 1235, naming
//! the construct); an unknown function is 1305; a text that does not parse is the front end's
//! 1064. A translation that would give a different value without an error is a defect; the
//! differential corpus (tests/corpus.rs against a real MariaDB) fails the build on one.
//!
//! **Values in SQLite.** Integers are INTEGER, DOUBLE is REAL, text is TEXT under a registered
//! collation, dates and times are TEXT in MySQL's formats, and DECIMAL is exact TEXT with the
//! column's scale (ordered by the `mysql_decimal` collation). The rules that differ from
//! SQLite's:
//!
//! - Text compares under `utf8mb4_general_ci` (case- and accent-insensitive, trailing spaces
//!   ignored) unless a column or `COLLATE` says `_bin`/`BINARY`; text columns are declared with
//!   the collation, and comparisons, ORDER BY, GROUP BY, DISTINCT, MIN/MAX, LIKE, REGEXP,
//!   LOCATE, FIND_IN_SET and FIELD follow it (coercibility: explicit, column, literal).
//! - `+ - *` of integers fail on BIGINT overflow (1690); any DECIMAL operand makes the result
//!   exact DECIMAL (scale: the larger for `+ -`, the sum for `*`, the dividend's plus four for
//!   `/`); `/` of integers is DECIMAL; `DIV` truncates; `MOD`/`%` keep the dividend's sign; a
//!   zero divisor is NULL with warning 1365 ([`take_warnings`]), or error 1365 in a write. Strings in arithmetic are DOUBLE.
//! - Comparisons convert as MySQL does: integers and decimals exactly, a number with a string
//!   as DOUBLEs, dates with strings as dates; `<=>` is NULL-safe; `||` is OR. Rows compare
//!   member by member, an order comparison at the first pair that differs (one with a `?`
//!   argument is refused, as its members would be repeated).
//! - SUM and AVG of integers and DECIMAL are exact (AVG with four more digits); of DOUBLE they
//!   add in row order.
//! - Writes convert each value to its column's type as strict mode does (1366, 1265, 1264,
//!   1406, 1292), or adjust it under INSERT IGNORE; an UPDATE counts the rows it changed.
//!
//! - INSERT … ON DUPLICATE KEY UPDATE is SQLite's UPSERT with `VALUES(c)` as `excluded.c`
//!   (and so MySQL 8's row alias, `VALUES (…) AS new … UPDATE c = new.c`; column aliases after
//!   it are refused); a
//!   row updated with new values counts twice ([`Affected::ChangesPlusUpserts`]). A
//!   single-table UPDATE's later assignments read the earlier ones' new values, as MySQL's do,
//!   and it counts only the rows whose values change. INSERT
//!   IGNORE keeps MySQL's implicit defaults for NOT NULL columns. An insert of a known row
//!   count reserves its auto-increment values as InnoDB does ([`Reservation`]). UPDATE and
//!   DELETE with ORDER BY/LIMIT select their rows by rowid; `UPDATE a JOIN b` is SQLite's
//!   `UPDATE … FROM` (its assignments all read the old values, as MariaDB's do; one that may
//!   read a column assigned before it, which MySQL leaves unordered, is 1235), `DELETE a FROM a JOIN b` a rowid subquery, and so is `DELETE a, b FROM
//!   t a, t b` whose targets are one table (the rows chosen before any is deleted).
//! - **Databases.** Each MySQL database is a SQLite database attached under the schema name
//!   [`Catalog::sqlite_schema`] gives; every table a translation names is emitted with it,
//!   in the database the statement names or else the current one (no current database is
//!   1046; a table created in a database the catalog does not have, 1049). SQLite's own rules follow: an index is created as `"schema"."t.name" ON "t"`, a
//!   trigger in its table's database with unqualified names inside, and a foreign key's parent
//!   is in the child's database (an unqualified parent is resolved there, as MySQL does; one in
//!   another database is 1235, as is a RENAME that would move a table to another database).
//! - **Result metadata.** A select item that names a table column (directly, through `*`, a
//!   derived table or a common table expression) carries its [`Origin`]: database, table
//!   alias and name, column name and the flags of its declaration ([`ColumnFlags`]: NOT NULL,
//!   PRIMARY KEY, UNIQUE KEY, MULTIPLE KEY, AUTO_INCREMENT, UNSIGNED), which the catalog's
//!   primary key and index columns give. The catalog types serialize (serde) so an engine can
//!   keep them.
//! - DDL keeps table options, comments and index names in the catalog ([`CatalogChange`]);
//!   inline KEY/INDEX/UNIQUE become `CREATE INDEX "table.name"` (a plain key on a column prefix
//!   `c(n)` indexes the whole column, the prefix kept for the catalog's descriptions,
//!   [`Index::prefixes`]); the AUTO_INCREMENT column is SQLite's `INTEGER PRIMARY
//!   KEY AUTOINCREMENT`, and a 0 for it takes the next id unless the session's sql_mode has
//!   NO_AUTO_VALUE_ON_ZERO (as a dump's header sets, [`Catalog::system_variable`]);
//!   `ON UPDATE CURRENT_TIMESTAMP` is a trigger; `DEFAULT` and `ON UPDATE CURRENT_TIMESTAMP(n)`
//!   (or `NOW(n)`) store SQLite's current time with the column's n fraction digits (SQLite
//!   keeps milliseconds, so digits past the third are 0; another n than the column's is 1235);
//!   TRUNCATE empties the table
//!   and its sequence. The index a foreign key makes for itself
//!   (when no other key starts with its columns) is InnoDB's generated index: a later index
//!   that serves the key replaces it ([`Index::generated`]), and ALTER TABLE … DROP FOREIGN
//!   KEY keeps it. A foreign key keeps the text SHOW CREATE TABLE gives it
//!   ([`Table::foreign_keys_shown`]: its name, else InnoDB's `table_ibfk_n`) and makes an index
//!   only where no other key starts with its columns, as InnoDB does. JSON is MariaDB's:
//!   LONGTEXT in `utf8mb4_bin` with a `json_valid` CHECK named `table.column` (in CREATE
//!   TABLE only). `DEFAULT TRUE`/`FALSE` are 1 and 0; INTEGER is declared INT. `ALTER TABLE …
//!   ADD/DROP PRIMARY KEY` builds the table again with the new key (its columns made NOT NULL;
//!   0 rows affected for ADD, which InnoDB does in place, every row for DROP, which it copies).
//!   `ALTER TABLE … MODIFY/CHANGE COLUMN` builds the table again from the
//!   catalog's definition (create under a temporary name, copy converting the column as strict
//!   mode does, move the sequence, drop, rename, recreate indexes and triggers) and counts the
//!   rows copied where MySQL copies the table (a NULL left in a column made NOT NULL is
//!   1265 at its row); so does `ADD COLUMN … FIRST/AFTER`, which MySQL does in place (no
//!   rows counted; a table's CHECK constraints go with it). `ALTER COLUMN … SET DEFAULT | DROP DEFAULT` and `ADD [CONSTRAINT]
//!   FOREIGN KEY` build the table again the same way with the rows as they are (a nullable
//!   column without a default then defaults to NULL, as in MariaDB). A table other tables'
//!   foreign keys reference is built again with foreign key enforcement suspended, as SQLite's
//!   own rebuild procedure does (its DROP TABLE would otherwise act on their rows), copying
//!   unchanged every column those keys reference and its own foreign key columns (a change to
//!   one of them, and ADD FOREIGN KEY to such a table, is 1235). Several changes in one ALTER TABLE run in order, all or nothing
//!   (the engine runs a DDL translation in a savepoint), counting the rows copied when one of
//!   them copies the table. CHECK constraints (column or table) are SQLite
//!   CHECKs of `my_check_constraint`, which fails with MariaDB's 4025 when the condition is
//!   false (NULL passes), named as MariaDB names them (a column's by the column, shown
//!   `table.column`; an unnamed table check `CONSTRAINT_n`) and checked in MariaDB's order (the
//!   columns' in column order, then the table's); after RENAME TABLE the error still shows the
//!   old table name. NOT ENFORCED ones are not kept. LOCK TABLES and UNLOCK TABLES have nothing to do (SQLite's one writer).
//!   `CREATE TABLE t LIKE s` copies the catalog's definition without foreign keys or the
//!   AUTO_INCREMENT counter (a source with CHECKs is 1235); `CREATE TABLE t AS SELECT` takes
//!   the declarations of one table's plain columns (a join, union or computed column is 1235)
//!   and inserts the rows in the same statement. `CREATE TEMPORARY TABLE` (each of the three
//!   forms) makes a table in SQLite's `temp` schema, which [`Catalog::table`] finds before the
//!   database's table of its name; `DROP TEMPORARY TABLE` drops only such a table.
//! - **Views.** `CREATE [OR REPLACE] VIEW v [(columns)] AS SELECT …` and `ALTER VIEW` translate
//!   the SELECT at once (a missing table is 1146, a temporary one 1352, a user variable 1351, a
//!   column list of another length 1353, two columns of one name 1060, a view that would read
//!   itself 1146 for it) and keep it in the catalog as a [`Table`] with a [`View`]: the SELECT's
//!   MySQL text, the database its unqualified names are in, the names of the columns it gave
//!   (generated names made unique as MySQL makes them, the `view_names` module) and their types
//!   (MariaDB's derived types where the `view_types` module knows them). A statement that names the view translates the kept SELECT again as a derived
//!   table, in the view's database and seeing no temporary table (as MySQL opens a view's tables
//!   anew each time), and takes the columns it gave at creation by name under the view's names.
//!   Expanding rather than emitting a SQLite view keeps every column's MySQL type exact (a
//!   DECIMAL column sums as DECIMAL, a text column compares under its collation), which a SQLite
//!   view would lose for expressions, and lets a view read other databases' tables, which a
//!   SQLite view outside `temp` may not; a table or column gone since is MySQL's 1356. SQLite holds
//!   a stand-in view of the name (its schema version tells engines the definitions changed),
//!   which fails with 1235 if SQL that is not translated reads it. DROP VIEW (4092 for a missing
//!   one), RENAME TABLE of a view, and MySQL's errors for a view where a table must be (DROP
//!   TABLE 1965, ALTER TABLE and CREATE INDEX 1347, TRUNCATE 1146) follow MySQL; ALGORITHM
//!   (TEMPTABLE makes the view one not written through; MERGE of a SELECT MySQL cannot merge is
//!   1235) and SQL SECURITY are accepted, DEFINER only as CURRENT_USER. INSERT, REPLACE, UPDATE
//!   and DELETE of a view of one table's columns and expressions of them, or of such a view, run
//!   on the table within the views' WHEREs; UPDATE and INSERT of a view of an inner join run on
//!   the one table whose columns they name; a view MySQL cannot write through is its 1288 or
//!   1471 (see the `through` module); other writes through views are 1235.
//! - An ENUM column holds its member's declared text; a write takes a member by its text
//!   (under the column's collation) or by its index from 1, anything else 1265 (or '' under
//!   IGNORE), and a NOT NULL one without DEFAULT defaults to its first member. MySQL sorts and
//!   computes with the member's index, so an ENUM column is read only where its text is what
//!   MySQL reads: a select item of the statement's own query, a comparison or IN with string
//!   literals, LIKE a string literal, IS NULL, GROUP BY, MIN and MAX (which compare its text),
//!   COUNT, GROUP_CONCAT (with DISTINCT only with an ORDER BY, as DISTINCT alone lists by
//!   index), the string functions' string arguments (CONCAT, CONCAT_WS, UPPER, LENGTH, LEFT,
//!   REPLACE, LOCATE, …), COALESCE, IFNULL and IF's results, a simple CASE whose WHENs are
//!   string literals and FIELD with string literals; ORDER BY sorts the column itself by index
//!   (an expression containing it sorts as its own type). Elsewhere (arithmetic, other
//!   functions, derived tables, unions, ORDER BY its position or alias) it is 1235. Two such
//!   columns of one type may be compared.
//! - A BIT(n) column (n from 1 to 63) holds its number and is sent as MySQL's BIT. A write
//!   stores a number (rounded half up) or a string's bytes read as a big-endian number, as
//!   MySQL does, and is 1406 past n bits in strict mode; `b'101'` is the binary string of its
//!   bits. The column is read where MySQL reads it as a number (arithmetic, comparisons with
//!   numbers, IS NULL, SUM, AVG, COUNT, HEX, BIN), sent as a select item, sorted and grouped;
//!   anywhere else (a string function, MIN or MAX, a comparison with a string) MySQL reads it
//!   as a binary string, and it is refused. DESCRIBE and SHOW CREATE TABLE show its default as
//!   MariaDB does (`b'0'`).
//! - The bit operators `& | ^ << >> ~` and BIT_COUNT compute on integers' 64 bits as MySQL's
//!   unsigned BIGINT (a result past BIGINT, such as `~0`, is 1235 unless another bit operator
//!   takes it, as in `~0 & 255`; operands of other types are 1235). A LIMIT or OFFSET past
//!   BIGINT (MySQL's documented "every row", 18446744073709551615) reads as every row. An IN
//!   subquery with a LIMIT is MySQL's own 1235 (`LIMIT & IN/ALL/ANY/SOME subquery`).
//! - A YEAR column holds the year as MySQL reads it (1 to 69 are 2001 to 2069, 70 to 99 are
//!   1970 to 1999, `'0'` and `'00'` 2000, 1901 to 2155 themselves; 1264 otherwise in strict
//!   mode) and is read as that integer; it is sent as MySQL's YEAR.
//! - A SET column holds its members' declared texts in declaration order, joined by commas;
//!   a write names members in a comma-separated text (each once, under the column's
//!   collation) or by a bit mask, an unknown one 1265 (left out under IGNORE). It is read
//!   where an ENUM is and as FIND_IN_SET's list; ORDER BY sorts it by its bit mask.
//! - A TIME(n) column holds MySQL's text of the value with its n fraction digits, from
//!   -838:59:59 to 838:59:59, under the `mysql_time` collation, which orders texts as the
//!   durations they are (indexes, ORDER BY, comparisons with another TIME or with a string
//!   literal that reads as a TIME). A write reads MySQL's forms (`HH:MM[:SS][.f]`,
//!   `D HH:MM:SS`, `HHMMSS`, a datetime's time of day), rounds the fraction to n digits as
//!   MySQL does (MariaDB truncates), and is 1292 otherwise, or out of range, in strict mode.
//!   It is read in the same places as an ENUM, and as the argument of HOUR, MINUTE, SECOND,
//!   MICROSECOND, TIME_TO_SEC, TIME_FORMAT, ADDTIME and SUBTIME (these two of a DATETIME or a
//!   TIME by whole seconds; a fraction is 1235); TIME_FORMAT writes it as MariaDB does (hours
//!   past 23 as they are for `%H %k %T`, the 12-hour specifiers of the hour of the day, a negative
//!   time's sign once in front, NULL for a pattern with a date specifier). TIME(), CAST AS
//!   TIME, SEC_TO_TIME, MAKETIME and TIMEDIFF give TIME values in the same range (others are
//!   1235); those functions read a string as a TIME first, as MySQL does (`HOUR('10:30:00')`
//!   is 10). PERIOD_ADD and PERIOD_DIFF read `YYMM`/`YYYYMM` periods as MySQL does (a period
//!   whose month part is not 1 to 12 is 1235: MySQL 8 refuses it, MariaDB carries it over).
//! - REPLACE is SQLite's `INSERT OR REPLACE` (row at a time, as MySQL deletes and inserts);
//!   its affected rows, one per inserted and one per deleted row, come from the table's row
//!   count before and after it, and NULL into a NOT NULL column is 1048 where SQLite would
//!   store the default.
//! - JSON documents are text (see the `json` module): JSON_EXTRACT, JSON_UNQUOTE,
//!   JSON_OBJECT, JSON_ARRAY, JSON_LENGTH, JSON_VALID, JSON_TYPE, JSON_KEYS, JSON_CONTAINS,
//!   JSON_CONTAINS_PATH, JSON_SET, JSON_INSERT, JSON_REPLACE, JSON_REMOVE, JSON_MERGE_PATCH,
//!   JSON_QUOTE, JSON_SEARCH, `->` and `->>`, printed with MariaDB's spacing (a changed
//!   document is printed whole that way); a truth value placed in a document (a comparison,
//!   JSON_CONTAINS, JSON_VALID) is `true`/`false`, and a JSON value read as a condition is
//!   the number it holds (a string's numeric prefix, `true` 1).
//! - Dates with zero parts (`0000-00-00`, `2020-00-10`), which MySQL's default SQL mode
//!   accepts, are stored and read as it does: DATE, CAST, YEAR, MONTH, DAY, QUARTER, EXTRACT,
//!   comparisons, GREATEST/LEAST and DATE_FORMAT's numeric specifiers read their parts; the
//!   functions of a calendar day (DAYNAME, DATE_ADD, DATEDIFF, WEEK, …) give NULL, as MySQL
//!   does; DATE_FORMAT's calendar specifiers of one are 1235 (of the zero date, the weekday,
//!   month-name and day-of-year ones are NULL, as MariaDB gives). A date that does not exist
//!   (`2020-02-30`) is 1292 in a strict write and NULL in a function, but STR_TO_DATE returns
//!   its fields as read (each within its range, else NULL with warning 1411), as MariaDB does.
//! - DATE_ADD, DATE_SUB and `+ INTERVAL` take MySQL's compound units (`'1:30' HOUR_MINUTE`,
//!   `'1-2' YEAR_MONTH`, …), whose text is read as MySQL reads it when the statement runs;
//!   EXTRACT takes them too, and reads a value as a datetime or a TIME as MySQL does for its
//!   units of a day or shorter (`EXTRACT(HOUR FROM '30:00:00')` is 6).
//! - `GROUP BY … WITH ROLLUP` is the UNION ALL of its grouping levels in MySQL's order (see
//!   the `rollup` module); with ORDER BY it is MySQL's 1221.
//! - The previous statement's counts come from the engine, which reports them after each
//!   statement to the [`SessionState`]: ROW_COUNT(), FOUND_ROWS() (for `SQL_CALC_FOUND_ROWS`
//!   the engine runs [`Translation::found_rows`]), LAST_INSERT_ID(). `SELECT … INTO @a` gives
//!   the engine the variables to set from the query's one row ([`Translation::into`]).
//! - A recursive common table expression (one SELECT, UNION or UNION ALL, one SELECT naming it) is
//!   SQLite's: its columns take the types of the first member's items (a table column's
//!   declaration; an integer literal INT, or BIGINT past nine digits; a string literal
//!   VARCHAR of its length), and every row of the recursive member is stored into them as a
//!   strict-mode write is, so a value out of range is 1264, one too long 1406, and a DECIMAL
//!   step of an integer column rounds, at each step, as in MySQL. There is no recursion limit
//!   (MariaDB's `max_recursive_iterations` is unbounded by default). The current database,
//!   `DATABASE()`, is the translation's literal (a translation is kept per database);
//!   `CONNECTION_ID()` and `VERSION()` read what the engine sets in the [`SessionState`].
//! - A quotient keeps MySQL's internal digits (the dividend's scale plus four, rounded up to
//!   whole 9-digit words, truncated) through further arithmetic and AVG; the comparison
//!   operators read it at its scale, BETWEEN and `CASE x WHEN` as computed, as MySQL does.
//!
//! Refused with 1235 (the message names the construct), among others: DOUBLE rounded to
//! decimals (MySQL prints it with fixed decimals), window frames and named windows,
//! PERCENT_RANK and CUME_DIST (MySQL and MariaDB print their DOUBLE differently), LAG and LEAD
//! with a default value (the window functions translated are ROW_NUMBER, RANK, DENSE_RANK,
//! the aggregates, LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE and NTILE), arithmetic mixing a DECIMAL with a user
//! variable, INSERT IGNORE or ON DUPLICATE KEY UPDATE of several rows into an AUTO_INCREMENT
//! table with an ON UPDATE CURRENT_TIMESTAMP column whose trigger does not read
//! `my_renumbering()` (`Catalog::on_update_skips_renumbering`: numbering the inserted rows as
//! InnoDB does is an UPDATE, which would fire it), an ENUM, SET or TIME column anywhere but
//! where MySQL reads its text or sorts it (see below), TIME values computed by functions that
//! are negative, past 99:59:59 or with a fraction of a second, INSERT IGNORE into a table with
//! CHECK constraints (MySQL skips the failing row), ALTER TABLE adding or dropping a CHECK, a
//! recursive CTE whose first member's column is neither a table column nor a literal, comparisons of dates with numbers, MODIFY/CHANGE COLUMN of a column other
//! tables' foreign keys reference (or of a foreign key column of a table they reference),
//! or changing its keys or AUTO_INCREMENT, DELETE from several
//! different tables, a UNIQUE key on a column prefix, the JSON functions not listed above
//! (JSON_MERGE, JSON_ARRAYAGG, …), a JSON value in a comparison or arithmetic (but a JSON
//! number with a number, which MySQL and MariaDB both read as the number), CAST, SUM or AVG
//! (MySQL reads a JSON scalar there unquoted), JSON paths with `**`, `last`, ranges or negative
//! indexes, a JSON column added or changed by ALTER TABLE, ALTER COLUMN of the AUTO_INCREMENT column, the year 0000
//! (MySQL shows it with four digits), BIT(64), a BIT column where MySQL reads it as a binary string (see above), a
//! hexadecimal or bit-value literal in arithmetic, beside a number or as a result (MySQL reads
//! `0x41 + 1` as 66, MariaDB `X'41' + 1` as 1, and the parse tree holds both alike), a
//! generated column whose expression has no printed form MariaDB's (`shown`), one added by ALTER
//! TABLE, or a column change of a table with one (generated columns are SQLite's STORED ones,
//! computed when the row is written), CAST AS UNSIGNED past BIGINT, DOUBLE and FLOAT UNSIGNED,
//! BIGINT UNSIGNED values past 9223372036854775807 (SQLite's
//! integers are signed), STR_TO_DATE of a format with names or without a whole
//! date (or of `%Y` with other than four digits), LAST_INSERT_ID(expr) of a negative value, and
//! ROW_COUNT()/FOUND_ROWS()/LAST_INSERT_ID() on a connection whose engine does not report the
//! counts.
//!
//! [`register`] installs the collations, the `my_` functions and the aggregates on a
//! connection; runtime errors come back as [`FnError`] through [`error_of`].

mod collation;
mod dates;
mod error;
mod expr;
mod from;
mod functions;
mod json;
mod library;
mod mergeable;
mod rollup;
mod shown;
mod through;
mod translate;
mod typed;
mod types;
mod value;
mod view_names;
mod view_types;

use std::collections::BTreeMap;

pub use collation::compare_names;
pub use error::TranslateError;
pub use functions::{
    FnError, FnWarning, SessionState, error_of, raise_warning, register, take_warnings,
};
pub use types::{
    ArgClass, BIN_COLLATION, CI_COLLATION, Catalog, Collation, Column, ColumnFlags, ColumnType,
    DECIMAL_COLLATION, Generated, Index, NAME_COLLATION, ShownCheck, SystemValue, TEMP_SCHEMA,
    Table, Ty, View,
};
pub use value::{Level, text_of, variable_value};

use sqlparser::ast::Statement;

/// A result column: its name and MySQL type, and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutColumn {
    /// The column's name as MySQL shows it.
    pub name: String,
    /// Its type (decides the text of its values, [`text_of`]).
    pub ty: Ty,
    /// The table column it is, for a select item that names one (directly, or a column of a
    /// derived table or common table expression that is one); `None` for an expression.
    pub origin: Option<Origin>,
    /// An UNSIGNED integer (CAST AS UNSIGNED, arithmetic on UNSIGNED values): MySQL sends it
    /// with the UNSIGNED flag. A table column's own flag is its origin's.
    pub unsigned: bool,
}

impl OutColumn {
    /// A computed column (no table column behind it).
    pub(crate) fn computed(name: String, ty: Ty) -> Self {
        Self {
            name,
            ty,
            origin: None,
            unsigned: false,
        }
    }
}

/// The table column behind a result column, as MySQL's result metadata describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The MySQL database of the table.
    pub database: String,
    /// The name the query refers to the table by (its alias, or its name).
    pub table: String,
    /// The table's name.
    pub original_table: String,
    /// The column's name as declared.
    pub column: String,
    /// The flags of the column's declaration.
    pub flags: ColumnFlags,
}

/// How to count a statement's affected rows from SQLite's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Affected {
    /// A query: no count.
    None,
    /// SQLite's `changes()` of the last statement.
    Changes,
    /// `changes()` plus the rows an upsert updated ([`SessionState::take_upsert_updates`]).
    ChangesPlusUpserts,
    /// Zero (DDL, TRUNCATE).
    Zero,
}

/// What a DDL statement changed in the catalog, for the engine to keep. A [`Table`] names its
/// database ([`Table::database`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogChange {
    /// A new table.
    Create(Table),
    /// A table's new definition.
    Replace(Table),
    /// A table dropped.
    Drop {
        /// Its database.
        database: String,
        /// Its name.
        table: String,
        /// A temporary table.
        temporary: bool,
    },
    /// A table renamed (within its database).
    Rename {
        /// Its database.
        database: String,
        /// The old name.
        from: String,
        /// The new name.
        to: String,
    },
    /// Several changes in order.
    Several(Vec<CatalogChange>),
}

/// Between a column's name and its row in the names the translation gives the function
/// library's store functions (see `functions::with_row`).
pub(crate) const ROW_MARK: char = '\u{1f}';

/// A statement translated to SQLite.
#[derive(Debug, Clone, PartialEq)]
pub struct Translation {
    /// SQLite statements to run in order; the last gives the result rows or affected rows.
    pub sql: Vec<String>,
    /// The result columns of a query.
    pub columns: Vec<OutColumn>,
    /// How to count affected rows.
    pub affected: Affected,
    /// What a DDL statement changed in the catalog. A DDL translation's statements run all or
    /// nothing (the engine runs them in a savepoint): a change that fails on the rows undoes
    /// the ones before it.
    pub change: Option<CatalogChange>,
    /// An INSERT that reserves auto-increment values, as InnoDB does for an insert of a known
    /// row count: the values are used up even by rows that fail or are ignored.
    pub reserves: Option<Reservation>,
    /// An INSERT that gives the AUTO_INCREMENT column its values, none generated (a NULL or 0
    /// there is refused when the statement runs, as `my_explicit_auto`): MySQL reports the
    /// last inserted row's value as the statement's insert id, and LAST_INSERT_ID() keeps its
    /// value. The column is SQLite's rowid, so the engine reports `last_insert_rowid()`.
    pub explicit_auto_increment: bool,
    /// `SELECT SQL_CALC_FOUND_ROWS`: a query (one row, one integer) counting the rows the
    /// statement finds without its LIMIT. The engine runs it right after the statement and
    /// gives the count to [`SessionState::set_found_rows`] instead of the rows returned.
    pub found_rows: Option<String>,
    /// `SELECT … INTO @a, @b`: the user variables the query's one row goes to. The engine runs
    /// the query: more than one row is MySQL's 1172, none leaves the variables as they are (0
    /// rows affected), one sets them ([`variable_value`], [`SessionState::set`]; 1 row
    /// affected). No rows go to the client.
    pub into: Vec<String>,
    /// The statements build again a table other tables' foreign keys reference. The engine
    /// runs them with foreign key enforcement off, outside a transaction, as SQLite's own
    /// table rebuild procedure does: dropping the old table would otherwise act on the
    /// referencing rows (refuse, cascade or set null). The translation changes no column those
    /// keys reference and none of the table's own foreign key columns, so the copied rows meet
    /// every key as before.
    pub suspends_foreign_keys: bool,
    /// An UPDATE of a table other tables' foreign keys reference and that has none of its
    /// own: a foreign-key failure can only be a parent row still referenced, MySQL's 1451
    /// (SQLite does not say which side failed).
    pub foreign_key_failure_is_parents: bool,
    /// The base tables the statement reads rows from, as SQLite names them (`"schema"."t"`),
    /// once for each time it names one (a self-join names its table twice): an engine that
    /// must bound the rows a query may examine (`max_join_size`) multiplies their row counts.
    pub reads: Vec<String>,
    /// The notes MySQL gives the statement (code, message) when it runs: a CREATE TABLE IF
    /// NOT EXISTS of a table that exists (1050), DROP … IF EXISTS of one that does not (1051,
    /// 4092) or of a view as a table (1965). The engine reports them at the level `Note`.
    pub notes: Vec<(u16, String)>,
}

/// Auto-increment values an INSERT reserves: the engine reads SQLite's sequence for the table
/// before the statement and, whether it succeeds or fails on a duplicate key, leaves it at no
/// less than that plus `rows` (SQL from [`Reservation::sql`]). As InnoDB's (with its default
/// `innodb_autoinc_lock_mode` 1), the rows inserted take the first values in order, and the
/// rest of the reserved ones are used up: those of rows that failed, were ignored or updated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reservation {
    /// The SQLite schema of the table's database ([`Catalog::sqlite_schema`]).
    pub schema: String,
    /// The table.
    pub table: String,
    /// The values reserved.
    pub rows: u64,
    /// The AUTO_INCREMENT column of an `INSERT … ON DUPLICATE KEY UPDATE` or an `INSERT
    /// IGNORE` of several rows, some of which may not be inserted. SQLite uses a value up for a
    /// row that updates or is ignored, InnoDB does not: the rows inserted take the first
    /// reserved values in order. After such an insert updated or left out rows, the engine
    /// counts the rows it inserted ([`Reservation::inserted_sql`]) and where their values have
    /// gaps numbers them again ([`Reservation::renumber_sql`]); LAST_INSERT_ID() is then the
    /// first of them.
    pub renumber_column: Option<String>,
    /// The AUTO_INCREMENT column and the largest value its type holds, when that is less than
    /// BIGINT's: SQLite numbers past it (a `TINYINT` to 128), where MySQL refuses the row that
    /// would take such a value with 167 "Out of range value for column … at row n".
    pub limit: Option<(String, i64)>,
}

impl Reservation {
    /// Where the rows of an insert reserving `rows` values after `before` reach past
    /// [`Reservation::limit`]: MySQL's 167 for the first row that would take such a value
    /// (`Some((column, row))`, the row from 1). `rows` is 0 for an INSERT … SELECT, checked
    /// after it with the last value it took as `before` ([`Reservation::past_limit`]).
    pub fn out_of_range(&self, before: i64, rows: u64) -> Option<(&str, u64)> {
        let (column, max) = self.limit.as_ref()?;
        let first = before.checked_add(1)?;
        let last = before.saturating_add(i64::try_from(rows).unwrap_or(i64::MAX));
        if last <= *max && first <= *max {
            return None;
        }
        Some((column, self.first_row_past_limit(before)))
    }

    /// The row (from 1) that takes the first value past [`Reservation::limit`] after `before`.
    pub fn first_row_past_limit(&self, before: i64) -> u64 {
        let max = self.limit.as_ref().map_or(i64::MAX, |(_, max)| *max);
        u64::try_from(max.saturating_sub(before).max(0)).unwrap_or(0) + 1
    }

    /// Whether a value the insert took is past [`Reservation::limit`].
    pub fn past_limit(&self, value: i64) -> bool {
        self.limit.as_ref().is_some_and(|(_, max)| value > *max)
    }

    /// The query of the sequence before the statement (one row, one integer).
    pub fn before_sql(&self) -> String {
        format!(
            "SELECT coalesce(max(seq), 0) FROM {}.sqlite_sequence WHERE name = {}",
            typed::ident(&self.schema),
            typed::quote(&self.table)
        )
    }

    /// For an insert that may leave rows out ([`Reservation::renumber_column`]), the query of the rows it inserted: one
    /// row of their count and their largest value (NULL when none), the values in the reserved
    /// range.
    pub fn inserted_sql(&self, before: i64) -> Option<String> {
        let column = self.renumber_column.as_deref()?;
        Some(format!(
            "SELECT count(*), max({c}) FROM {} WHERE {}",
            self.qualified(),
            self.reserved_range(column, before),
            c = typed::ident(column),
        ))
    }

    /// For an insert that may leave rows out ([`Reservation::renumber_column`]), the statement that gives the rows it
    /// inserted the first reserved values, in the order of the values SQLite gave them. Each
    /// value only goes down, to one no row holds: the rows below it have moved to smaller ones
    /// already, as SQLite updates a rowid range in ascending order.
    pub fn renumber_sql(&self, before: i64) -> Option<String> {
        let column = self.renumber_column.as_deref()?;
        let c = typed::ident(column);
        Some(format!(
            "UPDATE {table} SET {c} = {before} + (SELECT count(*) FROM {table} AS earlier \
             WHERE earlier.{c} > {before} AND earlier.{c} <= {table}.{c}) WHERE {range}",
            table = self.qualified(),
            range = self.reserved_range(column, before),
        ))
    }

    fn qualified(&self) -> String {
        format!(
            "{}.{}",
            typed::ident(&self.schema),
            typed::ident(&self.table)
        )
    }

    fn reserved_range(&self, column: &str, before: i64) -> String {
        let at = before.saturating_add(i64::try_from(self.rows).unwrap_or(i64::MAX));
        let c = typed::ident(column);
        format!("{c} > {before} AND {c} <= {at}")
    }

    /// The statement that keeps the sequence at no less than `before + rows`.
    pub fn sql(&self, before: i64) -> String {
        let table = typed::quote(&self.table);
        let sequence = format!("{}.sqlite_sequence", typed::ident(&self.schema));
        let at = before.saturating_add(i64::try_from(self.rows).unwrap_or(i64::MAX));
        format!(
            "UPDATE {sequence} SET seq = max(seq, {at}) WHERE name = {table}; \
             INSERT INTO {sequence} (name, seq) SELECT {table}, {at} \
             WHERE NOT EXISTS (SELECT 1 FROM {sequence} WHERE name = {table})"
        )
    }
}

/// Translates a parsed statement (no session statement: SET, USE and transactions are the
/// engine's own) against a catalog.
pub fn translate(
    statement: &Statement,
    catalog: &dyn Catalog,
) -> Result<Translation, TranslateError> {
    let rewritten = rollup::rewrite(statement)?;
    let mut translator = translate::Translator::new(catalog);
    let mut translation = translator.statement(rewritten.as_ref().unwrap_or(statement))?;
    translation.reads = std::mem::take(&mut translator.tables_read);
    Ok(translation)
}

/// [`translate`] for a statement run with arguments of these classes, in text order: a
/// comparison with an argument of a known class is translated as with a literal of it (see
/// [`ArgClass`]). Also says whether the translation depends on the classes; if not, it serves
/// the statement with any arguments.
pub fn translate_with_args(
    statement: &Statement,
    catalog: &dyn Catalog,
    args: &[ArgClass],
) -> Result<(Translation, bool), TranslateError> {
    let rewritten = rollup::rewrite(statement)?;
    let statement = rewritten.as_ref().unwrap_or(statement);
    let mut translator = translate::Translator::with_args(catalog, statement, args);
    let mut translation = translator.statement(statement)?;
    translation.reads = std::mem::take(&mut translator.tables_read);
    Ok((translation, translator.typed_args))
}

/// [`translate_with_args`] of a statement as the front end parsed it: a result column that is
/// an expression is named by its text as written, as MySQL names it (`1/0`, not `1 / 0`).
pub fn translate_parsed(
    parsed: &xrpc_sql::Parsed,
    catalog: &dyn Catalog,
    args: &[ArgClass],
) -> Result<(Translation, bool), TranslateError> {
    let Some(statement) = parsed.statement() else {
        return Err(TranslateError::Unsupported(format!(
            "statement {}",
            parsed.text
        )));
    };
    let rewritten = rollup::rewrite(statement)?;
    let statement = rewritten.as_ref().unwrap_or(statement);
    let mut translator = translate::Translator::with_args(catalog, statement, args);
    // A statement rewritten for ROLLUP is another text.
    if rewritten.is_none() {
        translator.written = Some(parsed);
    }
    let mut translation = translator.statement(statement)?;
    translation.reads = std::mem::take(&mut translator.tables_read);
    Ok((translation, translator.typed_args))
}

/// A catalog kept in memory from the changes DDL translations report: for tests, tools and the
/// fuzz target. Its first current database is SQLite's `main`; any other database is attached
/// under its own name.
#[derive(Debug, Clone, Default)]
pub struct MemoryCatalog {
    /// By database and table name, both lower case.
    tables: BTreeMap<(String, String), Table>,
    /// The temporary tables by name, lower case.
    temporary: BTreeMap<String, Table>,
    schema: Option<String>,
    /// The database held in SQLite's `main`.
    main: Option<String>,
    /// The databases attached besides it.
    attached: Vec<String>,
}

impl MemoryCatalog {
    /// An empty catalog whose current database is `schema`, held in SQLite's `main`.
    pub fn new(schema: Option<&str>) -> Self {
        Self {
            tables: BTreeMap::new(),
            temporary: BTreeMap::new(),
            schema: schema.map(str::to_string),
            main: schema.map(str::to_string),
            attached: Vec::new(),
        }
    }

    /// A database attached under its own name.
    pub fn add_database(&mut self, database: &str) {
        self.attached.push(database.to_ascii_lowercase());
    }

    /// `USE database`.
    pub fn use_database(&mut self, database: &str) {
        self.schema = Some(database.to_string());
    }

    /// Applies a DDL statement's change.
    pub fn apply(&mut self, change: &CatalogChange) {
        let key = |database: &str, table: &str| {
            (database.to_ascii_lowercase(), table.to_ascii_lowercase())
        };
        match change {
            CatalogChange::Create(t) | CatalogChange::Replace(t) if t.temporary => {
                self.temporary
                    .insert(t.name.to_ascii_lowercase(), t.clone());
            }
            CatalogChange::Create(t) | CatalogChange::Replace(t) => {
                self.tables.insert(key(&t.database, &t.name), t.clone());
            }
            CatalogChange::Drop {
                table,
                temporary: true,
                ..
            } => {
                self.temporary.remove(&table.to_ascii_lowercase());
            }
            CatalogChange::Drop {
                database, table, ..
            } => {
                self.tables.remove(&key(database, table));
            }
            CatalogChange::Rename { database, from, to } => {
                if let Some(mut t) = self.tables.remove(&key(database, from)) {
                    t.name = to.clone();
                    self.tables.insert(key(database, to), t);
                }
            }
            CatalogChange::Several(changes) => changes.iter().for_each(|c| self.apply(c)),
        }
    }
}

impl Catalog for MemoryCatalog {
    fn table(&self, schema: Option<&str>, name: &str) -> Option<Table> {
        let database = schema.map(str::to_string).or_else(|| self.schema.clone())?;
        if let Some(t) = self.temporary_table(name)
            && t.database.eq_ignore_ascii_case(&database)
        {
            return Some(t);
        }
        self.tables
            .get(&(database.to_ascii_lowercase(), name.to_ascii_lowercase()))
            .cloned()
    }

    fn temporary_table(&self, name: &str) -> Option<Table> {
        self.temporary.get(&name.to_ascii_lowercase()).cloned()
    }

    fn current_schema(&self) -> Option<String> {
        self.schema.clone()
    }

    fn sqlite_schema(&self, database: &str) -> String {
        if self
            .main
            .as_deref()
            .is_some_and(|m| m.eq_ignore_ascii_case(database))
        {
            "main".into()
        } else {
            database.to_ascii_lowercase()
        }
    }

    fn tables(&self, database: &str) -> Option<Vec<Table>> {
        Some(
            self.tables
                .iter()
                .filter(|((d, _), _)| d.eq_ignore_ascii_case(database))
                .map(|(_, t)| t.clone())
                .collect(),
        )
    }

    fn has_database(&self, database: &str) -> bool {
        self.main
            .iter()
            .chain(&self.attached)
            .any(|d| d.eq_ignore_ascii_case(database))
    }
}
