-- Views on the node: each script runs statement by statement on a fresh node (translated) and a
-- fresh MariaDB database, and every outcome must be the same (corpus_sqlite.rs).

-- script: views are listed as views
CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(10,2));
CREATE VIEW v AS SELECT id, name FROM t;
CREATE VIEW w AS SELECT id, price FROM t WHERE price > 1;
SHOW TABLES;
SHOW FULL TABLES;
SHOW FULL TABLES LIKE 'v%';
SELECT TABLE_NAME, TABLE_TYPE, ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME;
DROP VIEW v;
SHOW FULL TABLES;
SHOW CREATE VIEW t;

-- script: a view's columns described from the table columns it selects
CREATE TABLE t (id INT NOT NULL, name VARCHAR(20), price DECIMAL(10,2) DEFAULT 1.50, made DATETIME);
CREATE VIEW v (ident, label, cost) AS SELECT id, name, price FROM t;
DESCRIBE v;
SHOW COLUMNS FROM v;
SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'v' ORDER BY ORDINAL_POSITION;

-- script: a view in another database, and a view over it
CREATE DATABASE views_other;
CREATE TABLE t (a INT, b VARCHAR(10));
INSERT INTO t VALUES (1, 'x'), (2, 'Y');
CREATE VIEW views_other.v AS SELECT a, b FROM t;
SELECT * FROM views_other.v ORDER BY a;
SELECT a FROM views_other.v WHERE b = 'y';
USE views_other;
SELECT COUNT(*) FROM v;
SHOW FULL TABLES;
CREATE VIEW w AS SELECT a * 2 AS a2 FROM v;
SELECT SUM(a2) FROM w;
DROP VIEW v, w;
DROP DATABASE views_other;

-- script: views survive other statements and renames
CREATE TABLE t (a INT);
INSERT INTO t VALUES (3), (4);
CREATE VIEW v AS SELECT a FROM t;
RENAME TABLE v TO v2;
SELECT * FROM v;
SELECT SUM(a) FROM v2;
ALTER TABLE t ADD COLUMN b INT;
SELECT * FROM v2 ORDER BY a;
CREATE OR REPLACE VIEW v2 AS SELECT a, b FROM t;
SELECT * FROM v2 ORDER BY a;
CREATE OR REPLACE VIEW t AS SELECT 1;

-- script: a view over an inner join and a derived table described
CREATE TABLE p (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(5) NOT NULL DEFAULT 'n');
CREATE TABLE q (id INT NOT NULL, label VARCHAR(10) COLLATE utf8mb4_bin, made DATETIME(3));
CREATE VIEW j AS SELECT p.id, p.name, q.label, q.made FROM p JOIN q ON q.id = p.id;
DESCRIBE j;
SHOW FULL COLUMNS FROM j;
CREATE VIEW dd AS SELECT * FROM (SELECT name FROM p) x;
DESCRIBE dd;
SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION;
