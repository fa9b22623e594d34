//! Why a statement is not translated: MySQL's error for it.

/// A statement the translation refuses, as the MySQL error a client receives.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TranslateError {
    /// A MySQL feature the translation does not cover: `ER_NOT_SUPPORTED_YET` (1235, 42000)
    /// with the construct named.
    #[error("This version of MySQL doesn't yet support '{0}'")]
    Unsupported(String),
    /// A function MySQL does not have: `ER_SP_DOES_NOT_EXIST` (1305, 42000).
    #[error("FUNCTION {0} does not exist")]
    UnknownFunction(String),
    /// `ER_NO_SUCH_TABLE` (1146, 42S02): `db.t`.
    #[error("Table '{0}' doesn't exist")]
    NoSuchTable(String),
    /// `ER_BAD_TABLE_ERROR` (1051, 42S02): `DROP TABLE` of missing tables.
    #[error("Unknown table '{0}'")]
    UnknownTable(String),
    /// `ER_TABLE_EXISTS_ERROR` (1050, 42S01).
    #[error("Table '{0}' already exists")]
    TableExists(String),
    /// `ER_BAD_FIELD_ERROR` (1054, 42S22): the column and the clause.
    #[error("Unknown column '{0}' in '{1}'")]
    UnknownColumn(String, &'static str),
    /// `ER_NON_UNIQ_ERROR` (1052, 23000).
    #[error("Column '{0}' in {1} is ambiguous")]
    Ambiguous(String, &'static str),
    /// `ER_NO_DEFAULT_FOR_FIELD` (1364, HY000).
    #[error("Field '{0}' doesn't have a default value")]
    NoDefault(String),
    /// `ER_WRONG_VALUE_COUNT_ON_ROW` (1136, 21S01).
    #[error("Column count doesn't match value count at row {0}")]
    ValueCount(usize),
    /// `ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT` (1582, 42000).
    #[error("Incorrect parameter count in the call to native function '{0}'")]
    ParamCount(String),
    /// `ER_CANT_DROP_FIELD_OR_KEY` (1091, 42000).
    #[error("Can't DROP INDEX `{0}`; check that it exists")]
    NoSuchIndex(String),
    /// `ER_CANT_DROP_FIELD_OR_KEY` (1091, 42000) for a foreign key.
    #[error("Can't DROP FOREIGN KEY `{0}`; check that it exists")]
    NoSuchForeignKey(String),
    /// `ER_DUP_KEYNAME` (1061, 42000).
    #[error("Duplicate key name '{0}'")]
    DuplicateKey(String),
    /// `ER_DUP_FIELDNAME` (1060, 42S21).
    #[error("Duplicate column name '{0}'")]
    DuplicateColumn(String),
    /// `ER_CANT_AGGREGATE_2COLLATIONS` (1267, HY000): text of two collations compared.
    #[error(
        "Illegal mix of collations (utf8mb4_bin,IMPLICIT) and (utf8mb4_general_ci,IMPLICIT) for operation"
    )]
    IllegalMix,
    /// `ER_FIELD_SPECIFIED_TWICE` (1110, 42000).
    #[error("Column '{0}' specified twice")]
    ColumnTwice(String),
    /// `ER_OPERAND_COLUMNS` (1241, 21000).
    #[error("Operand should contain {0} column(s)")]
    OperandColumns(usize),
    /// `ER_UPDATE_WITHOUT_KEY_IN_SAFE_MODE` (1175, HY000): under `sql_safe_updates`, an UPDATE
    /// or DELETE whose WHERE names no indexed column (see `Translator::safe_update`).
    #[error(
        "You are using safe update mode and you tried to update a table without a WHERE that uses a KEY column"
    )]
    SafeUpdate,
    /// `ER_WRONG_USAGE` (1221, HY000): GROUP BY … WITH ROLLUP with ORDER BY.
    #[error("Incorrect usage of CUBE/ROLLUP and ORDER BY")]
    RollupOrderBy,
    /// `ER_INVALID_GROUP_FUNC_USE` (1111, HY000).
    #[error("Invalid use of group function")]
    GroupFunction,
    /// `ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT` (1222, 21000): `SELECT … INTO` with another
    /// number of variables than columns.
    #[error("The used SELECT statements have a different number of columns")]
    SelectColumns,
    /// `ER_UNKNOWN_TABLE` (1109, 42S02): a multi-table DELETE's target not in its FROM.
    #[error("Unknown table '{0}' in MULTI DELETE")]
    UnknownTargetTable(String),
    /// `ER_NO_DB_ERROR` (1046, 3D000): an unqualified table name without a current database.
    #[error("No database selected")]
    NoDatabase,
    /// `ER_BAD_DB_ERROR` (1049, 42000): a table created in a database that does not exist.
    #[error("Unknown database '{0}'")]
    UnknownDatabase(String),
    /// `ER_UNKNOWN_STORAGE_ENGINE` (1286, 42000).
    #[error("Unknown storage engine '{0}'")]
    UnknownEngine(String),
    /// `ER_TOO_BIG_PRECISION` (1426, 42000): a TIME, DATETIME or TIMESTAMP column with more
    /// than 6 fraction digits.
    #[error("Too big precision specified for '{0}'. Maximum is 6")]
    TooBigPrecision(String),
    /// `ER_WRONG_OBJECT` (1347, HY000): `db.v` and the type it is not (`BASE TABLE`, `VIEW`).
    #[error("'{0}' is not of type '{1}'")]
    WrongObject(String, &'static str),
    /// `ER_IT_IS_A_VIEW` (1965, 42S02): `DROP TABLE` of a view.
    #[error("'{0}' is a view")]
    IsView(String),
    /// `ER_UNKNOWN_VIEW` (4092, 42S02): `DROP VIEW` of missing views.
    #[error("Unknown VIEW: '{0}'")]
    UnknownView(String),
    /// `ER_VIEW_INVALID` (1356, HY000): a view whose SELECT no longer translates.
    #[error(
        "View '{0}' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them"
    )]
    InvalidView(String),
    /// `ER_VIEW_WRONG_LIST` (1353, HY000).
    #[error("View's SELECT and view's field list have different column counts")]
    ViewColumnCount,
    /// `ER_VIEW_SELECT_VARIABLE` (1351, HY000).
    #[error("View's SELECT contains a variable or parameter")]
    ViewVariable,
    /// `ER_NO_DEFAULT_FOR_VIEW_FIELD` (1423, HY000): an INSERT through a view leaves a
    /// column of its table without a value.
    #[error("Field of view '{0}' underlying table doesn't have a default value")]
    ViewNoDefault(String),
    /// `ER_NONUPDATEABLE_COLUMN` (1348, HY000): a write to a view's computed column.
    #[error("Column '{0}' is not updatable")]
    NotUpdatable(String),
    /// `ER_NON_INSERTABLE_TABLE` (1471, HY000): an INSERT without a column list into a view
    /// with a computed column.
    #[error("The target table {0} of the INSERT is not insertable-into")]
    NotInsertable(String),
    /// `ER_NON_UPDATABLE_TABLE` (1288, HY000): an UPDATE or DELETE of a view that groups,
    /// aggregates, is DISTINCT, a union, limited, or reads no table.
    #[error("The target table {0} of the {1} is not updatable")]
    ViewNotUpdatable(String, &'static str),
    /// `ER_VIEW_MULTIUPDATE` (1393, HY000): a write through a join view naming columns of
    /// several of its tables.
    #[error("Can not modify more than one base table through a join view '{0}'")]
    JoinViewTables(String),
    /// `ER_VIEW_NO_INSERT_FIELD_LIST` (1394, HY000).
    #[error("Can not insert into join view '{0}' without fields list")]
    JoinViewInsertList(String),
    /// `ER_VIEW_DELETE_MERGE_VIEW` (1395, HY000).
    #[error("Can not delete from join view '{0}'")]
    JoinViewDelete(String),
    /// `ER_VIEW_SELECT_TMPTABLE` (1352, HY000).
    #[error("View's SELECT refers to a temporary table '{0}'")]
    ViewTemporary(String),
    /// A second primary key.
    #[error("Multiple primary key defined")]
    MultiplePrimaryKey,
    /// A key naming a column its table does not have.
    #[error("Key column '{0}' doesn't exist in table")]
    KeyColumn(String),
    /// `ER_INVALID_DEFAULT` (1067, 42000): a DEFAULT the column cannot hold.
    #[error("Invalid default value for '{0}'")]
    InvalidDefault(String),
    /// `ER_ILLEGAL_PARAMETER_DATA_TYPE_FOR_OPERATION` (MariaDB's 4079, HY000): an argument of a
    /// type the function refuses (the type's name, the function's).
    #[error("Illegal parameter data type {0} for operation '{1}'")]
    IllegalParameterType(&'static str, String),
    /// A DOUBLE literal past the double range.
    #[error("Illegal double '{0}' value found during parsing")]
    IllegalDouble(String),
    /// A value other than DEFAULT written to a generated column (column, table).
    #[error("The value specified for generated column '{0}' in table '{1}' has been ignored")]
    GeneratedValue(String, String),
}

impl TranslateError {
    /// MySQL's error number.
    pub fn code(&self) -> u16 {
        match self {
            Self::Unsupported(_) => 1235,
            Self::UnknownFunction(_) => 1305,
            Self::NoSuchTable(_) => 1146,
            Self::TableExists(_) => 1050,
            Self::UnknownTable(_) => 1051,
            Self::UnknownColumn(..) => 1054,
            Self::Ambiguous(..) => 1052,
            Self::NoDefault(_) => 1364,
            Self::ValueCount(_) => 1136,
            Self::ParamCount(_) => 1582,
            Self::NoSuchIndex(_) | Self::NoSuchForeignKey(_) => 1091,
            Self::DuplicateKey(_) => 1061,
            Self::DuplicateColumn(_) => 1060,
            Self::OperandColumns(_) => 1241,
            Self::ColumnTwice(_) => 1110,
            Self::IllegalMix => 1267,
            Self::SelectColumns => 1222,
            Self::UnknownTargetTable(_) => 1109,
            Self::GroupFunction => 1111,
            Self::RollupOrderBy => 1221,
            Self::SafeUpdate => 1175,
            Self::NoDatabase => 1046,
            Self::UnknownDatabase(_) => 1049,
            Self::TooBigPrecision(_) => 1426,
            Self::UnknownEngine(_) => 1286,
            Self::WrongObject(..) => 1347,
            Self::IsView(_) => 1965,
            Self::UnknownView(_) => 4092,
            Self::InvalidView(_) => 1356,
            Self::ViewColumnCount => 1353,
            Self::ViewVariable => 1351,
            Self::IllegalDouble(_) => 1367,
            Self::ViewTemporary(_) => 1352,
            Self::ViewNoDefault(_) => 1423,
            Self::NotUpdatable(_) => 1348,
            Self::NotInsertable(_) => 1471,
            Self::ViewNotUpdatable(..) => 1288,
            Self::JoinViewTables(_) => 1393,
            Self::JoinViewInsertList(_) => 1394,
            Self::JoinViewDelete(_) => 1395,
            Self::GeneratedValue(..) => 1906,
            Self::KeyColumn(_) => 1072,
            Self::MultiplePrimaryKey => 1068,
            Self::InvalidDefault(_) => 1067,
            Self::IllegalParameterType(..) => 4079,
        }
    }

    /// MySQL's SQL state.
    pub fn sql_state(&self) -> &'static str {
        match self {
            Self::NoSuchTable(_)
            | Self::UnknownTable(_)
            | Self::UnknownTargetTable(_)
            | Self::IsView(_)
            | Self::UnknownView(_) => "42S02",
            Self::TableExists(_) => "42S01",
            Self::UnknownColumn(..) => "42S22",
            Self::Ambiguous(..) => "23000",
            Self::NoDefault(_)
            | Self::GroupFunction
            | Self::IllegalMix
            | Self::RollupOrderBy
            | Self::SafeUpdate
            | Self::WrongObject(..)
            | Self::InvalidView(_)
            | Self::ViewColumnCount
            | Self::ViewVariable
            | Self::ViewTemporary(_)
            | Self::ViewNoDefault(_)
            | Self::NotUpdatable(_)
            | Self::NotInsertable(_)
            | Self::ViewNotUpdatable(..)
            | Self::JoinViewTables(_)
            | Self::JoinViewInsertList(_)
            | Self::JoinViewDelete(_)
            | Self::GeneratedValue(..)
            | Self::IllegalParameterType(..) => "HY000",
            Self::ValueCount(_) => "21S01",
            Self::DuplicateColumn(_) => "42S21",
            Self::OperandColumns(_) | Self::SelectColumns => "21000",
            Self::NoDatabase => "3D000",
            Self::IllegalDouble(_) => "22007",
            _ => "42000",
        }
    }
}

/// Shorthand for a refusal naming the construct.
pub(crate) fn unsupported<T>(construct: impl std::fmt::Display) -> Result<T, TranslateError> {
    Err(TranslateError::Unsupported(construct.to_string()))
}
