//! The SQLite engine through its contract: MySQL's strict writes and exact reads per type
//! (`strict`), databases, `USE` and the file system a client cannot reach (`databases`), and
//! statement text read as MySQL reads it (`front`), and MySQL's codes for SQLite's errors
//! (`errors`), and statements run by their translation (`translated`).

mod databases;
mod errors;
mod front;
mod strict;
mod translated;
