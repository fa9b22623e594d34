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

-- script: views of unions, subqueries, DISTINCT, LIMIT and common table expressions
CREATE TABLE t (a INT, b VARCHAR(10));
INSERT INTO t VALUES (1, 'x'), (2, 'X'), (3, 'y'), (3, 'z');
CREATE VIEW u AS SELECT a FROM t WHERE a < 2 UNION SELECT a FROM t WHERE a > 2;
SELECT * FROM u ORDER BY a;
CREATE VIEW d AS SELECT DISTINCT b FROM t;
SELECT COUNT(*) FROM d;
CREATE VIEW top2 AS SELECT a, b FROM t ORDER BY a DESC, b LIMIT 2;
SELECT * FROM top2 ORDER BY b;
CREATE VIEW c AS WITH big AS (SELECT a FROM t WHERE a > 1) SELECT COUNT(*) AS n FROM big;
SELECT n FROM c;
CREATE VIEW s AS SELECT a FROM t WHERE a IN (SELECT a FROM t WHERE b = 'y');
SELECT * FROM s;
SELECT a FROM t WHERE a IN (SELECT a FROM u) ORDER BY a;
SELECT x.a, y.b FROM u x JOIN t y ON y.a = x.a ORDER BY x.a, y.b;
SELECT (SELECT MAX(a) FROM u) AS m;
CREATE VIEW e AS SELECT a + 1, b, CONCAT(b, '!') FROM t;
SELECT `a + 1`, `CONCAT(b, '!')` FROM e ORDER BY 1, 2;
CREATE VIEW cased AS SELECT A, B AS Bee FROM t;
SELECT a, bee FROM cased ORDER BY a, bee;
SELECT * FROM cased c1 JOIN cased c2 USING (a) ORDER BY 1, 2, 3;

-- script: reading a view to write a table
CREATE TABLE t (a INT, b DECIMAL(6,2));
INSERT INTO t VALUES (1, 1.25), (1, 2.50), (2, 0.10);
CREATE VIEW sums AS SELECT a, SUM(b) AS total FROM t GROUP BY a;
CREATE TABLE copy AS SELECT a FROM sums;
SELECT * FROM copy ORDER BY a;
CREATE TABLE other (a INT, total DECIMAL(10,2));
INSERT INTO other SELECT a, total FROM sums;
SELECT * FROM other ORDER BY a;
UPDATE other JOIN sums ON sums.a = other.a SET other.total = sums.total * 2;
SELECT * FROM other ORDER BY a;
DELETE FROM other WHERE a IN (SELECT a FROM sums WHERE total > 1);
SELECT * FROM other;

-- script: a temporary table hides a view of its name
CREATE TABLE t (a INT);
INSERT INTO t VALUES (1);
CREATE VIEW v AS SELECT a FROM t;
CREATE TEMPORARY TABLE v (a INT);
INSERT INTO v VALUES (5);
SELECT * FROM v;
DROP TEMPORARY TABLE v;
SELECT * FROM v;

-- script: ALTER VIEW, and ALGORITHM, SQL SECURITY and the session's DEFINER accepted
CREATE TABLE t (a INT);
INSERT INTO t VALUES (1), (5);
CREATE ALGORITHM=MERGE VIEW v1 AS SELECT a FROM t;
CREATE ALGORITHM=TEMPTABLE SQL SECURITY INVOKER VIEW v2 AS SELECT a FROM t;
CREATE DEFINER=CURRENT_USER SQL SECURITY DEFINER VIEW v3 AS SELECT a FROM t WHERE a > 1;
ALTER VIEW v1 AS SELECT a * 2 AS a FROM t;
SELECT * FROM v1 ORDER BY a;
ALTER VIEW v2 (x) AS SELECT a + 1 FROM t;
SELECT x FROM v2 ORDER BY x;
SELECT * FROM v3;
ALTER VIEW missing AS SELECT 1;
ALTER VIEW t AS SELECT 1;
ALTER VIEW v3 (x, y) AS SELECT a FROM t;
/*!50001 CREATE ALGORITHM=UNDEFINED */ /*!50013 DEFINER=CURRENT_USER SQL SECURITY DEFINER */ /*!50001 VIEW `v9` AS select `t`.`a` AS `a` from `t` */;
SELECT SUM(a) FROM v9;

