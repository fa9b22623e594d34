//! A result column that is a table's column carries where it comes from and the flags of its
//! declaration, as MySQL's result metadata does; an expression carries none.

use xrpc_sql::Options;
use xrpc_sql_sqlite::{
    CatalogChange, ColumnFlags, MemoryCatalog, Origin, OutColumn, Table, translate,
};

fn catalog() -> MemoryCatalog {
    let mut catalog = MemoryCatalog::new(Some("db"));
    catalog.add_database("other");
    for ddl in [
        "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, code VARCHAR(8) NOT NULL UNIQUE, \
         a INT, b INT UNSIGNED, note TEXT, KEY by_ab (a, b))",
        "CREATE TABLE other.p (x INT, y INT, PRIMARY KEY (x, y))",
    ] {
        apply(&mut catalog, ddl);
    }
    catalog
}

fn apply(catalog: &mut MemoryCatalog, ddl: &str) {
    let parsed = xrpc_sql::parse_one_statement(ddl, &Options::default()).unwrap();
    let t = translate(parsed.statement().unwrap(), catalog).unwrap();
    catalog.apply(t.change.as_ref().unwrap());
}

fn columns(sql: &str) -> Vec<OutColumn> {
    let parsed = xrpc_sql::parse_one_statement(sql, &Options::default()).unwrap();
    translate(parsed.statement().unwrap(), &catalog())
        .unwrap()
        .columns
}

fn origin(database: &str, table: &str, original: &str, column: &str, flags: ColumnFlags) -> Origin {
    Origin {
        database: database.into(),
        table: table.into(),
        original_table: original.into(),
        column: column.into(),
        flags,
    }
}

#[test]
fn a_column_names_its_database_table_and_declaration() {
    let c = columns("SELECT id FROM t");
    assert_eq!(
        c[0].origin,
        Some(origin(
            "db",
            "t",
            "t",
            "id",
            ColumnFlags {
                not_null: true,
                primary_key: true,
                auto_increment: true,
                ..ColumnFlags::default()
            }
        ))
    );
}

#[test]
fn an_alias_names_the_column_and_the_table_as_the_query_does() {
    let c = columns("SELECT x.note AS n FROM t AS x");
    assert_eq!(c[0].name, "n");
    assert_eq!(
        c[0].origin,
        Some(origin("db", "x", "t", "note", ColumnFlags::default()))
    );
}

#[test]
fn unique_multiple_and_unsigned_come_from_the_keys() {
    let c = columns("SELECT code, a, b FROM t");
    let flags: Vec<ColumnFlags> = c.iter().map(|c| c.origin.as_ref().unwrap().flags).collect();
    assert_eq!(
        flags,
        vec![
            ColumnFlags {
                not_null: true,
                unique_key: true,
                ..ColumnFlags::default()
            },
            ColumnFlags {
                multiple_key: true,
                ..ColumnFlags::default()
            },
            ColumnFlags {
                unsigned: true,
                ..ColumnFlags::default()
            },
        ]
    );
}

#[test]
fn every_column_of_a_composite_primary_key_is_primary() {
    let c = columns("SELECT * FROM other.p");
    for column in &c {
        let o = column.origin.as_ref().unwrap();
        assert_eq!(o.database, "other");
        assert!(o.flags.primary_key && o.flags.not_null, "{column:?}");
    }
}

#[test]
fn a_wildcard_gives_every_column_its_origin() {
    let c = columns("SELECT * FROM t");
    let names: Vec<&str> = c
        .iter()
        .map(|c| c.origin.as_ref().unwrap().column.as_str())
        .collect();
    assert_eq!(names, ["id", "code", "a", "b", "note"]);
}

#[test]
fn a_derived_tables_column_is_still_the_tables_column() {
    let c = columns("SELECT d.c FROM (SELECT code AS c FROM t) AS d");
    let o = c[0].origin.as_ref().unwrap();
    assert_eq!(
        (
            o.table.as_str(),
            o.original_table.as_str(),
            o.column.as_str()
        ),
        ("d", "t", "code")
    );
}

#[test]
fn expressions_have_no_origin() {
    let c = columns("SELECT id + 1, COUNT(*), 'x', (id) FROM t GROUP BY id");
    assert_eq!(c[0].origin, None);
    assert_eq!(c[1].origin, None);
    assert_eq!(c[2].origin, None);
}

#[test]
fn a_union_has_no_origin() {
    let c = columns("SELECT id FROM t UNION SELECT a FROM t");
    assert_eq!(c[0].origin, None);
}

#[test]
fn a_table_survives_serialization() {
    let mut catalog = MemoryCatalog::new(Some("db"));
    let parsed = xrpc_sql::parse_one_statement(
        "CREATE TABLE s (id INT PRIMARY KEY, v VARCHAR(3) COLLATE utf8mb4_bin UNIQUE, \
         d DECIMAL(5,2) DEFAULT 1, KEY k (d, v))",
        &Options::default(),
    )
    .unwrap();
    let t = translate(parsed.statement().unwrap(), &catalog).unwrap();
    let Some(CatalogChange::Create(table)) = t.change else {
        panic!("a create");
    };
    let text = serde_json::to_string(&table).unwrap();
    let back: Table = serde_json::from_str(&text).unwrap();
    assert_eq!(back, table);
    catalog.apply(&CatalogChange::Create(back));
    assert_eq!(table.primary_key, ["id"]);
    assert_eq!(
        table
            .indexes
            .iter()
            .map(|i| i.columns.clone())
            .collect::<Vec<_>>(),
        [
            vec!["v".to_string()],
            vec!["d".to_string(), "v".to_string()]
        ]
    );
}
