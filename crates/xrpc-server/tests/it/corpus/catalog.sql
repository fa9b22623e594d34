-- Catalog statements on tables the translation created: each script runs statement by statement
-- on a fresh node (translated) and a fresh MariaDB database, and the outcomes are compared
-- (corpus_sqlite.rs). One statement a line; "-- script: name" starts a script.

-- script: a WordPress-style table described
CREATE TABLE wp_posts (ID bigint(20) unsigned NOT NULL AUTO_INCREMENT, post_author bigint(20) unsigned NOT NULL DEFAULT '0', post_status varchar(20) NOT NULL DEFAULT 'publish', note TEXT, price DECIMAL(10,2), PRIMARY KEY (ID), KEY post_author (post_author)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
SHOW CREATE TABLE wp_posts;
INSERT INTO wp_posts (note) VALUES ('a'), ('b');
SHOW CREATE TABLE wp_posts;

-- script: the table options and column attributes SHOW CREATE TABLE writes
CREATE TABLE t2 (id INT PRIMARY KEY, name VARCHAR(10) COLLATE utf8mb4_bin, kind ENUM('x','y') DEFAULT 'x') ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci COMMENT='the t2';
SHOW CREATE TABLE t2;
SHOW COLUMNS FROM t2;

-- script: ON UPDATE and a UNIQUE column described
CREATE TABLE t3 (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, created TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, d DATE, u INT UNSIGNED UNIQUE);
SHOW CREATE TABLE t3;
DESCRIBE t3;

-- script: types, keys and indexes in information_schema
CREATE TABLE wp_posts (ID bigint(20) unsigned NOT NULL AUTO_INCREMENT, post_author bigint(20) unsigned NOT NULL DEFAULT '0', post_date datetime NOT NULL DEFAULT '2000-01-01 00:00:00', post_content longtext NOT NULL, post_status varchar(20) NOT NULL DEFAULT 'publish', kind ENUM('a','b c') NOT NULL DEFAULT 'a', price DECIMAL(10,2), ts TIMESTAMP NULL, ok BOOL, PRIMARY KEY (ID), UNIQUE KEY uk (post_status, post_date), KEY type_status_date (post_status, post_date, ID), KEY post_author (post_author)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
SHOW COLUMNS FROM wp_posts;
DESCRIBE wp_posts;
SELECT TABLE_NAME, ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE();
SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY, EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'wp_posts' ORDER BY ORDINAL_POSITION;
SELECT INDEX_NAME, COLUMN_NAME, NON_UNIQUE, SEQ_IN_INDEX FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'wp_posts' ORDER BY INDEX_NAME, SEQ_IN_INDEX;
SHOW CREATE TABLE wp_posts;

-- script: column defaults as information_schema and SHOW COLUMNS give them
CREATE TABLE cd (a VARCHAR(10) DEFAULT 'n', b INT DEFAULT '3', c INT, d INT NOT NULL, e VARCHAR(5) DEFAULT 'it''s', f TIMESTAMP NULL DEFAULT CURRENT_TIMESTAMP, g DECIMAL(5,2) DEFAULT 1.5, h VARCHAR(5) DEFAULT NULL, i VARCHAR(5) NOT NULL DEFAULT '', j DATE DEFAULT '2020-01-01', k DATETIME DEFAULT '2020-01-01', l ENUM('x','y') DEFAULT 'y', m DOUBLE DEFAULT 2, n VARCHAR(5) DEFAULT 5, o VARCHAR(5) DEFAULT 'NULL');
SELECT COLUMN_NAME, COLUMN_DEFAULT, COLUMN_DEFAULT IS NULL FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'cd' ORDER BY ORDINAL_POSITION;
SHOW COLUMNS FROM cd;
DESCRIBE cd;
SHOW FULL COLUMNS FROM cd LIKE '_';

-- script: SHOW FULL COLUMNS with collations and comments
CREATE TABLE notes (id INT PRIMARY KEY COMMENT 'the key', title VARCHAR(40) NOT NULL COMMENT 'shown', code VARCHAR(8) COLLATE utf8mb4_bin, body TEXT) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
SHOW FULL COLUMNS FROM notes;
SHOW FULL FIELDS FROM notes LIKE 'c%';
SELECT COLUMN_NAME, COLLATION_NAME, COLUMN_COMMENT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'NOTES' ORDER BY ORDINAL_POSITION;
SELECT COLUMN_NAME, COLLATION_NAME, COLUMN_COMMENT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'notes' ORDER BY ORDINAL_POSITION;

-- script: a mysqldump header saves the session's variables and its trailer restores them
/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;
/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;
/*!40101 SET NAMES utf8mb4 */;
/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;
/*!40103 SET TIME_ZONE='+00:00' */;
/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `t1` (`id` int(11) NOT NULL AUTO_INCREMENT, `name` varchar(20) DEFAULT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB AUTO_INCREMENT=3 DEFAULT CHARSET=utf8mb4;
/*!40101 SET character_set_client = @saved_cs_client */;
INSERT INTO `t1` VALUES (1,'a'),(2,'b');
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;
/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;
/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;
/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;
SELECT * FROM t1 ORDER BY id;

-- script: a temporary table is not listed
CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10));
CREATE TEMPORARY TABLE t (id BIGINT, b TIME(3) NOT NULL);
CREATE TEMPORARY TABLE only_temp (id INT);
SELECT column_name, column_type FROM information_schema.columns WHERE table_schema = DATABASE() ORDER BY table_name, ordinal_position;
SHOW TABLES;
SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY table_name;

-- script: a dump restored with foreign key checks off
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
SELECT @@FOREIGN_KEY_CHECKS, @OLD_FOREIGN_KEY_CHECKS;
CREATE TABLE comments (id INT PRIMARY KEY, post_id INT NOT NULL, KEY post_id (post_id), CONSTRAINT comments_post FOREIGN KEY (post_id) REFERENCES posts (id) ON DELETE CASCADE) ENGINE=InnoDB;
INSERT INTO comments VALUES (1, 10), (2, 10), (3, 11);
CREATE TABLE posts (id INT PRIMARY KEY, title VARCHAR(20)) ENGINE=InnoDB;
INSERT INTO posts VALUES (10, 'first');
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
SELECT @@FOREIGN_KEY_CHECKS;
INSERT INTO comments VALUES (4, 99);
INSERT INTO posts VALUES (11, 'second');
DELETE FROM posts WHERE id = 10;
SELECT id, post_id FROM comments ORDER BY id;
SET FOREIGN_KEY_CHECKS = 2;

-- script: column and table comments, quoted as MariaDB quotes them
CREATE TABLE commented (id int NOT NULL AUTO_INCREMENT PRIMARY KEY COMMENT 'the id', a varchar(10) DEFAULT 'x' COMMENT 'it''s a\\b\nc', t timestamp NULL ON UPDATE CURRENT_TIMESTAMP COMMENT 'ts') COMMENT='tb''l\\x\ny';
SHOW CREATE TABLE commented;
SELECT COLUMN_NAME, COLUMN_COMMENT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'commented' ORDER BY ORDINAL_POSITION;
SHOW FULL COLUMNS FROM commented;

-- script: CHECK constraints and JSON columns written back as MariaDB prints them
CREATE TABLE checked (id int NOT NULL PRIMARY KEY, n int CHECK (n > 0), s varchar(10) DEFAULT 'a' COMMENT 'c' CHECK (s LIKE 'a%' or s in ('x', 'y')), p int, doc json DEFAULT NULL, FOREIGN KEY (p) REFERENCES checked (id), CONSTRAINT positive CHECK (n + p > 0), CHECK (length(s) < 5 AND p BETWEEN 1 AND 100), CHECK ((n - 1) * 2 <> 3 - (4 - p) OR upper(s) = 'it''s\\'));
SHOW CREATE TABLE checked;
ALTER TABLE checked ADD INDEX s_index (s), ADD COLUMN z int;
SHOW CREATE TABLE checked;
CREATE TABLE documents (id int NOT NULL PRIMARY KEY, body json NOT NULL COMMENT 'the document', meta json) DEFAULT CHARSET=utf8mb4;
SHOW CREATE TABLE documents;

-- script: generated columns computed on every write and described as MariaDB describes them
CREATE TABLE items (id int NOT NULL PRIMARY KEY, price decimal(10,2) NOT NULL, qty int NOT NULL, total decimal(12,2) AS (price * qty) STORED, label varchar(20) GENERATED ALWAYS AS (CONCAT('item-', id)) VIRTUAL, KEY (total));
INSERT INTO items (id, price, qty) VALUES (1, 2.555, 3);
INSERT INTO items VALUES (2, 1.5, 2, DEFAULT, DEFAULT);
SELECT * FROM items ORDER BY id;
INSERT INTO items VALUES (3, 1.5, 2, 7, DEFAULT);
UPDATE items SET total = 5;
UPDATE items SET qty = qty + 1 WHERE id = 1;
SELECT id, total, label FROM items WHERE total > 5 ORDER BY total;
SHOW CREATE TABLE items;
SHOW COLUMNS FROM items;
SELECT COLUMN_NAME, COLUMN_DEFAULT, IS_NULLABLE, EXTRA, GENERATION_EXPRESSION, IS_GENERATED FROM information_schema.COLUMNS WHERE TABLE_NAME = 'items' ORDER BY ORDINAL_POSITION;
INSERT INTO items (id, price, qty) VALUES (4, 1, 1) ON DUPLICATE KEY UPDATE qty = 9;
INSERT INTO items (id, price, qty) VALUES (4, 1, 1) ON DUPLICATE KEY UPDATE qty = 9;
SELECT * FROM items ORDER BY id;
INSERT INTO items SET id = 5, price = 2, qty = 2;
REPLACE INTO items (id, price, qty) VALUES (5, 3, 3);
SELECT * FROM items ORDER BY id;
ALTER TABLE items ADD COLUMN note varchar(10);
ALTER TABLE items ADD INDEX by_label (label);
INSERT INTO items (id, price, qty, note) VALUES (6, 1, 1, 'x');
SELECT * FROM items ORDER BY id;
SELECT SUM(total), MAX(label) FROM items;

-- script: generated columns of several types, VIRTUAL by default
CREATE TABLE g (a int, b varchar(10), c int AS (a * 2), d varchar(30) AS (concat(b, '-', a)) STORED, e double AS (a / 3) VIRTUAL, f date AS (year(b)) VIRTUAL);
CREATE TABLE g (a int, b varchar(10), c int AS (a * 2), d varchar(30) AS (concat(b, '-', a)) STORED, e double AS (a / 3) VIRTUAL);
INSERT INTO g (a, b) VALUES (1, 'x'), (NULL, 'y'), (7, NULL);
SELECT * FROM g ORDER BY a;
SHOW CREATE TABLE g;

-- script: the printed forms of the functions and operators a check or a generated column may use
CREATE TABLE printed (a int, b varchar(20), d date, c decimal(5,2), CHECK (length(b) + char_length(b) + character_length(b) + octet_length(b) + ceil(a) + ceiling(a) + floor(a) + round(a) + round(a, 1) + abs(a) + sign(a) + greatest(a, 1) + least(a, 2) + nullif(a, 3) + locate('x', b) > -100), CHECK (trim(b) <> '' and left(b, 1) <> right(b, 1) and lower(b) <> lcase(b) or upper(b) <> ucase(b) and replace(b, 'a', 'b') <> reverse(b) and json_valid(b) and concat(b, lpad(b, 3, '0'), rpad(b, 2, ' ')) <> '' and ltrim(b) <> rtrim(b) and substring(b, 2) <> substr(b, 1, 1) and mid(b, 1, 2) <> '' and b <> repeat('x', 3) and hex(b) <> '' and field(b, 'a', 'b') > 0 and find_in_set(b, 'a,b') >= 0), CHECK ((a + 1) * 2 > 3 - (4 - a) and a % 3 <> 1 and a DIV 2 <> 7 and a MOD 5 <> 9 and -a < 0 and a - -1 > 0), CHECK (b = 'it''s' or b = "q" or b <> 'a\\b\nc' or b not like 'x%' and b not in ('p', 'q') and a not between 1 and 2 and c >= 0.50 and c < 1e3 and c <> -1.5 and a <=> 1 and b regexp 'a' and a is null or b is not null and year(d) > 2000 and month(d) <> 2 and if(a > 1, 1, 0) = 1 or ifnull(a, 0) = 0 or coalesce(b, '') = '' or cast(b as signed) > 0 and concat_ws(',', b, 'x') <> '' and json_extract(b, '$.a') = 1 and json_length(b) > 0 and json_type(b) <> 'x' and json_unquote(b) <> '' and a = NULL));
SHOW CREATE TABLE printed;

-- script: information_schema.CHECK_CONSTRAINTS lists the checks as MariaDB prints them
CREATE TABLE limits (id int NOT NULL PRIMARY KEY, n int CHECK (n > 0), doc json, CONSTRAINT positive CHECK (n + id > 0), CHECK (n BETWEEN 1 AND 9));
SELECT CONSTRAINT_CATALOG, CONSTRAINT_NAME, TABLE_NAME, LEVEL, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() ORDER BY CONSTRAINT_NAME;
SELECT COUNT(*) FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() AND LEVEL = 'Column';

-- script: a NOT in a check is written as MariaDB rewrites it
CREATE TABLE negations (a int, b varchar(10), CHECK (NOT a > 1), CHECK (NOT (a = 1 OR b <> 'x')), CHECK (NOT a IS NULL), CHECK (NOT a BETWEEN 1 AND 2), CHECK (NOT a IN (1, 2)), CHECK (NOT b LIKE 'x'), CHECK (b IN ('x')), CHECK (b NOT IN ('y')), CHECK (NOT a >= 1 AND NOT a <= 5 AND NOT a < 7 AND NOT a <> 2), CHECK (NOT NOT a > 1), CHECK (NOT (a > 1 AND NOT b = 'z')));
SHOW CREATE TABLE negations;
SELECT CONSTRAINT_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE TABLE_NAME = 'negations' ORDER BY CONSTRAINT_NAME;

-- script: an index added without a name is named after its first column
CREATE TABLE ui (id int NOT NULL PRIMARY KEY, a int, b int, KEY a (b));
ALTER TABLE ui ADD INDEX (a), ADD COLUMN c int;
ALTER TABLE ui ADD UNIQUE (b), ADD INDEX (a, b);
ALTER TABLE ui ADD INDEX (c);
ALTER TABLE ui ADD UNIQUE KEY (c);
SHOW CREATE TABLE ui;
SHOW INDEX FROM ui;

-- script: keys in MariaDB's order: unique ones first, the NOT NULL ones and the primary key leading
CREATE TABLE ko (id int NOT NULL, a int, b int NOT NULL, c varchar(20), d int NOT NULL, KEY ka (a), UNIQUE KEY ua (a), UNIQUE KEY ub (b), PRIMARY KEY (id), UNIQUE KEY ud (d, b), KEY kc (c(5)));
SHOW CREATE TABLE ko;
SHOW INDEX FROM ko;
ALTER TABLE ko ADD UNIQUE KEY ue (c), ADD KEY kb (b);
SHOW CREATE TABLE ko;
SELECT INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'ko';

-- script: DROP COLUMN drops the column's own checks and refuses one another check reads too
CREATE TABLE dc (id int NOT NULL PRIMARY KEY, a int CHECK (a > 0), b int, j json, CONSTRAINT t1 CHECK (b > 0), CONSTRAINT t2 CHECK (a < b));
INSERT INTO dc VALUES (1, 1, 2, '{"x": 1}');
ALTER TABLE dc DROP COLUMN j;
SHOW CREATE TABLE dc;
SELECT * FROM dc;
ALTER TABLE dc DROP COLUMN b;
ALTER TABLE dc DROP COLUMN a;
INSERT INTO dc VALUES (2, 5, 1);
SELECT CONSTRAINT_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE TABLE_NAME = 'dc' ORDER BY 1;

-- script: a table check that reads only the dropped column goes with it
CREATE TABLE dd (id int NOT NULL PRIMARY KEY, a int, b int, CONSTRAINT pos CHECK (b > 0));
ALTER TABLE dd DROP COLUMN b;
SHOW CREATE TABLE dd;
INSERT INTO dd VALUES (1, -1);
SELECT * FROM dd;

-- script: table names asked for in information_schema are looked up byte for byte, compared without regard to case elsewhere
CREATE TABLE Mixed_Case (a INT);
CREATE TABLE lower_b (a INT);
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'mixed_case';
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'Mixed_Case';
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('mixed_case');
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME <=> 'MIXED_CASE';
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND (TABLE_NAME = 'mixed_case' OR TABLE_NAME = 'nothing');
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('mixed_case', 'LOWER_B') ORDER BY TABLE_NAME;
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'MIXED%';
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND UPPER(TABLE_NAME) = 'MIXED_CASE';
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME > 'LOWER_B' ORDER BY TABLE_NAME;
SELECT COUNT(DISTINCT TABLE_NAME), GROUP_CONCAT(DISTINCT UPPER(TABLE_NAME) ORDER BY TABLE_NAME) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE();
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() UNION SELECT 'MIXED_CASE' ORDER BY 1;
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND (TABLE_NAME = 'mixed_case');
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'Mixed_Case ';
SELECT t.TABLE_NAME FROM information_schema.TABLES t JOIN lower_b ON t.TABLE_NAME = 'mixed_case' WHERE t.TABLE_SCHEMA = DATABASE();
SELECT t.TABLE_NAME FROM information_schema.TABLES t WHERE t.TABLE_SCHEMA = DATABASE() AND EXISTS (SELECT 1 FROM information_schema.SCHEMATA WHERE t.TABLE_NAME = 'mixed_case') ORDER BY 1;
SET @wanted = 'mixed_case';
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = @wanted;
SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND INDEX_SCHEMA = UPPER(DATABASE());
SELECT n FROM (SELECT TABLE_NAME AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()) x ORDER BY n;