-- script: a view that would read itself
CREATE TABLE t (a INT);
INSERT INTO t VALUES (1);
CREATE VIEW v AS SELECT a FROM t;
CREATE VIEW w AS SELECT a FROM v;
CREATE OR REPLACE VIEW v AS SELECT a FROM w;
CREATE OR REPLACE VIEW v AS SELECT a FROM v;
ALTER VIEW v AS SELECT a FROM w;
SELECT * FROM v;
SELECT * FROM w;

-- script: writes to the table a view reads, through the view
CREATE TABLE t (a INT, b INT);
INSERT INTO t VALUES (1, 1), (2, 2), (3, 3);
CREATE VIEW v AS SELECT a FROM t WHERE b > 1;
UPDATE t SET b = 9 WHERE a IN (SELECT a FROM v);
SELECT * FROM t ORDER BY a;
INSERT INTO t SELECT a + 10, 0 FROM v;
SELECT * FROM t ORDER BY a;
UPDATE t JOIN v ON v.a = t.a SET t.b = 5;
SELECT * FROM t ORDER BY a;
DELETE FROM t WHERE a IN (SELECT a FROM v WHERE a > 2);
SELECT * FROM t ORDER BY a;
DELETE t FROM t JOIN v ON v.a = t.a;
SELECT * FROM t ORDER BY a;

-- script: an UPDATE's assigned columns are not the view's
CREATE TABLE t (a INT, b INT);
CREATE TABLE u (a INT);
INSERT INTO t VALUES (1, 0), (2, 0);
INSERT INTO u VALUES (7), (9);
CREATE VIEW v AS SELECT a FROM u;
UPDATE t SET a = a + 100, b = (SELECT MAX(a) FROM v);
SELECT * FROM t ORDER BY a;

-- script: writes through a view of one table's columns
CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(10), price DECIMAL(6,2) DEFAULT 1.00, hidden INT DEFAULT 7);
CREATE VIEW v AS SELECT id, name, price FROM t WHERE price > 1;
INSERT INTO v VALUES (1, 'a', 2.50);
INSERT INTO v (id, name) VALUES (2, 'b');
INSERT INTO v (id, price) VALUES (3, 0.50), (4, 9.99);
SELECT * FROM t ORDER BY id;
SELECT * FROM v ORDER BY id;
UPDATE v SET price = price * 2 WHERE name IS NULL;
SELECT * FROM t ORDER BY id;
UPDATE v SET name = 'z';
SELECT * FROM t ORDER BY id;
UPDATE v x SET x.price = x.price + 1 WHERE x.id > 1 ORDER BY x.id LIMIT 1;
SELECT * FROM t ORDER BY id;
DELETE FROM v WHERE price > 5;
SELECT * FROM t ORDER BY id;
DELETE FROM v;
SELECT * FROM t ORDER BY id;
INSERT INTO v VALUES (1, 'dup', 3.00);
INSERT INTO v VALUES (1, 'dup', 3.00);
INSERT IGNORE INTO v VALUES (1, 'dup', 3.00);
REPLACE INTO v VALUES (1, 'new', 4.00);
SELECT * FROM t ORDER BY id;
UPDATE v SET hidden = 1;
INSERT INTO v (hidden) VALUES (1);
DELETE FROM v WHERE hidden = 7;
INSERT INTO v VALUES (5, 'too long a name', 1.00);
INSERT INTO v SET id = 6, name = 'set';
SELECT * FROM t ORDER BY id;

-- script: writes through a view with a column list, an alias and a star
CREATE TABLE t (a INT, b VARCHAR(5));
CREATE VIEW v (x, y) AS SELECT q.a, q.b FROM t AS q WHERE q.a < 10;
INSERT INTO v VALUES (1, 'one'), (20, 'big');
INSERT INTO v (y, x) VALUES ('two', 2);
UPDATE v SET y = UPPER(y) WHERE x < 2;
SELECT * FROM t ORDER BY a;
DELETE FROM v WHERE y = 'two';
SELECT * FROM t ORDER BY a;
CREATE VIEW s AS SELECT * FROM t;
UPDATE s SET b = 'all';
DELETE FROM s WHERE a = 1;
SELECT * FROM t ORDER BY a;
CREATE VIEW r AS SELECT b AS label, a FROM t;
UPDATE r SET label = CONCAT(label, '!'), a = a + 1;
SELECT * FROM t ORDER BY a;

