-- Views: each script runs statement by statement on a fresh node and a fresh MariaDB database,
-- and every outcome must be the same (a refusal counts as a difference here).

-- script: a view selects, filters, joins and aggregates with its columns' MySQL types
CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(10,2), qty INT);
INSERT INTO items VALUES (1, 'Apple', 1.10, 3), (2, 'apple', 2.20, 1), (3, 'Pear', 0.70, 5);
CREATE VIEW priced AS SELECT id, name, price, price * qty AS total FROM items WHERE qty > 0;
SELECT * FROM priced ORDER BY id;
SELECT SUM(price), SUM(total), AVG(price) FROM priced;
SELECT name, COUNT(*) FROM priced GROUP BY name ORDER BY name;
SELECT id FROM priced WHERE name = 'APPLE' ORDER BY id;
SELECT p.id, i.qty FROM priced p JOIN items i ON i.id = p.id WHERE p.total > 2 ORDER BY p.id;
SELECT MAX(name), MIN(total) FROM priced;
INSERT INTO items VALUES (4, 'plum', 0.05, 0);
SELECT COUNT(*) FROM priced;

-- script: a view's column list names its columns
CREATE TABLE t (a INT, b VARCHAR(5));
INSERT INTO t VALUES (1, 'x'), (2, 'y');
CREATE VIEW v (n, s) AS SELECT a + 1, UPPER(b) FROM t;
SELECT n, s FROM v ORDER BY n;
SELECT a FROM v;
CREATE VIEW w (only_one) AS SELECT a, b FROM t;
CREATE VIEW w AS SELECT a, a FROM t;
CREATE VIEW w AS SELECT a AS x, b AS X FROM t;

-- script: an aggregating view and a view over a view
CREATE TABLE sales (region VARCHAR(10), amount DECIMAL(8,2));
INSERT INTO sales VALUES ('north', 10.50), ('North', 2.25), ('south', 7.00);
CREATE VIEW by_region AS SELECT region, SUM(amount) AS total, COUNT(*) AS n FROM sales GROUP BY region;
SELECT * FROM by_region ORDER BY region;
CREATE VIEW big AS SELECT region, total FROM by_region WHERE total > 8;
SELECT * FROM big;
SELECT SUM(total) FROM by_region;
SELECT region FROM by_region WHERE region = 'NORTH';

-- script: CREATE OR REPLACE VIEW, DROP VIEW and the names they take
CREATE TABLE t (a INT);
INSERT INTO t VALUES (1), (2);
CREATE VIEW v AS SELECT a FROM t;
CREATE VIEW v AS SELECT a FROM t;
CREATE TABLE v (b INT);
CREATE VIEW t AS SELECT 1;
CREATE OR REPLACE VIEW v AS SELECT a * 10 AS b FROM t;
SELECT * FROM v ORDER BY b;
DROP VIEW v;
SELECT * FROM v;
DROP VIEW v;
DROP VIEW IF EXISTS v;
DROP VIEW t;
CREATE VIEW v AS SELECT a FROM t;
CREATE VIEW w AS SELECT a FROM t;
DROP VIEW v, w;
SELECT * FROM w;
CREATE VIEW v AS SELECT a FROM t;
DROP VIEW IF EXISTS v, missing;
SELECT COUNT(*) FROM t;

-- script: a view is not a table
CREATE TABLE t (a INT);
CREATE VIEW v AS SELECT a FROM t;
DROP TABLE v;
ALTER TABLE v ADD COLUMN c INT;
CREATE INDEX i ON v (a);
TRUNCATE TABLE v;
DROP TABLE IF EXISTS v;
SELECT COUNT(*) FROM v;

-- script: a view over tables that do not exist or change
CREATE VIEW v AS SELECT a FROM missing;
CREATE TABLE t (a INT, b INT);
INSERT INTO t VALUES (1, 2);
CREATE VIEW v AS SELECT a, b FROM t;
CREATE VIEW w AS SELECT nothere FROM t;
ALTER TABLE t DROP COLUMN b;
SELECT * FROM v;
SELECT a FROM v;
DROP TABLE t;
SELECT * FROM v;
DROP VIEW v;

-- script: a view reads no user variables
CREATE TABLE t (a INT);
CREATE VIEW v AS SELECT a, @x FROM t;
SELECT COUNT(*) FROM t;

-- script: a view does not see temporary tables
CREATE TEMPORARY TABLE tmp (a INT);
CREATE VIEW v AS SELECT a FROM tmp;
CREATE TABLE base (a INT);
INSERT INTO base VALUES (1);
CREATE VIEW v AS SELECT a FROM base;
CREATE TEMPORARY TABLE base (a INT);
INSERT INTO base VALUES (7), (8);
SELECT * FROM v;
SELECT COUNT(*) FROM base;
DROP TEMPORARY TABLE base;
SELECT * FROM v;

-- script: writes through a view
CREATE TABLE t (a INT, b INT);
INSERT INTO t VALUES (1, 1);
CREATE VIEW v AS SELECT a, SUM(b) AS s FROM t GROUP BY a;
INSERT INTO t SELECT a + 1, s FROM v;
SELECT * FROM t ORDER BY a;
