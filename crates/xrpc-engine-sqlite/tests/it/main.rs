//! The SQLite engine through its contract: MySQL's strict writes and exact reads per type
//! (`strict`), and databases, `USE` and the file system a client cannot reach (`databases`).

mod databases;
mod strict;