-- script: an INSERT through a view leaves a column without a default
CREATE TABLE t (a INT, b INT NOT NULL);
CREATE VIEW v AS SELECT a FROM t;
INSERT INTO v VALUES (1);
INSERT INTO v (a) SELECT 2;
SELECT COUNT(*) FROM t;

-- script: writes through a view with computed columns
CREATE TABLE t (id INT PRIMARY KEY, price DECIMAL(6,2), qty INT);
CREATE VIEW v AS SELECT id, price, qty, price * qty AS total FROM t WHERE qty > 0;
INSERT INTO v (id, price, qty) VALUES (1, 1.50, 2), (2, 3.00, 1), (3, 9.00, 0);
SELECT * FROM v ORDER BY id;
UPDATE v SET qty = qty + 1 WHERE total > 2.5;
SELECT * FROM t ORDER BY id;
UPDATE v SET price = total WHERE id = 1;
SELECT * FROM t ORDER BY id;
DELETE FROM v WHERE total < 4;
SELECT * FROM t ORDER BY id;
UPDATE v SET total = 1;
INSERT INTO v (id, total) VALUES (9, 1);
INSERT INTO v VALUES (9, 1.00, 1, 1.00);
SELECT * FROM t ORDER BY id;

-- script: INSERT into a view's plain columns beside a computed one
CREATE TABLE t (a INT, b INT);
CREATE VIEW v AS SELECT a, b + 1 AS c FROM t;
INSERT INTO v (a) VALUES (2);
SELECT * FROM v;

-- script: a view wherever a table may be named
CREATE TABLE t (a INT, b VARCHAR(5));
INSERT INTO t VALUES (1, 'x'), (2, 'Y'), (3, 'z');
CREATE VIEW v AS SELECT a, b FROM t WHERE a > 1;
SELECT v.* FROM v ORDER BY a;
SELECT x.a, y.a FROM v AS x JOIN v AS y ON y.a > x.a ORDER BY 1, 2;
WITH c AS (SELECT a FROM v) SELECT SUM(a) FROM c;
SELECT d.n FROM (SELECT COUNT(*) AS n FROM v) AS d;
SELECT a FROM v UNION SELECT a FROM t ORDER BY a;
SELECT a FROM t WHERE EXISTS (SELECT 1 FROM v WHERE v.a = t.a) ORDER BY a;
SELECT a, (SELECT b FROM v WHERE v.a = t.a) AS vb FROM t ORDER BY a;
SELECT b FROM v WHERE b = 'y' OR b LIKE 'Z%' ORDER BY b;
SELECT b, COUNT(*) FROM v GROUP BY b HAVING COUNT(*) > 0 ORDER BY b DESC LIMIT 1;
SELECT * FROM v LEFT JOIN t USING (a) ORDER BY a;

-- script: writes through a view over a view
CREATE TABLE t (id INT PRIMARY KEY, price DECIMAL(6,2), qty INT);
INSERT INTO t VALUES (1, 1.00, 1), (2, 2.00, 2), (3, 3.00, 3);
CREATE VIEW inner_v AS SELECT id, price AS cost, qty, price * qty AS total FROM t WHERE qty > 1;
CREATE VIEW outer_v (k, c, line) AS SELECT o.id, o.cost, o.total + 1 FROM inner_v AS o WHERE o.cost < 3;
SELECT * FROM outer_v;
UPDATE outer_v SET c = c + 10 WHERE line > 0;
SELECT * FROM t ORDER BY id;
INSERT INTO outer_v (k, c) VALUES (4, 0.50);
SELECT * FROM t ORDER BY id;
UPDATE outer_v SET line = 1;
DELETE FROM outer_v;
SELECT * FROM t ORDER BY id;
UPDATE t SET price = 1.00, qty = 5;
DELETE FROM outer_v WHERE k = 2;
SELECT * FROM t ORDER BY id;
