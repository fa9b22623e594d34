-- The differential corpus: each script runs on MariaDB and on the SQLite translation, statement
-- by statement (one statement a line), and the outcomes are compared (tests/corpus.rs).
-- A line "-- script: name" starts a script; other lines starting with "--" are comments.

-- script: comments and operators
SELECT 5--2, 7 DIV 2;
SELECT 1 # a comment;
SELECT 1 -- a comment;
/*!40101 SELECT 'versioned' */;
SELECT 1 /*!99999 + 100 */;
SELECT 7 MOD 3, -7 MOD 3, 7 % -3, MOD(10, 4);
SELECT 7 / 2, 1 / 3, 10 / 4, 1 / 0;
SELECT 2 * 3 + 4, 2 + 3 * 4, (2 + 3) * 4;
SELECT 1 || 0, 0 || 0, 1 && 1, NOT 1, NOT 0 + 1;
SELECT !0, ! (1 = 2), !1 = 0, !1 + 1, -!1, !!5, !NULL, NOT !1;
SELECT 1 XOR 1, 1 XOR 0, NULL XOR 1;
SELECT 1 <=> 1, NULL <=> NULL, 1 <=> NULL, NULL = NULL;
SELECT -9223372036854775808, 9223372036854775807;
SELECT 9223372036854775807 + 1;
SELECT 0.1 + 0.2, 1.50 + 1, 1.5 * 1.25, 10.0 / 3;
SELECT 1e0 / 3, 2e0 * 3, 1.5e0 + 1;
SELECT 12 DIV 5, -12 DIV 5, 12.7 DIV 2;
SELECT '12abc' + 0, 'abc' + 1, '1.5' * 2;
SELECT 1 = 1.0, 2 > 1.99, '10' = 10, 'a' = 0;

-- script: text comparison under the default collation
SELECT 'a' = 'A', 'a' = 'a ', 'abc' < 'ABD', 'é' = 'e';
SELECT 'a' = BINARY 'A', 'a' COLLATE utf8mb4_bin = 'A';
SELECT STRCMP('apple', 'APPLE'), STRCMP('a', 'b'), STRCMP('b', 'a');
SELECT 'Hello' LIKE 'h%', 'Hello' LIKE 'H_llo', 'a%b' LIKE 'a\%b', 'axb' LIKE 'a\%b';
SELECT 'Hello' NOT LIKE '%x%', 'abc' LIKE 'ABC';
SELECT 'abc' REGEXP '^A', 'abc' REGEXP 'b+', 'abc' RLIKE 'x';
SELECT 'b' IN ('A', 'B'), 'c' IN ('a', 'b'), 'c' NOT IN ('a', 'b');
SELECT 'b' BETWEEN 'A' AND 'C', 5 BETWEEN 1 AND 10, 5 NOT BETWEEN 1 AND 4;
CREATE TABLE fruit (id INT PRIMARY KEY, name VARCHAR(20)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO fruit VALUES (1, 'banana'), (2, 'Apple'), (3, 'cherry'), (4, 'apple'), (5, 'Banana');
SELECT name FROM fruit ORDER BY name, id;
SELECT id FROM fruit WHERE name = 'APPLE' ORDER BY id;
SELECT COUNT(DISTINCT name) FROM fruit;
SELECT LOWER(name), COUNT(*) FROM fruit GROUP BY name ORDER BY 1;
SELECT MIN(name), MAX(name) FROM fruit;
SELECT id FROM fruit WHERE name LIKE 'b%' ORDER BY id;
SELECT id FROM fruit WHERE name > 'b' ORDER BY id;
CREATE TABLE codes (c VARCHAR(10) COLLATE utf8mb4_bin);
INSERT INTO codes VALUES ('b'), ('B'), ('a'), ('A');
SELECT c FROM codes ORDER BY c;
SELECT COUNT(*) FROM codes WHERE c = 'a';

-- script: flow functions
SELECT IF(1 > 0, 'yes', 'no'), IF(NULL, 1, 2), IF(0, 1, 2.5);
SELECT IFNULL(NULL, 'x'), IFNULL(1, 2), IFNULL(NULL, NULL);
SELECT NULLIF(1, 1), NULLIF(1, 2), NULLIF('a', 'A');
SELECT COALESCE(NULL, NULL, 3), COALESCE(NULL, 'a');
SELECT GREATEST(1, 5, 3), LEAST(1, 5, 3), GREATEST(1, NULL, 3);
SELECT GREATEST('apple', 'Banana'), LEAST('apple', 'Banana');
SELECT CASE 2 WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END;
SELECT CASE WHEN 1 > 2 THEN 'a' WHEN 2 > 1 THEN 'b' END, CASE WHEN 0 THEN 1 END;
SELECT CASE 'A' WHEN 'a' THEN 'ci' ELSE 'cs' END;

-- script: string functions
SELECT CONCAT('a', 'b', 'c'), CONCAT('a', NULL), CONCAT('x', 1, 2.50);
SELECT CONCAT_WS('-', 'a', NULL, 'b'), CONCAT_WS(NULL, 'a', 'b'), CONCAT_WS(',', 1, 2);
SELECT LPAD('hi', 5, '*'), RPAD('hi', 5, 'ab'), LPAD('hello', 3, '*'), LPAD('hi', -1, '*'), RPAD('hi', 4, '');
SELECT SUBSTRING_INDEX('www.mysql.com', '.', 2), SUBSTRING_INDEX('www.mysql.com', '.', -2), SUBSTRING_INDEX('a.b', '.', 0);
SELECT LOCATE('bar', 'foobarbar'), LOCATE('BAR', 'foobarbar'), LOCATE('bar', 'foobarbar', 5), LOCATE('x', 'abc');
SELECT INSTR('foobar', 'bar'), INSTR('foobar', 'BAR'), POSITION('b' IN 'abc');
SELECT FIND_IN_SET('b', 'a,b,c'), FIND_IN_SET('B', 'a,b,c'), FIND_IN_SET('d', 'a,b,c'), FIND_IN_SET('a', '');
SELECT FIELD('b', 'a', 'b', 'c'), FIELD('B', 'a', 'b'), FIELD('x', 'a'), FIELD(2, 1, 2, 3);
SELECT ELT(2, 'a', 'b', 'c'), ELT(0, 'a'), ELT(4, 'a', 'b');
SELECT LEFT('abcdef', 3), RIGHT('abcdef', 2), LEFT('abc', 0), RIGHT('abc', 10);
SELECT REPEAT('ab', 3), REPEAT('x', 0), REPEAT('x', -1), REVERSE('abc'), SPACE(3);
SELECT HEX('abc'), HEX(255), UNHEX('616263'), HEX(''), UNHEX('zz');
SELECT LENGTH('héllo'), CHAR_LENGTH('héllo'), CHARACTER_LENGTH('abc');
SELECT UPPER('abc'), LOWER('ABC'), UCASE('x'), LCASE('Y');
SELECT SUBSTRING('hello', 2), SUBSTRING('hello', 2, 3), SUBSTRING('hello', -3), SUBSTRING('hello', 0), MID('hello', 2, 2), SUBSTR('hello' FROM 3);
SELECT SUBSTRING('hello' FROM 2 FOR 2), SUBSTRING('hello', 3, -1), SUBSTRING('hello', 10);
SELECT TRIM('  x  '), LTRIM('  x  '), RTRIM('  x  '), TRIM(LEADING 'a' FROM 'aaxaa'), TRIM(TRAILING 'a' FROM 'aaxaa'), TRIM(BOTH 'ab' FROM 'ababxab');
SELECT REPLACE('aaa', 'a', 'bb'), REPLACE('abc', 'B', 'x'), REPLACE('abc', '', 'x');
SELECT INSERT('Quadratic', 3, 4, 'What'), INSERT('Quadratic', -1, 4, 'What'), INSERT('Quadratic', 3, 100, 'What');
SELECT ASCII('A'), ASCII(''), ASCII('abc');
SELECT FORMAT(12332.123456, 4), FORMAT(12332.1, 4), FORMAT(12332.2, 0), FORMAT(-1234567.891, 2);
SELECT CONCAT('a', 'b') = 'AB', LENGTH(CONCAT('a', NULL));

-- script: numeric functions
SELECT ABS(-5), ABS(-2.50), ABS(5);
SELECT ROUND(2.5), ROUND(-2.5), ROUND(1.234, 2), ROUND(1.235, 2), ROUND(125, -1), ROUND(1.5e0);
SELECT TRUNCATE(1.999, 1), TRUNCATE(-1.999, 1), TRUNCATE(123, -1);
SELECT CEIL(1.2), CEILING(-1.2), FLOOR(1.8), FLOOR(-1.8), CEIL(5);
SELECT POW(2, 10), POWER(2, 0.5), SQRT(16), SQRT(-1);
SELECT LN(1), LOG(10, 100), LOG10(1000), LOG2(8), EXP(0), LN(0);
SELECT SIGN(-3), SIGN(0), SIGN(2.5);
SELECT CONV('ff', 16, 10), CONV('10', 10, 2), CONV('z', 36, 10);
SELECT MOD(7.5, 2), 7.5 % 2, MOD(-7, 2);
SELECT CAST('12abc' AS SIGNED), CAST(1.5 AS SIGNED), CAST(-1.5 AS SIGNED), CAST('abc' AS SIGNED);
SELECT CAST(1.005 AS DECIMAL(10,2)), CAST('3.14159' AS DECIMAL(5,3)), CAST(123 AS DECIMAL(4,1));
SELECT CAST(42 AS CHAR), CAST(1.50 AS CHAR), CAST('2024-02-03' AS DATE);
SELECT CAST('2024-02-03 04:05:06' AS DATETIME), CAST('2024-02-03' AS DATETIME);

-- script: date and time functions
SELECT DATE_FORMAT('2024-03-05 14:07:09', '%Y-%m-%d %H:%i:%s'), DATE_FORMAT('2024-03-05', '%W %M %D %Y');
SELECT DATE_FORMAT('2024-03-05 14:07:09', '%a %b %e %c %h:%i %p %j %y');
SELECT DATE_FORMAT('2024-01-01', '%U'), DATE_FORMAT('2024-12-31', '%U'), DATE_FORMAT('2023-06-15 00:00:00', '%r %T');
SELECT DATE_ADD('2024-01-31', INTERVAL 1 MONTH), DATE_SUB('2024-03-31', INTERVAL 1 MONTH);
SELECT DATE_ADD('2024-01-01', INTERVAL 1 DAY), DATE_ADD('2024-01-01 10:00:00', INTERVAL 90 MINUTE);
SELECT '2024-02-28' + INTERVAL 1 DAY, '2024-12-31' + INTERVAL 1 YEAR, '2024-02-29' - INTERVAL 1 YEAR;
SELECT DATE_ADD('2024-01-01', INTERVAL 1 HOUR), DATE_ADD('2024-01-01', INTERVAL -2 WEEK), DATE_ADD('2024-01-15', INTERVAL 1 QUARTER);
SELECT ADDDATE('2024-01-01', 10), SUBDATE('2024-01-01', 1), ADDDATE('2024-01-01', INTERVAL 2 MONTH);
SELECT DATEDIFF('2024-03-01', '2024-02-01'), DATEDIFF('2024-01-01 23:59:59', '2024-01-02'), DATEDIFF('2024-02-30', '2024-01-01');
SELECT TIMESTAMPDIFF(DAY, '2024-01-01', '2024-03-01'), TIMESTAMPDIFF(MONTH, '2024-01-31', '2024-02-29'), TIMESTAMPDIFF(YEAR, '2000-02-29', '2024-02-28');
SELECT TIMESTAMPDIFF(HOUR, '2024-01-01 00:00:00', '2024-01-02 12:30:00'), TIMESTAMPDIFF(MINUTE, '2024-01-01 10:00:00', '2024-01-01 09:00:00');
SELECT TIMESTAMPADD(DAY, 5, '2024-01-01'), TIMESTAMPADD(MONTH, 1, '2024-01-31 10:00:00');
SELECT YEAR('2024-03-05'), MONTH('2024-03-05'), DAY('2024-03-05'), DAYOFMONTH('2024-03-05');
SELECT HOUR('2024-03-05 14:07:09'), MINUTE('2024-03-05 14:07:09'), SECOND('2024-03-05 14:07:09');
SELECT DAYOFWEEK('2024-03-05'), WEEKDAY('2024-03-05'), DAYOFYEAR('2024-03-05'), QUARTER('2024-03-05');
SELECT DAYNAME('2024-03-05'), MONTHNAME('2024-03-05'), LAST_DAY('2024-02-10'), LAST_DAY('2023-02-10');
SELECT WEEK('2024-01-01'), WEEK('2024-01-07'), WEEK('2024-12-31');
SELECT TO_DAYS('2024-01-01'), FROM_DAYS(739251), MAKEDATE(2024, 60);
SELECT DATE('2024-03-05 14:07:09'), DATE('2024-02-30'), YEAR('not a date');
SELECT EXTRACT(YEAR FROM '2024-03-05'), EXTRACT(MONTH FROM '2024-03-05 01:02:03'), EXTRACT(MINUTE FROM '2024-03-05 01:02:03');
SELECT FROM_UNIXTIME(0), FROM_UNIXTIME(1700000000), UNIX_TIMESTAMP('2024-01-01');
SELECT NOW() IS NOT NULL, CURDATE() = DATE(NOW()), LENGTH(NOW()), LENGTH(CURDATE());
SELECT '2024-01-05' < '2024-01-10', DATE('2024-01-05') = '2024-01-05';

-- script: a WordPress-style schema
CREATE TABLE wp_users (ID BIGINT(20) NOT NULL AUTO_INCREMENT, user_login VARCHAR(60) NOT NULL DEFAULT '', user_email VARCHAR(100) NOT NULL DEFAULT '', user_registered DATETIME NOT NULL DEFAULT '2000-01-01 00:00:00', user_status INT(11) NOT NULL DEFAULT 0, display_name VARCHAR(250) NOT NULL DEFAULT '', PRIMARY KEY (ID), KEY user_login_key (user_login), KEY user_email (user_email)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO wp_users (user_login, user_email, user_registered, display_name) VALUES ('admin', 'admin@example.com', '2024-01-01 10:00:00', 'Admin');
INSERT INTO wp_users (user_login, user_email, user_registered, display_name) VALUES ('editor', 'ed@example.com', '2024-02-01 11:00:00', 'Editor'), ('author', 'au@example.com', '2024-03-01 12:00:00', 'Author');
SELECT ID, user_login, user_status FROM wp_users ORDER BY ID;
SELECT * FROM wp_users WHERE user_login = 'ADMIN';
SELECT user_login FROM wp_users WHERE user_registered >= '2024-02-01' ORDER BY user_registered DESC;
SELECT COUNT(*) FROM wp_users WHERE user_email LIKE '%@example.com';
UPDATE wp_users SET user_status = 1 WHERE user_login IN ('editor', 'author');
UPDATE wp_users SET user_status = 1 WHERE user_login = 'editor';
SELECT user_login, user_status FROM wp_users ORDER BY user_login;
DELETE FROM wp_users WHERE user_login = 'nobody';
INSERT INTO wp_users (user_login) VALUES ('x');
SELECT ID, user_email, user_registered FROM wp_users WHERE user_login = 'x';
CREATE TABLE wp_options (option_id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT, option_name VARCHAR(191) NOT NULL DEFAULT '', option_value LONGTEXT NOT NULL, autoload VARCHAR(20) NOT NULL DEFAULT 'yes', PRIMARY KEY (option_id), UNIQUE KEY option_name (option_name)) ENGINE=InnoDB;
CREATE TABLE wp_options (option_id INT NOT NULL AUTO_INCREMENT, option_name VARCHAR(191) NOT NULL DEFAULT '', option_value LONGTEXT NOT NULL, autoload VARCHAR(20) NOT NULL DEFAULT 'yes', PRIMARY KEY (option_id), UNIQUE KEY option_name (option_name)) ENGINE=InnoDB;
INSERT INTO wp_options (option_name, option_value) VALUES ('siteurl', 'http://example.com') ON DUPLICATE KEY UPDATE option_value = VALUES(option_value);
INSERT INTO wp_options (option_name, option_value) VALUES ('siteurl', 'http://example.org') ON DUPLICATE KEY UPDATE option_value = VALUES(option_value);
INSERT INTO wp_options (option_name, option_value) VALUES ('siteurl', 'http://example.org') ON DUPLICATE KEY UPDATE option_value = VALUES(option_value);
SELECT option_id, option_name, option_value, autoload FROM wp_options;
INSERT INTO wp_options (option_name, option_value) VALUES ('SITEURL', 'dup');
INSERT IGNORE INTO wp_options (option_name, option_value) VALUES ('SITEURL', 'dup'), ('home', 'h');
SELECT option_name FROM wp_options ORDER BY option_id;
INSERT INTO wp_options SET option_name = 'blogname', option_value = 'My blog';
SELECT option_value FROM wp_options WHERE option_name = 'blogname';

-- script: upserts and counters
CREATE TABLE counters (name VARCHAR(20) PRIMARY KEY, hits INT NOT NULL DEFAULT 0, updated DATE);
INSERT INTO counters (name, hits) VALUES ('a', 1) ON DUPLICATE KEY UPDATE hits = hits + 1;
INSERT INTO counters (name, hits) VALUES ('a', 1) ON DUPLICATE KEY UPDATE hits = hits + 1;
INSERT INTO counters (name, hits) VALUES ('a', 1), ('b', 5) ON DUPLICATE KEY UPDATE hits = hits + VALUES(hits);
SELECT name, hits FROM counters ORDER BY name;
INSERT INTO counters (name, hits) VALUES ('b', 6) ON DUPLICATE KEY UPDATE hits = 6;
INSERT INTO counters (name, hits) VALUES ('b', 6) ON DUPLICATE KEY UPDATE hits = hits;
SELECT name, hits FROM counters ORDER BY name;
INSERT INTO counters (name, hits, updated) VALUES ('c', 0, '2024-05-06');
SELECT name, updated FROM counters WHERE updated IS NOT NULL;
UPDATE counters SET hits = hits * 2 ORDER BY name LIMIT 2;
SELECT name, hits FROM counters ORDER BY name;
UPDATE counters SET hits = 0 ORDER BY hits DESC LIMIT 1;
SELECT name, hits FROM counters ORDER BY name;
DELETE FROM counters ORDER BY name DESC LIMIT 1;
SELECT COUNT(*) FROM counters;
DELETE FROM counters LIMIT 5;
SELECT COUNT(*) FROM counters;

-- script: strict mode writes
CREATE TABLE strict_t (i INT, s VARCHAR(3), d DECIMAL(5,2), dt DATE, t TINYINT UNSIGNED);
INSERT INTO strict_t (i) VALUES ('12abc');
INSERT INTO strict_t (i) VALUES ('abc');
INSERT INTO strict_t (i) VALUES (2147483648);
INSERT INTO strict_t (s) VALUES ('abcd');
INSERT INTO strict_t (s) VALUES ('abc  ');
INSERT INTO strict_t (d) VALUES (1234.5);
INSERT INTO strict_t (d) VALUES (1.555);
INSERT INTO strict_t (dt) VALUES ('2024-02-30');
INSERT INTO strict_t (dt) VALUES ('2024-2-3');
INSERT INTO strict_t (t) VALUES (-1);
INSERT INTO strict_t (t) VALUES (255);
INSERT INTO strict_t (i) VALUES (1 / 0);
INSERT INTO strict_t (i) VALUES (7.5);
INSERT INTO strict_t (i) VALUES (' 42 ');
SELECT i, s, d, dt, t FROM strict_t ORDER BY i, s, d, dt, t;
INSERT IGNORE INTO strict_t (i, s, t) VALUES ('99x', 'toolong', 300);
SELECT i, s, t FROM strict_t WHERE i = 99;
UPDATE strict_t SET s = 'wxyz' WHERE t = 255;
UPDATE strict_t SET i = i + 1 WHERE i IS NOT NULL;
SELECT i FROM strict_t WHERE i IS NOT NULL ORDER BY i;

-- script: decimals
CREATE TABLE prices (id INT PRIMARY KEY, price DECIMAL(10,2), qty INT);
INSERT INTO prices VALUES (1, 5.80, 2), (2, 5.80, 3), (3, 0.10, 10), (4, NULL, 1);
SELECT SUM(price), AVG(price), MIN(price), MAX(price) FROM prices;
SELECT SUM(qty), AVG(qty), SUM(price * qty) FROM prices;
SELECT id, price * qty, price / 3, price + 0.0000000001 FROM prices ORDER BY id;
SELECT id FROM prices WHERE price = 5.8 ORDER BY id;
SELECT id FROM prices WHERE price > 1 ORDER BY price, id;
SELECT price, COUNT(*) FROM prices GROUP BY price ORDER BY price;
INSERT INTO prices VALUES (5, 12.345, 1);
INSERT INTO prices VALUES (6, '7.5', 1);
SELECT id, price FROM prices WHERE id >= 5 ORDER BY id;
SELECT ROUND(price, 1), TRUNCATE(price, 0) FROM prices WHERE id = 1;
UPDATE prices SET price = price + 1.005 WHERE id = 1;
SELECT price FROM prices WHERE id = 1;
CREATE TABLE big (d DECIMAL(30,10));
INSERT INTO big VALUES (12345678901234567890.1234567890);
SELECT d, d + 0.0000000001, d * 2 FROM big;
SELECT CAST(d AS SIGNED) FROM big;

-- script: joins and grouping
CREATE TABLE authors (id INT PRIMARY KEY, name VARCHAR(50));
CREATE TABLE books (id INT PRIMARY KEY, author_id INT, title VARCHAR(100), pages INT, KEY (author_id));
INSERT INTO authors VALUES (1, 'Ann'), (2, 'Bob'), (3, 'Cid');
INSERT INTO books VALUES (1, 1, 'Alpha', 100), (2, 1, 'Beta', 250), (3, 2, 'Gamma', 50), (4, NULL, 'Orphan', 10);
SELECT a.name, b.title FROM authors a JOIN books b ON b.author_id = a.id ORDER BY a.name, b.title;
SELECT a.name, COUNT(b.id) FROM authors a LEFT JOIN books b ON b.author_id = a.id GROUP BY a.id, a.name ORDER BY a.name;
SELECT a.name, SUM(b.pages), AVG(b.pages) FROM authors a JOIN books b ON b.author_id = a.id GROUP BY a.name HAVING SUM(b.pages) > 60 ORDER BY a.name;
SELECT name FROM authors WHERE id IN (SELECT author_id FROM books WHERE pages > 60) ORDER BY name;
SELECT name FROM authors a WHERE EXISTS (SELECT 1 FROM books b WHERE b.author_id = a.id) ORDER BY name;
SELECT name FROM authors a WHERE NOT EXISTS (SELECT 1 FROM books b WHERE b.author_id = a.id);
SELECT (SELECT COUNT(*) FROM books) AS n, (SELECT MAX(pages) FROM books) AS m;
SELECT t.author_id, t.total FROM (SELECT author_id, SUM(pages) AS total FROM books GROUP BY author_id) AS t WHERE t.total > 20 ORDER BY t.author_id;
SELECT title FROM books ORDER BY pages DESC LIMIT 2;
SELECT title FROM books ORDER BY pages LIMIT 1, 2;
SELECT title FROM books ORDER BY pages LIMIT 2 OFFSET 1;
SELECT author_id, GROUP_CONCAT(title ORDER BY title SEPARATOR '; ') FROM books GROUP BY author_id ORDER BY author_id;
SELECT GROUP_CONCAT(DISTINCT author_id ORDER BY author_id) FROM books;
SELECT GROUP_CONCAT(pages) FROM books WHERE author_id = 1;
SELECT COUNT(*), COUNT(author_id), COUNT(DISTINCT author_id) FROM books;
SELECT id FROM authors UNION SELECT author_id FROM books ORDER BY 1;
SELECT id FROM authors UNION ALL SELECT author_id FROM books WHERE author_id IS NOT NULL ORDER BY 1;
WITH big AS (SELECT * FROM books WHERE pages >= 100) SELECT title FROM big ORDER BY title;
SELECT title, ROW_NUMBER() OVER (ORDER BY pages) FROM books ORDER BY pages;
SELECT title, RANK() OVER (PARTITION BY author_id ORDER BY pages DESC) FROM books WHERE author_id IS NOT NULL ORDER BY author_id, pages DESC;
SELECT a.name, b.title FROM authors a, books b WHERE a.id = b.author_id AND b.pages < 100;
SELECT b.title FROM books b JOIN authors a USING (id) ORDER BY b.title;
DELETE b FROM books b JOIN authors a ON a.id = b.author_id WHERE a.name = 'Bob';
SELECT COUNT(*) FROM books;
UPDATE books b JOIN authors a ON a.id = b.author_id SET b.pages = 0 WHERE a.name = 'Ann';
SELECT name FROM authors WHERE id = (SELECT author_id FROM books WHERE title = 'Alpha');
SELECT nosuch FROM authors;
SELECT id FROM nosuch;
SELECT id FROM authors a JOIN books b ON a.id = b.author_id;

-- script: DDL forms
CREATE TABLE posts (id INT NOT NULL AUTO_INCREMENT COMMENT 'the key', title VARCHAR(200) NOT NULL COMMENT 'shown', body TEXT, created DATETIME DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (id), KEY title_idx (title), UNIQUE KEY uniq_title (title)) ENGINE=InnoDB AUTO_INCREMENT=100 DEFAULT CHARSET=utf8mb4 COMMENT='posts';
INSERT INTO posts (title) VALUES ('first');
SELECT id, title, created IS NOT NULL FROM posts;
INSERT INTO posts (id, title) VALUES (0, 'zero means next');
SELECT id, title FROM posts ORDER BY id;
CREATE INDEX body_idx ON posts (title);
CREATE INDEX body_idx ON posts (title);
DROP INDEX body_idx ON posts;
DROP INDEX body_idx ON posts;
ALTER TABLE posts ADD COLUMN views INT NOT NULL DEFAULT 0;
ALTER TABLE posts ADD COLUMN rating INT NOT NULL;
SELECT id, views, rating FROM posts ORDER BY id;
ALTER TABLE posts ADD INDEX views_idx (views);
ALTER TABLE posts DROP INDEX views_idx;
ALTER TABLE posts RENAME COLUMN views TO view_count;
SELECT view_count FROM posts ORDER BY id;
ALTER TABLE posts DROP COLUMN rating;
ALTER TABLE posts DISABLE KEYS;
INSERT INTO posts (title) VALUES ('while keys are disabled');
/*!40000 ALTER TABLE posts ENABLE KEYS */;
SELECT id, title FROM posts WHERE title LIKE 'while%';
ALTER TABLE nosuch DISABLE KEYS;
RENAME TABLE posts TO articles;
SELECT COUNT(*) FROM articles;
SELECT COUNT(*) FROM posts;
TRUNCATE TABLE articles;
SELECT COUNT(*) FROM articles;
INSERT INTO articles (title) VALUES ('after truncate');
SELECT id FROM articles;
CREATE TABLE articles (id INT);
CREATE TABLE IF NOT EXISTS articles (id INT);
DROP TABLE articles;
DROP TABLE articles;
DROP TABLE IF EXISTS articles;
ALTER TABLE nosuch ADD COLUMN x INT;

-- script: on update current timestamp
CREATE TABLE stamped (id INT PRIMARY KEY, v INT, ts TIMESTAMP NOT NULL DEFAULT '2000-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP);
INSERT INTO stamped (id, v) VALUES (1, 1), (2, 2);
SELECT id, ts FROM stamped ORDER BY id;
UPDATE stamped SET v = v WHERE id = 1;
SELECT id, ts FROM stamped ORDER BY id;
UPDATE stamped SET v = 10 WHERE id = 1;
SELECT id, ts = '2000-01-01 00:00:00' FROM stamped ORDER BY id;
UPDATE stamped SET v = 20, ts = '2010-01-01 00:00:00' WHERE id = 2;
SELECT id, ts FROM stamped WHERE id = 2;

-- script: foreign keys
CREATE TABLE parent (id INT PRIMARY KEY);
CREATE TABLE child (id INT PRIMARY KEY, parent_id INT, FOREIGN KEY (parent_id) REFERENCES parent (id) ON DELETE CASCADE ON UPDATE CASCADE);
INSERT INTO parent VALUES (1), (2);
INSERT INTO child VALUES (10, 1), (20, 2);
INSERT INTO child VALUES (30, 3);
UPDATE parent SET id = 5 WHERE id = 1;
SELECT id, parent_id FROM child ORDER BY id;
DELETE FROM parent WHERE id = 2;
SELECT id, parent_id FROM child ORDER BY id;

-- script: transactions and variables
CREATE TABLE ledger (id INT PRIMARY KEY, amount INT);
START TRANSACTION;
INSERT INTO ledger VALUES (1, 100);
ROLLBACK;
SELECT COUNT(*) FROM ledger;
BEGIN;
INSERT INTO ledger VALUES (2, 200);
COMMIT;
SELECT id, amount FROM ledger;
SET @total = 5;
SELECT @total, @total + 1, @nothing;
SET @name := 'abc';
SELECT @name, CONCAT(@name, 'd'), UPPER(@name);
SELECT @x := 10, @x;
SELECT * FROM ledger FOR UPDATE;
SELECT * FROM ledger LOCK IN SHARE MODE;

-- script: errors
SELECT * FRM t;
SELEC 1;
SELECT nosuchfunction(1);
SELECT CONCAT();
SELECT 1 +;
SELECT 'unterminated;
SELECT JSON_EXTRACT('{"a": 1}', '$.a');
SELECT SUM(SUM(1));
SELECT LPAD('a');

-- script: a mysqldump header and body
/*!40101 SET NAMES utf8mb4 */;
/*!40014 SET @OLD_CHECKS = 1 */;
SELECT @OLD_CHECKS;
DROP TABLE IF EXISTS `dumped`;
CREATE TABLE `dumped` (`id` int(11) NOT NULL, `label` varchar(32) DEFAULT NULL, `amount` decimal(8,3) DEFAULT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO `dumped` VALUES (1,'one',1.500),(2,'two',NULL),(3,'it\'s',-0.001);
SELECT * FROM `dumped` ORDER BY `id`;
SELECT label FROM dumped WHERE label LIKE '%\'%';

-- script: column types and their text
CREATE TABLE typed (i INT, bi BIGINT, ti TINYINT, d DECIMAL(6,3), dbl DOUBLE, fl FLOAT, c CHAR(5), vc VARCHAR(10), dt DATE, dtm DATETIME, bin VARBINARY(10));
INSERT INTO typed VALUES (1, 9000000000, -5, 1.5, 0.1, 0.1, 'ab  ', 'ab  ', '2024-1-2', '2024-01-02 3:04:05', 'xyz');
SELECT i, bi, ti, d, dbl, fl, c, vc, dt, dtm, bin FROM typed;
SELECT CONCAT('[', c, ']'), CONCAT('[', vc, ']'), LENGTH(c), LENGTH(vc) FROM typed;
SELECT dbl * 3, dbl + fl, d * 2, d / 4, i / 3 FROM typed;
SELECT dt + INTERVAL 1 MONTH, dtm - INTERVAL 1 DAY, DATE_FORMAT(dtm, '%H:%i') FROM typed;
SELECT YEAR(dt), MONTH(dtm), DAYNAME(dt), dt = '2024-01-02', dtm > '2024-01-02' FROM typed;
SELECT HEX(bin), LENGTH(bin), bin = 'xyz', bin = 'XYZ' FROM typed;
INSERT INTO typed (i, dbl) VALUES (2, 1e20), (3, -2.5e-7), (4, 123456789.125);
SELECT i, dbl FROM typed ORDER BY i;
SELECT SUM(dbl), AVG(i), MAX(dbl), MIN(i) FROM typed;
UPDATE typed SET d = d * 2 WHERE i = 1;
SELECT d FROM typed WHERE i = 1;

-- script: inserts and keys
CREATE TABLE people (id INT AUTO_INCREMENT PRIMARY KEY, email VARCHAR(50) NOT NULL, nick VARCHAR(20), UNIQUE KEY email_uq (email));
INSERT INTO people (email, nick) VALUES ('a@x.org', 'ann');
INSERT INTO people (email, nick) VALUES ('A@X.ORG', 'dup');
INSERT INTO people (email) VALUES (NULL);
INSERT INTO people (nick) VALUES ('no email');
INSERT INTO people (email, nosuch) VALUES ('b@x.org', 1);
INSERT INTO people (email, nick) VALUES ('b@x.org');
INSERT INTO people (email, email) VALUES ('c@x.org', 'd@x.org');
INSERT INTO people (email, nick) VALUES ('b@x.org', 'bob'), ('c@x.org', NULL);
SELECT id, email, nick FROM people ORDER BY id;
INSERT INTO people (email, nick) SELECT CONCAT('copy.', email), UPPER(nick) FROM people WHERE nick IS NOT NULL;
SELECT id, email, nick FROM people ORDER BY id;
INSERT INTO people (id, email) VALUES (100, 'z@x.org');
INSERT INTO people (email) VALUES ('next@x.org');
SELECT id FROM people WHERE email = 'next@x.org';
UPDATE people SET nick = CONCAT(nick, '!') WHERE nick LIKE 'b%';
UPDATE people SET email = 'a@x.org' WHERE id = 2;
SELECT nick FROM people WHERE id = 2;
DELETE FROM people WHERE id IN (SELECT 100);
DELETE FROM people WHERE nick IS NULL;
SELECT COUNT(*), MAX(id) FROM people;

-- script: grouping and ordering
CREATE TABLE sales (region VARCHAR(10), rep VARCHAR(10), amount INT, sold DATE);
INSERT INTO sales VALUES ('north', 'ann', 100, '2024-01-05'), ('North', 'bob', 200, '2024-01-20'), ('south', 'cid', 50, '2024-02-01'), ('SOUTH', 'ann', 75, '2024-02-15'), ('east', 'dan', NULL, '2024-03-01');
SELECT region, SUM(amount) FROM sales GROUP BY region ORDER BY region;
SELECT region AS r, COUNT(*) AS n FROM sales GROUP BY r HAVING n > 1 ORDER BY r;
SELECT rep, SUM(amount) AS total FROM sales GROUP BY rep ORDER BY total DESC, rep;
SELECT MONTH(sold) AS m, SUM(amount) FROM sales GROUP BY MONTH(sold) ORDER BY m;
SELECT DISTINCT region FROM sales ORDER BY region;
SELECT DISTINCT UPPER(region) FROM sales ORDER BY 1;
SELECT region, AVG(amount) FROM sales GROUP BY region ORDER BY 2 DESC, 1;
SELECT COUNT(amount), COUNT(*), SUM(amount) / COUNT(amount) FROM sales;
SELECT rep FROM sales ORDER BY amount IS NULL, amount DESC LIMIT 3;
SELECT region FROM sales WHERE amount BETWEEN 60 AND 150 ORDER BY amount;
SELECT region, rep FROM sales WHERE region IN ('NORTH', 'east') ORDER BY rep;
SELECT GROUP_CONCAT(rep ORDER BY rep DESC) FROM sales WHERE region = 'north';
SELECT region, GROUP_CONCAT(DISTINCT rep) FROM sales GROUP BY region ORDER BY region;
SELECT SUM(amount) FROM sales WHERE sold >= '2024-02-01' AND sold < '2024-03-01';
SELECT DATE_FORMAT(sold, '%Y-%m') AS month, SUM(amount) FROM sales GROUP BY month ORDER BY month;
SELECT rep, amount, SUM(amount) OVER (PARTITION BY rep ORDER BY sold) FROM sales WHERE amount IS NOT NULL ORDER BY rep, sold;
SELECT rep, DENSE_RANK() OVER (ORDER BY amount DESC) FROM sales WHERE amount IS NOT NULL ORDER BY amount DESC;
SELECT s.rep, t.total FROM sales s JOIN (SELECT rep, SUM(amount) AS total FROM sales GROUP BY rep) t ON t.rep = s.rep WHERE s.region = 'north' ORDER BY s.rep;
WITH totals AS (SELECT region, SUM(amount) AS total FROM sales GROUP BY region) SELECT region FROM totals WHERE total > 100 ORDER BY region;
SELECT rep FROM sales UNION SELECT 'ANN' ORDER BY 1;
SELECT rep FROM sales WHERE amount > (SELECT AVG(amount) FROM sales) ORDER BY rep;

-- script: NULL handling in functions
SELECT CONCAT(NULL), CONCAT_WS(',', NULL), LPAD(NULL, 2, 'x'), LPAD('a', NULL, 'x'), SUBSTRING_INDEX(NULL, ',', 1);
SELECT LOCATE(NULL, 'a'), INSTR('a', NULL), FIND_IN_SET(NULL, 'a'), FIELD(NULL, 'a'), ELT(NULL, 'a');
SELECT LEFT(NULL, 1), RIGHT('a', NULL), REPEAT(NULL, 2), REVERSE(NULL), SPACE(NULL), HEX(NULL), UNHEX(NULL);
SELECT UPPER(NULL), LENGTH(NULL), TRIM(NULL), REPLACE(NULL, 'a', 'b'), ASCII(NULL), STRCMP(NULL, 'a');
SELECT ABS(NULL), ROUND(NULL), CEIL(NULL), FLOOR(NULL), POW(NULL, 2), SQRT(NULL), SIGN(NULL), MOD(NULL, 2);
SELECT DATE_FORMAT(NULL, '%Y'), DATE_ADD(NULL, INTERVAL 1 DAY), DATEDIFF(NULL, '2024-01-01'), YEAR(NULL), LAST_DAY(NULL);
SELECT NULL + 1, NULL * 2, 1 / NULL, NULL DIV 2, NULL = 1, NULL < 1, NULL LIKE 'a', NULL REGEXP 'a';
SELECT IF(NULL, 'a', 'b'), IFNULL(NULL, NULL), NULLIF(NULL, 1), COALESCE(NULL), GREATEST(NULL, 1), LEAST(1, NULL);
SELECT 1 IN (NULL, 1), 2 IN (NULL, 1), 2 NOT IN (NULL, 1), NULL IN (1, 2);
SELECT CASE NULL WHEN NULL THEN 'match' ELSE 'no' END, CASE WHEN NULL THEN 1 ELSE 0 END;
SELECT NULL IS NULL, 1 IS NOT NULL, 0 IS TRUE, 1 IS TRUE, NULL IS TRUE, NULL IS NOT TRUE, 0 IS FALSE;

-- script: more string edge cases
SELECT LPAD('abc', 6, 'xy'), RPAD('abc', 2, 'x'), LPAD('', 3, 'a'), RPAD('é', 3, 'ü');
SELECT SUBSTRING_INDEX('a,b,c,d', ',', 3), SUBSTRING_INDEX('a,b,c,d', ',', -3), SUBSTRING_INDEX('a,b', ',', 5), SUBSTRING_INDEX('a,b', ',', -5);
SELECT SUBSTRING_INDEX('aXbxc', 'x', 1), LOCATE('', 'abc'), LOCATE('', 'abc', 2), INSTR('', '');
SELECT FIND_IN_SET('', 'a,,b'), FIND_IN_SET('b', 'a,b,b'), FIND_IN_SET('a,b', 'a,b');
SELECT FIELD('', ''), FIELD('a', 'A', 'a'), FIELD(1, '1', 'a'), FIELD('1', 1);
SELECT CONCAT('a', 1.0, 2e0, -3), CONCAT(0.5), CONCAT(1 / 4);
SELECT REVERSE('héllo'), LEFT('héllo', 2), RIGHT('héllo', 3), LENGTH(REVERSE('é'));
SELECT REPLACE('Hello hello', 'hello', 'bye'), REPLACE('aaaa', 'aa', 'b');
SELECT TRIM('xx' FROM 'xxxaxxx'), TRIM(LEADING ' ' FROM '  a  '), RTRIM('a \t');
SELECT UPPER('straße'), LOWER('ÀÉÎ'), UPPER('ǆ');
SELECT 'abc' < 'abd', 'abc' < 'ABD', 'a' < 'B', 'B' < 'a', 'Z' > 'a';
SELECT 'ß' = 's', 'ø' = 'o', 'æ' = 'ae', 'Ä' = 'a';
SELECT HEX('é'), HEX(-1), HEX(0), HEX(18446744073709551615);
SELECT CONV('-1', 10, 16), CONV('FF', 16, -10), CONV('', 10, 2);
SELECT FORMAT(0.5, 0), FORMAT(1.005, 2), FORMAT(-0.5, 0), FORMAT(1234567.5, 0);
SELECT 'a' LIKE 'A', 'a' LIKE BINARY 'A', 'abc' LIKE '%', '' LIKE '%', 'a_c' LIKE 'a\_c', 'abc' LIKE 'a\_c';
SELECT 'abc' LIKE 'a|%' ESCAPE '|', 'a%' LIKE 'a|%' ESCAPE '|';
SELECT 'Abc' REGEXP 'abc', 'Abc' REGEXP BINARY 'abc', 'a.c' REGEXP 'a\\.c', 'abc' REGEXP '^(a|x)b';

-- script: more numbers
SELECT 10 DIV 3, -10 DIV 3, 10 DIV -3, 10 DIV 0, 10.9 DIV 1;
SELECT 10 % 3, -10 % 3, 10 % -3, 10 % 0, 10.5 % 3, -10.5 % 3;
SELECT 3 / 4, 3.0 / 4, 3 / 4.0, 1 / 7, 2 / 3 * 3, 100 / 3 / 3;
SELECT 0.1 * 3, 0.1 + 0.7, 1.10 + 2.205, 5.00 - 0.001, -0.5 + 0.5;
SELECT 1e0 + 0.1, 0.1e0 * 3, 1e0 / 3 * 3, 2e0 - 1.5;
SELECT 9223372036854775807 - -1;
SELECT -9223372036854775807 - 2;
SELECT 4294967296 * 4294967296;
SELECT 123456789012345678901234567890 + 1, 99999999999999999999 * 10;
SELECT ROUND(1.45, 1), ROUND(1.55, 1), ROUND(-1.45, 1), ROUND(2.5e0), ROUND(3.5e0), ROUND(0.5e0);
SELECT ROUND(123.456, -2), ROUND(150, -2), ROUND(-150, -2), TRUNCATE(123.456, -1), TRUNCATE(1.5e0, 0);
SELECT CEIL(-0.5), FLOOR(-0.5), CEIL(1.0), FLOOR(2.999), CEIL(1e0 / 3);
SELECT ABS(-9223372036854775807), SIGN(-0.0), SIGN('abc'), SIGN('-5x');
SELECT POW(2, -1), POW(-8, 1 / 3), SQRT(2), LOG(2, 8), LN(2.718281828459045);
SELECT 1 = '1', 1 = '1.0', '1' = '1.0', 0 = 'x', '1e2' = 100, 'abc' < 1;
SELECT 1 < 2 < 3, 3 > 2 > 1, 1 = 1 = 1, (1 < 2) + (2 < 3);
SELECT 2 BETWEEN 1 AND 3 AND 1, 5 IN (1, 2, 5.0), 5 IN ('5', 'x');
SELECT CAST(3.99 AS SIGNED), CAST(-3.99 AS SIGNED), CAST('3.99' AS SIGNED), CAST(' 7 ' AS SIGNED), CAST(2.5e0 AS SIGNED);
SELECT CAST(10 / 3 AS DECIMAL(10, 4)), CAST(1e0 / 3 AS DECIMAL(6, 5)), CAST(999.999 AS DECIMAL(5, 2)), CAST(-1 AS DECIMAL(3, 1));
SELECT CAST('abc' AS DECIMAL(4,1)), CAST(NULL AS SIGNED), CAST(TRUE AS SIGNED);

-- script: more dates
SELECT DATE_ADD('2024-02-29', INTERVAL 1 YEAR), DATE_ADD('2024-01-31', INTERVAL 3 MONTH), DATE_SUB('2024-03-31', INTERVAL 13 MONTH);
SELECT DATE_ADD('2024-12-31 23:59:59', INTERVAL 1 SECOND), DATE_ADD('2024-01-01', INTERVAL 36 HOUR), DATE_SUB('2024-01-01 00:00:00', INTERVAL 1 MINUTE);
SELECT DATE_ADD('2024-01-01 10:00:00.5', INTERVAL 1 DAY), '2024-01-01 10:00:00' + INTERVAL 1 DAY;
SELECT DATE_ADD('9999-12-31', INTERVAL 1 DAY), DATE_ADD('2024-13-01', INTERVAL 1 DAY), DATE_ADD('0001-01-01', INTERVAL -1 DAY);
SELECT DATEDIFF('2024-03-01', '2023-03-01'), DATEDIFF('2000-01-01', '2024-01-01'), TIMESTAMPDIFF(WEEK, '2024-01-01', '2024-02-01');
SELECT TIMESTAMPDIFF(SECOND, '2024-01-01 00:00:00', '2024-01-01 00:01:30'), TIMESTAMPDIFF(QUARTER, '2024-01-01', '2024-12-31'), TIMESTAMPDIFF(MONTH, '2024-03-31', '2024-02-29');
SELECT DAYOFWEEK('2024-03-03'), WEEKDAY('2024-03-03'), DAYNAME('2024-03-03'), DAYOFYEAR('2024-12-31'), DAYOFYEAR('2023-12-31');
SELECT QUARTER('2024-01-01'), QUARTER('2024-04-01'), QUARTER('2024-12-31'), MONTHNAME('2024-09-09');
SELECT LAST_DAY('2024-12-05'), LAST_DAY('2024-04-30 10:00:00'), LAST_DAY('2100-02-01');
SELECT DATE_FORMAT('2024-01-01 00:00:00', '%l:%i %p'), DATE_FORMAT('2024-01-01 12:30:00', '%h %I %l %p'), DATE_FORMAT('2024-01-01 23:00:00', '%k %H');
SELECT DATE_FORMAT('2024-03-01', '%D'), DATE_FORMAT('2024-03-02', '%D'), DATE_FORMAT('2024-03-03', '%D'), DATE_FORMAT('2024-03-11', '%D'), DATE_FORMAT('2024-03-22', '%D');
SELECT DATE_FORMAT('2024-03-05', '%% %Y%%'), DATE_FORMAT('2024-03-05 01:02:03.456789', '%f'), DATE_FORMAT('2024-03-05', 'plain');
SELECT WEEK('2023-01-01'), WEEK('2023-01-08'), WEEK('2022-01-01'), WEEK('2024-06-15');
SELECT YEAR('2024-03-05 10:00:00'), MONTH('20240305'), DAY(20240305), HOUR('2024-03-05'), MINUTE(NULL);
SELECT DATE('2024-03-05T10:00:00'), DATE('2024/03/05'), DATE('24-3-5'), DATE('99-12-31'), DATE('70-01-01');
SELECT TO_DAYS('2000-01-01'), TO_DAYS('0001-01-01'), FROM_DAYS(730485), MAKEDATE(2024, 366), MAKEDATE(2023, 366), MAKEDATE(2024, 0);
SELECT '2024-01-05' = '2024-1-5', DATE('2024-01-05') = '2024-1-5', DATE('2024-01-05') > '2024-01-04 23:00:00';
SELECT FROM_UNIXTIME(86400 * 365), UNIX_TIMESTAMP('1970-01-02 00:00:00'), UNIX_TIMESTAMP('2024-01-01 00:00:00.25');
SELECT EXTRACT(DAY FROM '2024-03-05'), EXTRACT(HOUR FROM '2024-03-05 07:08:09'), EXTRACT(SECOND FROM '2024-03-05 07:08:09'), EXTRACT(QUARTER FROM '2024-05-01');

-- script: updates that change nothing and limits
CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(10), qty INT);
INSERT INTO items VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3), (4, 'd', 4);
UPDATE items SET qty = qty;
UPDATE items SET qty = 2 WHERE qty <= 2;
UPDATE items SET name = 'A' WHERE id = 1;
SELECT name FROM items WHERE id = 1;
UPDATE items SET name = 'A' WHERE id = 1;
UPDATE items SET qty = qty + 10 ORDER BY id DESC LIMIT 2;
SELECT id, qty FROM items ORDER BY id;
UPDATE items SET qty = qty - 1 WHERE qty > 10 LIMIT 1;
SELECT id, qty FROM items ORDER BY id;
UPDATE items SET qty = 0, name = 'z' WHERE id = 2;
UPDATE items SET qty = qty + 1, name = CONCAT(name, qty) WHERE id = 3;
UPDATE items SET name = NULL WHERE id = 4;
UPDATE items SET qty = 5, qty = qty * 2 WHERE id = 4;
UPDATE items SET qty = 7, qty = 10 WHERE id = 4;
UPDATE items SET name = 'n', qty = LENGTH(name) + qty WHERE id = 4;
SELECT id, name, qty FROM items ORDER BY id;
DELETE FROM items WHERE qty > 100;
DELETE FROM items ORDER BY qty DESC, id LIMIT 2;
SELECT id FROM items ORDER BY id;
UPDATE items SET nosuch = 1;
UPDATE nosuch SET a = 1;
DELETE FROM nosuch;
UPDATE items SET qty = 'abc' WHERE id = 1;
UPDATE items SET qty = qty / 0 WHERE id = 1;
SELECT qty FROM items WHERE id = 1;

-- script: strict conversions in writes
CREATE TABLE nums (id INT PRIMARY KEY, n INT, label VARCHAR(10));
INSERT INTO nums VALUES (1, 10, 'ten'), (2, 20, '20');
UPDATE nums SET n = '12abc' + 0 WHERE id = 1;
UPDATE nums SET n = '12' + 1 WHERE id = 1;
UPDATE nums SET n = label + 1 WHERE id = 2;
UPDATE nums SET n = label + 1 WHERE id = 1;
INSERT INTO nums VALUES (3, 'x' * 2, 'x');
INSERT INTO nums VALUES (3, ' 7 ' * 2, 'x');
SELECT id, n, label FROM nums ORDER BY id;
SELECT n + label FROM nums WHERE id = 1;

-- script: JSON documents
SELECT JSON_OBJECT('a', 1, 'b', 'x', 'c', NULL, 'd', 1.50, 'e', JSON_ARRAY(1, 2));
SELECT JSON_ARRAY(1, 'a', NULL, 2.5e0, TRUE), JSON_ARRAY(1 > 0, 1 = 0), JSON_ARRAY();
SELECT JSON_OBJECT('k', 'a"b\\c'), JSON_OBJECT(), JSON_OBJECT(NULL, 1), JSON_ARRAY('tab	x');
SELECT JSON_OBJECT('a');
SELECT JSON_EXTRACT('{"a":{"b":  [1,2]}, "c": "x"}', '$.a'), JSON_EXTRACT('{"a":{"b":  [1,2]}, "c": "x"}', '$.c');
SELECT JSON_EXTRACT('[1,2,3]', '$[1]'), JSON_EXTRACT('[1,2,3]', '$[5]'), JSON_EXTRACT('{"a": [1, {"b": 2}]}', '$.a[1].b');
SELECT JSON_EXTRACT('{"n": 1.50, "e": 1E2}', '$.n', '$.e'), JSON_EXTRACT('[1,2]', '$[*]'), JSON_EXTRACT('{"a b": 1}', '$."a b"');
SELECT JSON_EXTRACT('{"a":1', '$.a'), JSON_EXTRACT(NULL, '$.a'), JSON_EXTRACT('{"a":1}', '$'), JSON_EXTRACT('{"a":1}', 'a');
SELECT JSON_UNQUOTE(JSON_EXTRACT('{"a": "x\\"y"}', '$.a')), JSON_UNQUOTE('abc'), JSON_UNQUOTE('"a\\tb"'), JSON_UNQUOTE(NULL), JSON_UNQUOTE('"abc');
SELECT JSON_LENGTH('[1,2]'), JSON_LENGTH('{"a": [1,2,3]}', '$.a'), JSON_LENGTH('3'), JSON_LENGTH('{"a": 1}', '$.b'), JSON_LENGTH('[1');
SELECT JSON_VALID('{"a":1}'), JSON_VALID('{a:1}'), JSON_VALID('[1, 2'), JSON_VALID('"x"'), JSON_VALID(NULL), JSON_VALID('');
CREATE TABLE docs (id INT PRIMARY KEY, body TEXT);
INSERT INTO docs VALUES (1, '{"name": "Ann", "tags": ["a", "b"], "age": 30}'), (2, '{"name": "Bob", "tags": [], "age": 25}'), (3, 'not json');
SELECT id, JSON_UNQUOTE(JSON_EXTRACT(body, '$.name')), JSON_LENGTH(body, '$.tags') FROM docs ORDER BY id;
SELECT id FROM docs WHERE JSON_VALID(body) ORDER BY id;
SELECT JSON_OBJECT('id', id, 'doc', JSON_EXTRACT(body, '$.tags')) FROM docs WHERE id < 3 ORDER BY id;
SELECT id FROM docs WHERE JSON_UNQUOTE(JSON_EXTRACT(body, '$.name')) = 'ann';
SELECT id FROM docs WHERE JSON_UNQUOTE(JSON_EXTRACT(body, '$.name')) = 'Ann';
SELECT JSON_ARRAY(id, body IS NULL) FROM docs ORDER BY id DESC;
SELECT JSON_OBJECT('a', 1.0e0, 'b', 0.1e0 + 0.2e0, 'c', -0.0, 'd', 1e20, 'e', CAST('2020-01-02' AS DATE), 'f', 7 DIV 2, 'g', 1 / 3);
SELECT JSON_ARRAY(JSON_OBJECT('k', 'v'), JSON_EXTRACT('[1, 2]', '$[0]'), JSON_UNQUOTE('"q"'), '[1,2]', NULL);
SELECT JSON_LENGTH(JSON_OBJECT('a', 1, 'b', 2)), JSON_VALID(JSON_ARRAY()), JSON_EXTRACT(JSON_OBJECT('a', JSON_ARRAY(1, 2)), '$.a[1]');
SELECT IF(JSON_EXTRACT('{"a":"5"}', '$.a'), 'y', 'n'), IF(JSON_EXTRACT('{"a":"0"}', '$.a'), 'y', 'n'), IF(JSON_EXTRACT('{"a":true}', '$.a'), 'y', 'n'), IF(JSON_EXTRACT('{"a":false}', '$.a'), 'y', 'n');
SELECT IF(JSON_EXTRACT('{"a":[1]}', '$.a'), 'y', 'n'), IF(JSON_EXTRACT('{"a":0.5}', '$.a'), 'y', 'n'), IF(JSON_EXTRACT('{"a":null}', '$.a'), 'y', 'n'), 1 AND JSON_EXTRACT('{"a":"x"}', '$.a');

-- script: JSON_TYPE and JSON_KEYS
SELECT JSON_TYPE('{"a":1}'), JSON_TYPE('[1]'), JSON_TYPE('1'), JSON_TYPE('1.5'), JSON_TYPE('"x"'), JSON_TYPE('true'), JSON_TYPE('null'), JSON_TYPE('1e2'), JSON_TYPE('-3');
SELECT JSON_TYPE('x'), JSON_TYPE(NULL), JSON_TYPE(''), JSON_TYPE(JSON_EXTRACT('{"a":[1]}', '$.a')), JSON_TYPE(1), JSON_TYPE('1.0e0'), JSON_TYPE('1E-2'), JSON_TYPE('  [1] '), JSON_TYPE('{"a":1}x');
SELECT JSON_KEYS('{"a":1,"b":{"c":2}}'), JSON_KEYS('{"a":1,"b":{"c":2}}', '$.b'), JSON_KEYS('[1]'), JSON_KEYS('{}'), JSON_KEYS('x'), JSON_KEYS('{"a":1}', '$.z'), JSON_KEYS(NULL);
SELECT JSON_KEYS('{"b":1,"a":2,"b":3}'), JSON_KEYS('{"a\\"b":1}'), JSON_KEYS('{"\\u0041":1}'), JSON_KEYS('{"a":1}', '$[*]'), JSON_KEYS('{"a":1}', 'x'), JSON_KEYS('{"a":1}', '$.a'), JSON_KEYS('{"a":1}', NULL);
SELECT JSON_ARRAY(JSON_TYPE('1')), JSON_ARRAY(JSON_KEYS('{"a":1}')), JSON_SET('{"a":1}', '$.b', JSON_KEYS('{"x":1}'));
SELECT JSON_EXTRACT('{"\\u0041":1}', '$.A'), JSON_EXTRACT('{"\\u0041":1}', '$'), JSON_EXTRACT('{"a\\/b":1}', '$'), JSON_EXTRACT('{"a\\"b":1}', '$."a\\"b"'), JSON_EXTRACT('{"a/b":1}', '$."a\\/b"'), JSON_EXTRACT('{"\\u0041":1}', '$."\\u0041"'), JSON_EXTRACT('{"A":1}', '$."\\u0041"');
SELECT JSON_SET('{"\\u0041":1}', '$.A', 2), JSON_SET('{}', '$."a\\"b"', 1), JSON_REMOVE('{"\\u0041":1,"A":2}', '$.A'), JSON_CONTAINS('{"\\u0041":1}', '{"A":1}'), JSON_MERGE_PATCH('{"\\u0041":1}', '{"A":2}'), JSON_SEARCH('{"a\\u0041":"x"}', 'one', 'x', NULL, '$.aA');
SELECT JSON_KEYS('{"\\u0041":{"b":1}}', '$.A'), JSON_LENGTH('{"\\u0041":[1,2]}', '$.A'), JSON_CONTAINS_PATH('{"\\u0041":1}', 'one', '$.A'), JSON_CONTAINS('{"\\u0041":1}', '1', '$.A'), JSON_SET('{"\\u0041":{"b":1}}', '$.A.b', 2), JSON_INSERT('{"\\u0041":1}', '$.A', 2), JSON_REPLACE('{"\\u0041":1}', '$.A', 2), JSON_REMOVE('{"\\u0041":{"b":1}}', '$.A.b');
SELECT JSON_SET('{"\\u0041":1}', '$."\\u0041"', 2), JSON_REMOVE('{"A":1}', '$."\\u0041"'), JSON_CONTAINS('{"A":1}', '{"\\u0041":1}'), JSON_MERGE_PATCH('{"A":1}', '{"\\u0041":2}'), JSON_MERGE_PATCH('{"A":1}', '{"\\u0041":null}'), JSON_EXTRACT('{"\\u0041":{"b":1}}', '$.*.b'), JSON_SEARCH('{"A":"x"}', 'one', 'x', NULL, '$."\\u0041"');

-- script: JSON_CONTAINS and JSON_CONTAINS_PATH
SELECT JSON_CONTAINS('{"a":1,"b":2}', '1', '$.a'), JSON_CONTAINS('{"a":1,"b":2}', '{"a":1}'), JSON_CONTAINS('[1,2,[3,4]]', '[1,3]'), JSON_CONTAINS('[1,2,[3,4]]', '3'), JSON_CONTAINS('[1,2]', '[1,2,5]');
SELECT JSON_CONTAINS('1', '1.0'), JSON_CONTAINS('"a"', '"A"'), JSON_CONTAINS('x', '1'), JSON_CONTAINS('[1]', 'x'), JSON_CONTAINS('[1]', '1', '$.z'), JSON_CONTAINS('[1]', NULL), JSON_CONTAINS('[1]', '1', NULL);
SELECT JSON_CONTAINS('{"a":[1,2]}', '[]', '$.a'), JSON_CONTAINS('[]', '[]'), JSON_CONTAINS('{}', '{}'), JSON_CONTAINS('{"a":{"b":1,"c":2}}', '{"b":1}', '$.a'), JSON_CONTAINS('[{"a":1,"b":2}]', '{"a":1}');
SELECT JSON_CONTAINS('[1,2]', '1', '$[*]'), JSON_CONTAINS('1', '1e0'), JSON_CONTAINS('[[1,2]]', '[1]'), JSON_CONTAINS('{"a":1}', '1'), JSON_CONTAINS('true', '1'), JSON_CONTAINS('[null]', 'null');
SELECT JSON_CONTAINS('[1,2]', '[[1,2]]'), JSON_CONTAINS('{"a":[1,2]}', '{"a":1}'), JSON_CONTAINS('"a\\u0041"', '"aA"'), JSON_CONTAINS('{"a":1,"a":2}', '{"a":2}'), JSON_CONTAINS('{"a":1}', '{"a":1,"b":null}');
SELECT JSON_CONTAINS_PATH('{"a":1,"b":2}', 'one', '$.a', '$.c'), JSON_CONTAINS_PATH('{"a":1,"b":2}', 'all', '$.a', '$.c'), JSON_CONTAINS_PATH('{"a":1}', 'ONE', '$.a'), JSON_CONTAINS_PATH('{"a":1}', 'x', '$.a'), JSON_CONTAINS_PATH('[1]', 'one', '$[0]', '$[5]');
SELECT JSON_CONTAINS_PATH('{"a":1}', 'one', '$.*'), JSON_CONTAINS_PATH('x', 'one', '$.a'), JSON_CONTAINS_PATH('{"a":1}', 'one', NULL), JSON_CONTAINS_PATH('{"a":1}', 'one', 'z'), JSON_CONTAINS_PATH('{"a":1}', 'all', '$.a', '$[0]');
SELECT JSON_CONTAINS_PATH('{"a":1}', 'one');
SELECT JSON_ARRAY(JSON_CONTAINS('[1]', '1'), JSON_CONTAINS_PATH('[1]', 'one', '$[0]'), JSON_VALID('1'), JSON_LENGTH('[1]'));
CREATE TABLE tagged (id INT PRIMARY KEY, tags TEXT);
INSERT INTO tagged VALUES (1, '["red", "blue"]'), (2, '["green"]'), (3, '{"red": 1}'), (4, NULL);
SELECT id FROM tagged WHERE JSON_CONTAINS(tags, '"red"') ORDER BY id;
SELECT id, JSON_CONTAINS_PATH(tags, 'one', '$.red', '$[1]') FROM tagged ORDER BY id;

-- script: JSON_SET, JSON_INSERT and JSON_REPLACE
SELECT JSON_SET('{"a":1}', '$.b', 2), JSON_SET('{"a":1}', '$.a', 2, '$.c', 'x'), JSON_SET('[1,2]', '$[5]', 3), JSON_SET('[1,2]', '$[0]', 9), JSON_SET('1', '$[1]', 2), JSON_SET('{"a":1}', '$[0]', 5), JSON_SET('{"a":1}', '$[1]', 5);
SELECT JSON_INSERT('{"a":1}', '$.a', 2, '$.b', 3), JSON_REPLACE('{"a":1}', '$.a', 2, '$.b', 3), JSON_INSERT('[1]', '$[3]', 4), JSON_REPLACE('[1]', '$[3]', 4);
SELECT JSON_SET('{"a":1}', '$.b.c', 2), JSON_SET('{"a":{}}', '$.a.c', 2), JSON_SET('{"a":1}', '$.*', 2), JSON_SET('x', '$.a', 1), JSON_SET('{"a":1}', '$.a', NULL), JSON_SET(NULL, '$.a', 1), JSON_SET('{"a":1}', NULL, 1);
SELECT JSON_SET('{"a":1}', '$.b', 1.50), JSON_SET('{"a":1}', '$.b', true), JSON_SET('{"a":1}', '$.b', 1 = 1), JSON_SET('{"a":1}', '$.b', '[1]'), JSON_SET('{"a":1}', '$.b', JSON_ARRAY(1, 2)), JSON_SET('{"a":1}', '$.b', 1e0), JSON_SET('{"a":1}', '$.b', CAST('2020-01-02' AS DATE));
SELECT JSON_SET('{ "a" : 1 , "b":[1,  2]}', '$.c', 3), JSON_SET('{"a":1}', '$', 2), JSON_SET('{"a":1}', '$.b', 'x"y'), JSON_SET('{ "a" : 1 }', '$.b.c', 2), JSON_SET('{"a":1E2,"b":1.50,"s":"\\u0041"}', '$.c', 1), JSON_INSERT('{"a":1}', '$', 5), JSON_REPLACE('{"a":1}', '$', 5);
SELECT JSON_SET('{"a":[1,2]}', '$.a[1]', 3, '$.a[2]', 4), JSON_SET('{"a":1}', '$.a', 2, '$.a', 3), JSON_INSERT('{"a":1}', '$.b', 1, '$.b', 2), JSON_SET('[[1]]', '$[0][3]', 2), JSON_SET('{"a":[]}', '$.a[0]', 1), JSON_INSERT('{"a":5}', '$.a[0]', 1), JSON_INSERT('{"a":5}', '$.a[1]', 1);
SELECT JSON_REPLACE('{"a":5}', '$.a[0]', 1), JSON_REPLACE('{"a":5}', '$.a[1]', 1), JSON_SET('{"a":1}', '$."b c"', 1), JSON_SET('{"a":1}', '$.b', -0.0), JSON_SET('{"a":1}', '$.b', 1.0e10), JSON_SET('{"a":1}', '$.b', 9223372036854775807);
SELECT JSON_SET('{"a":1}', '$.b', 'é'), JSON_SET('{"a":1}', '$.b', NOW() IS NULL), JSON_SET('{"a":1}', '$.b', 2 > 1, '$.c', (2 > 1) + 0), JSON_SET('[1]', '$.a', 1), JSON_SET('{"a":{"x":1}}', '$.a[0].x', 2), JSON_SET('{"a":{"x":1}}', '$[0].a[0].y', 2);
SELECT JSON_SET('{"a":1}', '$.b', JSON_EXTRACT('{"x":[1, 2]}', '$.x')), JSON_SET('{"a":1}', '$.b', JSON_QUOTE('x')), JSON_ARRAY(JSON_SET('{}', '$.a', 1)), JSON_EXTRACT(JSON_SET('{}', '$.a', 1), '$.a');
SELECT JSON_SET('{"a":1}', '$.a.b', 2), JSON_SET('[1]', '$[0][1]', 2), JSON_SET('{"a":[1]}', '$.a[0][0]', 5), JSON_INSERT('[1]', '$[0][1]', 2), JSON_REPLACE('[[1]]', '$[0][0]', 3), JSON_SET('[]', '$[0]', 1), JSON_SET('{}', '$[0].a', 1);
SELECT JSON_CONTAINS('[1,2]', 1), JSON_CONTAINS('{"a":{"b":[1,2]}}', '[2]', '$.a.b'), JSON_KEYS('{"a":{"b":1}}', '$.a.b'), JSON_TYPE(JSON_SET('{}', '$.a', 1.5)), JSON_LENGTH(JSON_REMOVE('[1,2,3]', '$[0]'));
SELECT JSON_SET('{"a":1}', '$.a');
SELECT JSON_INSERT('{"a":1}', '$.a', '$.b', 1);
CREATE TABLE profiles (id INT PRIMARY KEY, doc TEXT);
INSERT INTO profiles VALUES (1, '{"name": "Ann"}'), (2, '{"name": "Bob", "age": 3}');
UPDATE profiles SET doc = JSON_SET(doc, '$.age', id * 10) WHERE id = 1;
UPDATE profiles SET doc = JSON_REPLACE(doc, '$.age', 4, '$.x', 1) WHERE id = 2;
SELECT id, doc FROM profiles ORDER BY id;

-- script: JSON_REMOVE
SELECT JSON_REMOVE('{"a":1,"b":2}', '$.a'), JSON_REMOVE('[1,2,3]', '$[1]'), JSON_REMOVE('[1,2,3]', '$[0]', '$[0]'), JSON_REMOVE('{"a":1}', '$.z'), JSON_REMOVE('{"a":1}', '$'), JSON_REMOVE('{"a":1}', '$.*'), JSON_REMOVE('x', '$.a'), JSON_REMOVE('{"a":{"b":1}}', '$.a.b');
SELECT JSON_REMOVE('[1,2,3]', '$[5]'), JSON_REMOVE('{"a":1}', '$[0]'), JSON_REMOVE('[1,[2,3]]', '$[1][0]'), JSON_REMOVE('{"a":1}', NULL), JSON_REMOVE(NULL, '$.a'), JSON_REMOVE('{"a":1,"a":2}', '$.a'), JSON_REMOVE('{ "a" : [1 ,2] }', '$.z'), JSON_REMOVE('{"a":{"x":1}}', '$.a[0].x');
SELECT JSON_REMOVE('{"a":1}');

-- script: JSON_MERGE_PATCH
SELECT JSON_MERGE_PATCH('{"a":1,"b":2}', '{"b":null,"c":3}'), JSON_MERGE_PATCH('{"a":{"x":1}}', '{"a":{"y":2}}'), JSON_MERGE_PATCH('[1]', '[2]'), JSON_MERGE_PATCH('1', '{"a":1}'), JSON_MERGE_PATCH('{"a":1}', '2'), JSON_MERGE_PATCH('{"a":1}', NULL), JSON_MERGE_PATCH(NULL, '{"a":1}'), JSON_MERGE_PATCH('{"a":1}', 'x');
SELECT JSON_MERGE_PATCH('{"a":1}', '{"b":2}', '{"a":3}'), JSON_MERGE_PATCH('{"a":1}', '{"a":{"b":null}}'), JSON_MERGE_PATCH('{}', '{"a":null}'), JSON_MERGE_PATCH(NULL, '1'), JSON_MERGE_PATCH(NULL, '[1]'), JSON_MERGE_PATCH('{"a":1}', NULL, '{"b":1}'), JSON_MERGE_PATCH('{"a":1}', NULL, '3');
SELECT JSON_MERGE_PATCH(NULL, NULL), JSON_MERGE_PATCH('x', '1'), JSON_MERGE_PATCH('{"b":1,"a":2}', '{"c":3,"a":4}'), JSON_MERGE_PATCH('1', '2', '{"a":1}'), JSON_MERGE_PATCH(NULL, '{"a":1}', '{"b":1}'), JSON_MERGE_PATCH('[1]', '{"a":null}');
SELECT JSON_MERGE_PATCH('{"a":1,"a":2}', '{"b":1}'), JSON_MERGE_PATCH('{"a":1}', '{"a":1,"a":null}'), JSON_MERGE_PATCH('{}', '{"b":1,"b":2}'), JSON_MERGE_PATCH('{"a":1}', '{"b":null,"b":2}'), JSON_MERGE_PATCH('{"a":{"b":1}}', '{"a":{"c":{"d":null,"e":1}}}');
SELECT JSON_MERGE_PATCH('{"a":1}');

-- script: JSON_QUOTE
SELECT JSON_QUOTE('a"b'), JSON_QUOTE(''), JSON_QUOTE(NULL), JSON_QUOTE(1), JSON_QUOTE(1.5), JSON_QUOTE('[1]'), JSON_QUOTE('é\t/'), JSON_QUOTE(CAST('2020-01-02' AS DATE));
SELECT JSON_ARRAY(JSON_QUOTE('x')), JSON_QUOTE(JSON_ARRAY(1)), JSON_QUOTE(CONCAT('a', 1)), JSON_QUOTE(X'41');
SELECT JSON_QUOTE('a', 'b');

-- script: JSON_SEARCH
SELECT JSON_SEARCH('["abc",{"x":"abc"},"abd"]', 'one', 'abc'), JSON_SEARCH('["abc",{"x":"abc"},"abd"]', 'all', 'abc'), JSON_SEARCH('["abc",{"x":"abc"},"abd"]', 'all', 'ab%'), JSON_SEARCH('["abc"]', 'all', 'zz'), JSON_SEARCH('["abc"]', 'x', 'abc'), JSON_SEARCH('["ABC"]', 'one', 'abc');
SELECT JSON_SEARCH('{"a":"x%y"}', 'one', 'x\%y'), JSON_SEARCH('{"a":"x%y"}', 'one', 'x|%y', '|'), JSON_SEARCH('{"a":["b","c"],"d":"b"}', 'all', 'b', '', '$.a'), JSON_SEARCH('[1,"1"]', 'all', '1'), JSON_SEARCH('x', 'one', 'a'), JSON_SEARCH('["a"]', 'one', NULL);
SELECT JSON_SEARCH('{"a b":"x"}', 'one', 'x'), JSON_SEARCH('[["x"]]', 'one', 'x'), JSON_SEARCH('{"a":"x","b":"x"}', 'one', 'x'), JSON_SEARCH('[true,null,1.5,"1.5"]', 'all', '1.5'), JSON_SEARCH('[true,null]', 'all', 'true');
SELECT JSON_SEARCH('[true,null,false]', 'all', 'null'), JSON_SEARCH('[true,null,false]', 'all', '%'), JSON_SEARCH('[{"a":1},[2]]', 'all', '%');
SELECT JSON_SEARCH('{"a":"x"}', 'one', 'x', NULL, '$.a'), JSON_SEARCH('{"a":"x"}', 'one', 'x', '', '$.*'), JSON_SEARCH('{"a":"x","b":["x"]}', 'all', 'x', NULL, '$.b', '$.a'), JSON_SEARCH('{"a":{"b":"x"}}', 'all', 'x', NULL, '$.a');
SELECT JSON_SEARCH('[1.50]', 'one', '1.5'), JSON_SEARCH('[1.50]', 'one', '1.50'), JSON_SEARCH('[1E2]', 'one', '1E2'), JSON_SEARCH('["x"]', 'ONE', 'x'), JSON_SEARCH('["a_c"]', 'one', 'a\_c'), JSON_SEARCH('{"a":"x"}', 'one', 'x', '', '$.a', '$.a');
SELECT JSON_SEARCH('{"a":"x"}', 'one', 'x', NULL, '$.z'), JSON_SEARCH('{"a":"é"}', 'one', 'e'), JSON_SEARCH('{"a":"x "}', 'one', 'x'), JSON_SEARCH('{"a\\"b":"x"}', 'one', 'x'), JSON_SEARCH('{"a":"\\u0078"}', 'one', 'x'), JSON_SEARCH('["x","x"]', 'all', 'x', NULL, '$[0]', '$[*]');
SELECT JSON_SEARCH(' {"a":"x"} ', 'one', 'X'), JSON_SEARCH('["x",["x"]]', 'one', 'x', '', '$[1]'), JSON_SEARCH('{"a":"x"}', 'one', 'x', 'a'), JSON_ARRAY(JSON_SEARCH('["a"]', 'one', 'a'));
SELECT JSON_SEARCH('{"a":"x"}', 'one', 'x', 'ab');
SELECT JSON_SEARCH('["a"]', 'one');

-- script: GREATEST and LEAST of mixed types
SELECT GREATEST(1, '2'), GREATEST(1, '10'), GREATEST('10', '9'), GREATEST(10, '9'), LEAST(10, '9');
SELECT GREATEST(1, 'a'), LEAST(1, 'a'), GREATEST(1.5, '2'), GREATEST(1, 2.5e0), GREATEST(1e0, 2);
SELECT GREATEST('abc', 5), GREATEST('1e1', 9), LEAST('2x', 3), GREATEST(1, '1.0'), LEAST(1, '1.0'), GREATEST('1.0', 1);
SELECT GREATEST(1.5, 2), GREATEST(2, 1.50), LEAST(2, 1.50), GREATEST(1, 2.50), LEAST(1.5, 2.25), GREATEST(0.1, 0.10), GREATEST(1.0, 1);
SELECT GREATEST(9223372036854775807, 1.5), LEAST(-9223372036854775808, 1.5);
SELECT GREATEST(1/3, 0.3), LEAST(1/3, 2), GREATEST(2, 1e0), GREATEST(-0.0, 0), LEAST(0.5e0, '0.25'), GREATEST(1/3, '0.3');
SELECT GREATEST(SUM(1), 0.5) FROM (SELECT 1 AS x UNION ALL SELECT 2) AS t;
SELECT GREATEST(CAST('2020-01-01 10:00:00' AS DATETIME), CAST('2020-01-01' AS DATE)), LEAST(CAST('2020-01-01 10:00:00.25' AS DATETIME(2)), CAST('2020-01-02' AS DATE));
SELECT GREATEST(1, NULL), LEAST(NULL, 'a'), GREATEST(NULL, 1.5), LEAST(2, NULL, 'x');
SELECT GREATEST(CAST('2020-01-01' AS DATE), '2020-01-02'), GREATEST(CAST('2020-01-01' AS DATE), '2019-12-31'), LEAST(CAST('2020-01-01' AS DATE), '2020-01-02');
SELECT GREATEST(CAST('2020-01-01' AS DATE), CAST('2020-01-01 10:00:00' AS DATETIME)), LEAST(CAST('2020-01-01' AS DATE), CAST('2020-01-01 10:00:00' AS DATETIME));
SELECT GREATEST(CAST('2020-01-01' AS DATE), 20200102), LEAST(CAST('2020-01-01' AS DATE), 20200102);
SELECT LEAST(CAST('2020-01-01' AS DATE), 5), GREATEST(CAST('2020-01-01' AS DATE), 5), LEAST(CAST('2020-01-01' AS DATE), 200101), LEAST(CAST('2020-01-01' AS DATE), 20200101101010);
SELECT LEAST('b', 'A', 'c'), GREATEST('b', X'41'), LEAST('b', X'41');
SELECT GREATEST(CAST('2020-01-01' AS DATE), '2020-01-02 10:00:00'), GREATEST(CAST('2020-01-01' AS DATE), 'abc'), LEAST(CAST('2020-01-01' AS DATE), 'abc'), LEAST(CAST('2020-01-01' AS DATE), '2020-1-2'), GREATEST(CAST('2020-01-01' AS DATE), '2020-1-2');
SELECT LEAST(CAST('2020-01-01 10:00:00' AS DATETIME), CAST('2020-01-01' AS DATE)), GREATEST(CAST('2020-01-01' AS DATE), CAST('2020-01-02' AS DATE)), GREATEST(1, '2') + 0, CONCAT(GREATEST(1, 'a')), CONCAT(GREATEST(1.5, 2));
SELECT GREATEST('', 0), LEAST('-1', 0), GREATEST(' 5', 4), GREATEST(SEC_TO_TIME(3600), SEC_TO_TIME(60)), LEAST(1e0, 2e0, -0.5e0), GREATEST(NULL, NULL);
SELECT GREATEST('a', 'B' COLLATE utf8mb4_bin), LEAST('a', 'B' COLLATE utf8mb4_bin), GREATEST('a' COLLATE utf8mb4_bin, 'B' COLLATE utf8mb4_general_ci);
CREATE TABLE mixed (id INT PRIMARY KEY, n INT, d DECIMAL(6,2), f DOUBLE, s VARCHAR(10), dt DATE);
INSERT INTO mixed VALUES (1, 5, 2.50, 1.5, '7', '2020-05-01'), (2, -3, 10.00, -2.25, 'x', '2019-01-01'), (3, NULL, 0.10, 0, '', NULL);
SELECT id, GREATEST(n, s), LEAST(n, s), GREATEST(n, d), LEAST(d, f), GREATEST(s, f) FROM mixed ORDER BY id;
SELECT id, GREATEST(dt, '2020-01-01'), LEAST(dt, s), GREATEST(n, d, f, s) FROM mixed ORDER BY id;
SELECT GREATEST(n, s) + 1, LEAST(d, n) * 2 FROM mixed ORDER BY id;

-- script: MAX and MIN of ENUM and SET columns
CREATE TABLE levels (id INT PRIMARY KEY, lvl ENUM('low', 'medium', 'high', 'Apex'), tags SET('b', 'a', 'c'), grp INT);
INSERT INTO levels VALUES (1, 'low', 'a', 1), (2, 'high', 'b,c', 1), (3, 'medium', 'b', 2), (4, NULL, NULL, 2), (5, 'Apex', 'a,c', 3);
SELECT MAX(lvl), MIN(lvl) FROM levels;
SELECT grp, MAX(lvl), MIN(lvl) FROM levels GROUP BY grp ORDER BY grp;
SELECT MAX(tags), MIN(tags) FROM levels;
SELECT MAX(lvl) FROM levels WHERE id > 5;
SELECT COUNT(DISTINCT lvl), GROUP_CONCAT(lvl ORDER BY id) FROM levels;
SELECT COUNT(lvl), COUNT(DISTINCT tags), GROUP_CONCAT(tags ORDER BY id SEPARATOR '|') FROM levels;
SELECT GROUP_CONCAT(lvl ORDER BY lvl), GROUP_CONCAT(id ORDER BY lvl DESC) FROM levels;
SELECT grp, MAX(tags) FROM levels GROUP BY grp HAVING MAX(lvl) > 'b' ORDER BY grp;
CREATE TABLE slots (id INT PRIMARY KEY, t TIME);
INSERT INTO slots VALUES (1, '09:30:00'), (2, '23:00:01'), (3, '99:00'), (4, NULL), (5, '7:05');
SELECT MAX(t), MIN(t), COUNT(t), COUNT(DISTINCT t), GROUP_CONCAT(t ORDER BY id) FROM slots;
SELECT MAX(lvl) + 0 FROM levels;
SELECT GROUP_CONCAT(DISTINCT lvl) FROM levels;
SELECT grp, GROUP_CONCAT(DISTINCT lvl), GROUP_CONCAT(DISTINCT tags) FROM levels GROUP BY grp ORDER BY grp;
SELECT GROUP_CONCAT(DISTINCT tags) FROM levels;

-- script: compound INTERVAL units
SELECT DATE_ADD('2020-01-01 10:00:00', INTERVAL '1:30' HOUR_MINUTE), DATE_ADD('2020-01-01', INTERVAL '1 2' DAY_HOUR), DATE_ADD('2020-01-31', INTERVAL '1-1' YEAR_MONTH), DATE_SUB('2020-01-01', INTERVAL '1 1:1:1' DAY_SECOND), '2020-01-01' + INTERVAL '2:3' MINUTE_SECOND;
SELECT DATE_ADD('2020-01-01', INTERVAL '1-1' YEAR_MONTH), DATE_ADD(CAST('2020-01-01' AS DATE), INTERVAL '1 2' DAY_HOUR), DATE_ADD(CAST('2020-01-01' AS DATE), INTERVAL '1-2' YEAR_MONTH), DATE_ADD('2020-01-01 00:00:00', INTERVAL '1.5' SECOND_MICROSECOND), DATE_ADD('2020-01-01', INTERVAL '1:2:3.4' HOUR_MICROSECOND);
SELECT DATE_ADD('2020-01-01', INTERVAL '-1:30' HOUR_MINUTE), DATE_ADD('2020-01-01', INTERVAL '1:-30' HOUR_MINUTE), DATE_ADD('2020-01-01', INTERVAL '90' HOUR_MINUTE), DATE_ADD('2020-01-01', INTERVAL '1:2:3' HOUR_MINUTE), DATE_ADD('2020-01-01', INTERVAL 'x' HOUR_MINUTE), DATE_ADD('2020-01-01', INTERVAL 130 HOUR_MINUTE);
SELECT DATE_ADD('2020-01-01', INTERVAL '1 1' YEAR_MONTH), DATE_ADD('2020-01-01', INTERVAL '1:1' DAY_MINUTE), DATE_ADD('2020-01-01', INTERVAL '  1 : 30 ' HOUR_MINUTE), DATE_ADD('2020-01-01', INTERVAL '1:70' HOUR_MINUTE), DATE_ADD('2020-01-01', INTERVAL 1.5 HOUR_MINUTE), DATE_ADD('2020-01-01', INTERVAL NULL HOUR_MINUTE);
SELECT DATE_SUB(CAST('2020-03-31 12:00:00' AS DATETIME), INTERVAL '1-1' YEAR_MONTH), DATE_SUB('2020-03-01', INTERVAL '0:0:1.000001' HOUR_MICROSECOND), DATE_ADD('2020-01-01', INTERVAL '1.1234567' SECOND_MICROSECOND), INTERVAL '1 0:0:1' DAY_SECOND + '2020-02-28 23:59:59';
SELECT DATE_ADD('9999-12-31', INTERVAL '1 0' DAY_HOUR), DATE_ADD('2020-01-01', INTERVAL '99999999999999999999:1' HOUR_MINUTE), DATE_ADD('2020-01-01', INTERVAL 1e0 DAY_HOUR), ADDDATE('2020-01-01', INTERVAL '3 4' DAY_HOUR), SUBDATE('2020-01-01', INTERVAL '3 4' DAY_HOUR);
SELECT DATE_ADD('2020-01-01', INTERVAL '1:30' hour_minute), DATE_ADD('2020-01-01 10:00:00.25', INTERVAL '1:30' MINUTE_SECOND), DATE_ADD('2020-01-01', INTERVAL '1' YEAR_MONTH);
CREATE TABLE events (id INT PRIMARY KEY, at DATETIME, d DATE, span VARCHAR(20));
INSERT INTO events VALUES (1, '2020-01-01 08:00:00', '2020-01-31', '2:15'), (2, '2021-06-30 23:30:00', '2021-02-28', '-0:45'), (3, NULL, NULL, NULL);
SELECT id, at + INTERVAL span HOUR_MINUTE, d - INTERVAL '1-1' YEAR_MONTH, DATE_ADD(d, INTERVAL span DAY_HOUR) FROM events ORDER BY id;
SELECT id FROM events WHERE at + INTERVAL '0 16' DAY_HOUR > '2020-01-02' ORDER BY id;
SELECT DATE_ADD('2020-01-01', INTERVAL 1 HOUR_MINUTES);

-- script: EXTRACT of simple and compound units
SELECT EXTRACT(YEAR_MONTH FROM '2020-03-04 05:06:07'), EXTRACT(DAY_HOUR FROM '2020-03-04 05:06:07'), EXTRACT(DAY_MINUTE FROM '2020-03-04 05:06:07'), EXTRACT(DAY_SECOND FROM '2020-03-04 05:06:07'), EXTRACT(HOUR_MINUTE FROM '2020-03-04 05:06:07'), EXTRACT(HOUR_SECOND FROM '2020-03-04 05:06:07'), EXTRACT(MINUTE_SECOND FROM '2020-03-04 05:06:07');
SELECT EXTRACT(DAY_MICROSECOND FROM '2020-03-04 05:06:07.5'), EXTRACT(HOUR_MICROSECOND FROM '2020-03-04 05:06:07.5'), EXTRACT(MINUTE_MICROSECOND FROM '2020-03-04 05:06:07.5'), EXTRACT(SECOND_MICROSECOND FROM '2020-03-04 05:06:07.5'), EXTRACT(YEAR_MONTH FROM NULL), EXTRACT(DAY_HOUR FROM 'x');
SELECT EXTRACT(DAY_HOUR FROM '10:11:12'), EXTRACT(HOUR_MINUTE FROM CAST('2020-01-01' AS DATE)), EXTRACT(YEAR_MONTH FROM 20200304), EXTRACT(DAY_HOUR FROM '30:00:00'), EXTRACT(HOUR FROM '30:00:00'), EXTRACT(HOUR FROM '10:11:12'), EXTRACT(DAY FROM '30:00:00');
SELECT EXTRACT(HOUR_MINUTE FROM '-10:11:12'), EXTRACT(DAY_SECOND FROM '1 02:03:04'), EXTRACT(YEAR_MONTH FROM '10:11:12'), EXTRACT(HOUR FROM 101112), EXTRACT(MINUTE_SECOND FROM 20200304050607), EXTRACT(HOUR_SECOND FROM CAST('2020-01-01 05:06:07' AS DATETIME)), EXTRACT(YEAR_MONTH FROM '2020-13-01');
SELECT EXTRACT(MINUTE FROM '10:11'), EXTRACT(SECOND FROM '10:11'), EXTRACT(DAY_MINUTE FROM '10:11'), EXTRACT(MICROSECOND FROM '10:11:12.5'), EXTRACT(DAY FROM '10:11:12'), EXTRACT(DAY FROM '2020-03-04'), EXTRACT(HOUR FROM '2020-03-04');
SELECT EXTRACT(DAY_HOUR FROM '2020-03-04'), EXTRACT(DAY_HOUR FROM 101112), EXTRACT(DAY FROM 101112), EXTRACT(HOUR FROM '2020-03-04 05:06:07'), EXTRACT(DAY_HOUR FROM '10:11'), EXTRACT(MONTH FROM '10:11:12'), EXTRACT(HOUR FROM '10-11-12');
SELECT EXTRACT(HOUR FROM '10.11.12'), EXTRACT(DAY_HOUR FROM '12 10'), EXTRACT(HOUR FROM 'x'), EXTRACT(HOUR FROM '2020-03-04T05:06:07'), EXTRACT(HOUR FROM 1011), EXTRACT(HOUR FROM SEC_TO_TIME(3700)), EXTRACT(SECOND_MICROSECOND FROM CAST('2020-01-01 00:00:01.25' AS DATETIME(2)));
SELECT id, EXTRACT(YEAR_MONTH FROM d), EXTRACT(DAY_MINUTE FROM at), EXTRACT(HOUR FROM at) FROM (SELECT 1 AS id, CAST('2020-05-06' AS DATE) AS d, CAST('2020-05-06 07:08:09' AS DATETIME) AS at) AS t;
SELECT EXTRACT(DAYS_HOUR FROM '2020-01-01');

-- script: zero dates in columns
CREATE TABLE zd (id INT PRIMARY KEY, d DATE, dt DATETIME);
INSERT INTO zd VALUES (1, '0000-00-00', '0000-00-00 00:00:00');
INSERT INTO zd VALUES (2, '2020-02-30', NULL);
INSERT INTO zd VALUES (3, '2020-00-10', '2020-01-00 10:00:00');
INSERT INTO zd VALUES (4, '2020-01-01', '2020-01-01 00:00:00');
INSERT IGNORE INTO zd VALUES (5, '2020-02-30', '2020-13-01');
INSERT IGNORE INTO zd VALUES (6, '0000-00-00', 'abc');
SELECT * FROM zd ORDER BY id;
SELECT id FROM zd WHERE d = '0000-00-00' ORDER BY id;
SELECT id, d < '2020-01-01', YEAR(d), MONTH(d), DAY(d) FROM zd ORDER BY id;
SELECT MIN(d), MAX(dt) FROM zd;
SELECT id, DATE_FORMAT(d, '%d.%m.%Y'), DATE_ADD(dt, INTERVAL 1 DAY), d = '0000-00-00', d IS NULL FROM zd ORDER BY id;
CREATE TABLE zdef (id INT PRIMARY KEY, d DATE NOT NULL DEFAULT '0000-00-00', dt DATETIME NOT NULL DEFAULT '0000-00-00 00:00:00');
INSERT INTO zdef (id) VALUES (1);
SELECT * FROM zdef;
UPDATE zd SET dt = '2021-00-00 12:00:00' WHERE id = 4;
SELECT dt, dt + INTERVAL 1 HOUR FROM zd WHERE id = 4;

-- script: zero and invalid dates in functions
SELECT DATE('0000-00-00'), YEAR('0000-00-00'), MONTH('0000-00-00'), DAY('0000-00-00'), DATE_FORMAT('0000-00-00', '%Y-%m-%d');
SELECT DAYNAME('0000-00-00'), TO_DAYS('0000-00-00'), LAST_DAY('0000-00-00');
SELECT DATE('2020-00-10'), YEAR('2020-00-10'), MONTH('2020-00-00'), DAY('2020-01-00'), DATE('2020-02-30');
SELECT DATE_ADD('0000-00-00', INTERVAL 1 DAY), DATEDIFF('2020-01-01', '0000-00-00'), '0000-00-00' = DATE('0000-00-00');
SELECT CAST('0000-00-00' AS DATE), CAST('2020-02-30' AS DATE), CAST('0000-00-00 00:00:00' AS DATETIME);
SELECT UNIX_TIMESTAMP('0000-00-00'), WEEK('0000-00-00'), DAYOFWEEK('0000-00-00');
SELECT DAYNAME('2020-00-10'), TO_DAYS('2020-00-10'), LAST_DAY('2020-00-10'), DATE_ADD('2020-00-10', INTERVAL 1 DAY), DATEDIFF('2020-01-01', '2020-00-10'), WEEK('2020-00-10'), DAYOFWEEK('2020-00-10'), UNIX_TIMESTAMP('2020-00-10'), QUARTER('2020-00-10');
SELECT DAYNAME('2020-01-00'), TO_DAYS('2020-01-00'), LAST_DAY('2020-01-00'), DATE_ADD('2020-01-00', INTERVAL 1 DAY), DATEDIFF('2020-01-01', '2020-01-00'), WEEK('2020-01-00'), DAYOFWEEK('2020-01-00'), MONTHNAME('2020-01-00'), QUARTER('0000-00-00');
SELECT DATE_FORMAT('0000-00-00 10:11:12', '%H:%i:%s %Y'), DATE('2020-01-00 10:00:00'), DATE(0), YEAR(0), DATE(20200010), DATE('00-00-00'), DATE('0000-00-00 00:00:00'), CAST('2020-00-10' AS DATETIME);
SELECT '0000-00-00' < CAST('2020-01-01' AS DATE), CAST('2020-00-10' AS DATE) < '2020-01-01', GREATEST(CAST('2020-01-01' AS DATE), '2020-00-10'), LEAST(CAST('2020-01-01' AS DATE), '2020-00-10'), MONTHNAME('0000-00-00'), DAYOFYEAR('2020-00-10'), WEEKDAY('0000-00-00'), YEARWEEK('0000-00-00'), TIMESTAMPDIFF(DAY, '0000-00-00', '2020-01-01');
SELECT HOUR('0000-00-00 10:11:12'), TIME('0000-00-00 10:11:12'), MINUTE('2020-00-00 10:11:12'), EXTRACT(DAY FROM '0000-00-00'), EXTRACT(HOUR_MINUTE FROM '2020-00-00 10:11:12'), EXTRACT(YEAR_MONTH FROM '2020-00-00'), DATE_FORMAT('0000-00-00', '%D');
SELECT DATE_FORMAT('0000-00-00', '%a');
SELECT DATE_FORMAT('0000-00-00', 'x%ay'), DATE_FORMAT('0000-00-00', '%b'), DATE_FORMAT('0000-00-00 10:00:00', '%W %H'), DATE_FORMAT('0000-00-00', '%%a'), DATE_FORMAT('0000-00-00', '%j'), DATE_FORMAT('0000-00-00', '%w %M');
SELECT STR_TO_DATE('00/00/0000', '%d/%m/%Y');
SELECT STR_TO_DATE('00/01/2020', '%d/%m/%Y'), STR_TO_DATE('10/00/2020', '%d/%m/%Y'), STR_TO_DATE('30/02/2020', '%d/%m/%Y'), STR_TO_DATE('00/00/0000 10:11', '%d/%m/%Y %H:%i'), STR_TO_DATE('31/04/2020', '%d/%m/%Y');
SELECT STR_TO_DATE('32/01/2020', '%d/%m/%Y'), STR_TO_DATE('10/13/2020', '%d/%m/%Y'), STR_TO_DATE('10/01/2020 24:00', '%d/%m/%Y %H:%i');
CREATE TABLE std (id INT PRIMARY KEY, d DATE, dt DATETIME);
INSERT INTO std VALUES (1, STR_TO_DATE('30/02/2020', '%d/%m/%Y'), NULL);
INSERT INTO std VALUES (2, STR_TO_DATE('00/00/0000', '%d/%m/%Y'), STR_TO_DATE('00/01/2020 10:11', '%d/%m/%Y %H:%i'));
INSERT INTO std VALUES (3, NULL, STR_TO_DATE('31/04/2020 10:11', '%d/%m/%Y %H:%i'));
UPDATE std SET d = STR_TO_DATE('31/06/2021', '%d/%m/%Y') WHERE id = 2;
SELECT id, d, dt FROM std ORDER BY id;

-- script: GROUP BY WITH ROLLUP
CREATE TABLE sales (id INT PRIMARY KEY, region VARCHAR(10), product VARCHAR(10), amount INT, price DECIMAL(6,2));
INSERT INTO sales VALUES (1, 'east', 'a', 10, 1.50), (2, 'east', 'b', 20, 2.25), (3, 'west', 'a', 5, 0.10), (4, NULL, 'a', 7, NULL), (5, 'west', 'b', 1, 3.00);
SELECT region, product, SUM(amount) FROM sales GROUP BY region, product WITH ROLLUP;
SELECT region, SUM(amount), COUNT(*), AVG(price) FROM sales GROUP BY region WITH ROLLUP;
SELECT region, SUM(amount) AS s FROM sales GROUP BY region WITH ROLLUP HAVING s > 10;
SELECT CONCAT(region, '!'), SUM(amount) FROM sales GROUP BY region WITH ROLLUP;
SELECT region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP LIMIT 2;
SELECT region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP LIMIT 1, 2;
SELECT * FROM (SELECT region, SUM(amount) AS s FROM sales GROUP BY region WITH ROLLUP) AS x ORDER BY s;
SELECT region, product, SUM(amount) FROM sales GROUP BY 1, 2 WITH ROLLUP;
SELECT UPPER(region) AS r, SUM(amount) FROM sales GROUP BY r WITH ROLLUP;
SELECT s.product, MAX(s.price), MIN(s.amount) FROM sales AS s WHERE s.amount > 1 GROUP BY s.product WITH ROLLUP;
SELECT product, COUNT(DISTINCT region), GROUP_CONCAT(id ORDER BY id) FROM sales GROUP BY product WITH ROLLUP;
SELECT SUM(amount) FROM sales WHERE amount > 100 GROUP BY region WITH ROLLUP;
SELECT product, SUM(amount) FROM sales WHERE amount > 100 GROUP BY product WITH ROLLUP;
SELECT region IS NULL, SUM(amount) FROM sales GROUP BY region WITH ROLLUP;
SELECT YEAR(CAST('2020-01-01' AS DATE)) AS y, product, SUM(amount) FROM sales GROUP BY y, product WITH ROLLUP;
SELECT s.region AS `order by`, t.region, SUM(s.amount) FROM sales AS s JOIN sales AS t ON t.id = s.id GROUP BY s.region, t.region WITH ROLLUP;
SELECT s.product AS `order by`, t.product FROM sales AS s JOIN sales AS t ON t.id = s.id GROUP BY s.product, t.product WITH ROLLUP;
SELECT product FROM sales GROUP BY product WITH ROLLUP;
-- Rows come in MySQL's order: the alias holding the words ORDER BY makes the comparison keep it.
SELECT region AS `order by`, product, SUM(amount) FROM sales GROUP BY region, product WITH ROLLUP;
SELECT product AS `order by`, region, COUNT(*) FROM sales GROUP BY product, region WITH ROLLUP;
SELECT price AS `order by`, SUM(amount) FROM sales GROUP BY price WITH ROLLUP;
SELECT region AS `order by`, SUM(amount) AS s FROM sales GROUP BY region WITH ROLLUP HAVING s > 5 LIMIT 3;
SELECT region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP ORDER BY region;
SELECT region AS `order by`, product, MIN(id), SUM(amount) FROM sales GROUP BY region, product WITH ROLLUP;
SELECT region AS `order by`, product, amount > 0, SUM(amount) FROM sales WHERE id <> 2 GROUP BY region, product WITH ROLLUP;
-- A super-aggregate row shows the value of the last group it adds up: refused where its rows differ.
SELECT region AS `order by`, product, id, SUM(amount) FROM sales GROUP BY region, product WITH ROLLUP;

-- script: GROUP BY WITH ROLLUP of groups whose rows differ in case
CREATE TABLE cities (id INT PRIMARY KEY, region VARCHAR(10), city VARCHAR(10), people INT);
INSERT INTO cities VALUES (1, 'north', 'a', 1), (2, 'North', 'b', 2), (3, 'south', 'c', 3);
SELECT region AS `order by`, SUM(people) FROM cities GROUP BY region WITH ROLLUP;
SELECT region AS `order by`, city, SUM(people) FROM cities WHERE region = 'south' GROUP BY region, city WITH ROLLUP;
SELECT region AS `order by`, city, SUM(people) FROM cities GROUP BY region, city WITH ROLLUP;

-- script: REPLACE and its affected rows
CREATE TABLE kv (id INT AUTO_INCREMENT PRIMARY KEY, k VARCHAR(10) NOT NULL UNIQUE, v INT NOT NULL DEFAULT 0);
REPLACE INTO kv (k, v) VALUES ('a', 1);
REPLACE INTO kv (k, v) VALUES ('a', 2);
SELECT * FROM kv ORDER BY id;
REPLACE INTO kv (id, k, v) VALUES (2, 'a', 2);
REPLACE INTO kv (id, k, v) VALUES (2, 'a', 2);
REPLACE INTO kv VALUES (5, 'b', 1);
REPLACE INTO kv VALUES (5, 'a', 1);
SELECT * FROM kv ORDER BY id;
REPLACE INTO kv (k, v) VALUES ('c', 1), ('c', 2);
REPLACE kv SET k = 'A', v = 9;
SELECT * FROM kv ORDER BY id;
REPLACE INTO kv (k, v) VALUES ('d', NULL);
REPLACE INTO kv (k, v) VALUES ('d', 'x');
REPLACE INTO kv (k) VALUES ('e');
SELECT * FROM kv ORDER BY id;
REPLACE INTO kv (k, v) SELECT 'f', 1;
INSERT INTO kv (k, v) VALUES ('g', 1);
SELECT * FROM kv ORDER BY id;
REPLACE INTO kv (k, v) SELECT k, v + 10 FROM kv WHERE id < 4;
SELECT * FROM kv ORDER BY id;
CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR(10));
CREATE TABLE child (id INT PRIMARY KEY, parent_id INT, FOREIGN KEY (parent_id) REFERENCES parent (id) ON DELETE CASCADE);
INSERT INTO parent VALUES (1, 'p');
INSERT INTO child VALUES (10, 1);
REPLACE INTO parent VALUES (1, 'q');
SELECT COUNT(*) FROM child;

-- script: counts of the previous statement
CREATE TABLE posts (id INT AUTO_INCREMENT PRIMARY KEY, title VARCHAR(40) NOT NULL, status VARCHAR(10) NOT NULL DEFAULT 'draft');
INSERT INTO posts (title, status) VALUES ('one', 'publish'), ('two', 'publish'), ('three', 'draft'), ('four', 'publish'), ('five', 'publish');
SELECT ROW_COUNT();
UPDATE posts SET status = 'publish' WHERE id < 4;
SELECT ROW_COUNT();
UPDATE posts SET status = 'publish' WHERE id = 99;
SELECT ROW_COUNT();
DELETE FROM posts WHERE id = 5;
SELECT ROW_COUNT();
SELECT ROW_COUNT();
SELECT SQL_CALC_FOUND_ROWS id, title FROM posts WHERE status = 'publish' ORDER BY id LIMIT 2;
SELECT FOUND_ROWS();
SELECT FOUND_ROWS();
SELECT SQL_CALC_FOUND_ROWS id FROM posts ORDER BY id DESC LIMIT 1, 2;
SELECT FOUND_ROWS();
SELECT SQL_CALC_FOUND_ROWS id FROM posts WHERE id > 100 LIMIT 10;
SELECT FOUND_ROWS();
SELECT id FROM posts WHERE status = 'publish' ORDER BY id LIMIT 3;
SELECT FOUND_ROWS();
SELECT SQL_CALC_FOUND_ROWS status, COUNT(*) FROM posts GROUP BY status ORDER BY status LIMIT 1;
SELECT FOUND_ROWS();
REPLACE INTO posts (id, title) VALUES (1, 'uno');
SELECT ROW_COUNT();
INSERT INTO posts (id, title) VALUES (2, 'x') ON DUPLICATE KEY UPDATE title = 'dos';
SELECT ROW_COUNT();

-- script: SELECT INTO user variables
CREATE TABLE accounts (id INT PRIMARY KEY, owner VARCHAR(20), balance DECIMAL(10,2));
INSERT INTO accounts VALUES (1, 'ann', 100.50), (2, 'bob', 20.00), (3, 'cy', NULL);
SELECT balance, owner INTO @b, @o FROM accounts WHERE id = 1;
SELECT @b, @o;
SELECT balance INTO @b FROM accounts WHERE id = 99;
SELECT @b;
SELECT balance INTO @b FROM accounts;
SELECT COUNT(*), MAX(balance) INTO @n, @m FROM accounts;
SELECT @n, @m, @n + 1;
SELECT id INTO @x, @y FROM accounts WHERE id = 2;
SELECT balance INTO @c FROM accounts WHERE id = 3;
SELECT @c IS NULL;
SELECT 7 INTO @seven;
SELECT @seven * 2;

-- script: decimal division
SELECT 1 / 3000000, 7 / 123456789.5, 10.5 / 1000000000, 1 / 7000, 2.5 / 10000000;
SELECT 100 / 3, 2 / 3.000, 1.00 / 3, 123456789 / 0.001, 5 / 100000;
CREATE TABLE amounts (a DECIMAL(10,2), b DECIMAL(12,4), n INT);
INSERT INTO amounts VALUES (10.00, 3.0000, 7), (1.50, 20000.0000, 123456), (0.01, 99999.9999, 1);
SELECT a / b, a / n, n / b, b / 1000000 FROM amounts ORDER BY n;
SELECT SUM(a) / COUNT(*), AVG(a) / 3 FROM amounts;
SELECT 1 / 3 * 3, 2 / 3 * 3, 1.5 / 7 * 7, 1 / 7 / 7, 1.000000001 / 3 * 3, 1 / 3000000000 * 3000000000;
SELECT (1 / 3) / 1, ROUND(1 / 3, 6), CAST(1 / 3 AS DECIMAL(20,12)), 1 / 3 = 0.3333, 1 / 3 > 0.3333;
SELECT AVG(a), AVG(a) * 3, AVG(n), AVG(n) * 3 FROM amounts;
SELECT n FROM amounts WHERE a / 3 > 0.5 ORDER BY n;
SELECT n, a / 3 AS third FROM amounts ORDER BY third, n;
SELECT 1 / 3 = 0.333333333, 1 / 3 < 0.33333, 2 / 3 = 0.6667, 2 / 3 > 0.6666, 1 / 3 IN (0.3333), 1 / 3 <=> 0.3333;
SELECT 1 / 3 BETWEEN 0.3333 AND 0.3333, CASE 1 / 3 WHEN 0.3333 THEN 'y' ELSE 'n' END, 0.3333 = 1 / 3;
SELECT n FROM amounts WHERE a / 3 = 0.003333;

-- script: a blog's posts, meta and comments
CREATE TABLE wp_posts (ID BIGINT(20) UNSIGNED NOT NULL AUTO_INCREMENT, post_author BIGINT(20) UNSIGNED NOT NULL DEFAULT 0, post_date DATETIME NOT NULL DEFAULT '2000-01-01 00:00:00', post_title TEXT NOT NULL, post_status VARCHAR(20) NOT NULL DEFAULT 'publish' COMMENT 'publish, draft or trash', post_name VARCHAR(200) NOT NULL DEFAULT '', comment_count BIGINT(20) NOT NULL DEFAULT 0, modified TIMESTAMP NOT NULL DEFAULT '2000-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (ID), KEY post_name (post_name(191)), KEY type_status_date (post_status, post_date, ID), KEY post_author (post_author)) ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='posts';
CREATE TABLE wp_postmeta (meta_id BIGINT(20) UNSIGNED NOT NULL AUTO_INCREMENT, post_id BIGINT(20) UNSIGNED NOT NULL DEFAULT 0, meta_key VARCHAR(255) DEFAULT NULL, meta_value LONGTEXT, PRIMARY KEY (meta_id), KEY post_id (post_id), KEY meta_key (meta_key(191))) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE wp_comments (comment_ID BIGINT(20) UNSIGNED NOT NULL AUTO_INCREMENT, comment_post_ID BIGINT(20) UNSIGNED NOT NULL DEFAULT 0, comment_author TINYTEXT NOT NULL, comment_date DATETIME NOT NULL DEFAULT '2000-01-01 00:00:00', comment_approved VARCHAR(20) NOT NULL DEFAULT '1', PRIMARY KEY (comment_ID), KEY comment_post_ID (comment_post_ID)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO wp_posts (post_author, post_date, post_title, post_status, post_name) VALUES (1, '2024-01-05 09:00:00', 'Hello world', 'publish', 'hello-world'), (1, '2024-01-20 10:30:00', 'Second post', 'publish', 'second-post'), (2, '2024-02-03 08:15:00', 'Draft ideas', 'draft', 'draft-ideas'), (2, '2024-02-14 18:45:00', 'Valentine', 'publish', 'valentine'), (1, '2024-03-01 12:00:00', 'March news', 'publish', 'march-news'), (3, '2024-03-09 07:05:00', 'Trash me', 'trash', 'trash-me');
INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (1, '_edit_lock', '1704445200:1'), (1, 'views', '120'), (2, 'views', '45'), (4, 'views', '300'), (5, 'views', '7'), (4, '_thumbnail_id', '9');
INSERT INTO wp_comments (comment_post_ID, comment_author, comment_date, comment_approved) VALUES (1, 'Ann', '2024-01-06 10:00:00', '1'), (1, 'bob', '2024-01-07 11:00:00', '1'), (1, 'spam', '2024-01-07 12:00:00', 'spam'), (4, 'Cy', '2024-02-15 09:00:00', '1'), (5, 'Ann', '2024-03-02 13:00:00', '0');
SELECT SQL_CALC_FOUND_ROWS ID, post_title FROM wp_posts WHERE post_status = 'publish' ORDER BY post_date DESC LIMIT 0, 2;
SELECT FOUND_ROWS();
SELECT ID, post_title FROM wp_posts WHERE post_status = 'publish' ORDER BY post_date DESC LIMIT 2 OFFSET 2;
SELECT YEAR(post_date) AS y, MONTH(post_date) AS m, COUNT(ID) AS posts FROM wp_posts WHERE post_status = 'publish' GROUP BY YEAR(post_date), MONTH(post_date) ORDER BY post_date DESC;
SELECT DATE_FORMAT(post_date, '%M %Y') AS archive, COUNT(*) FROM wp_posts WHERE post_status = 'publish' GROUP BY archive ORDER BY MIN(post_date);
SELECT p.ID, p.post_title, m.meta_value FROM wp_posts p INNER JOIN wp_postmeta m ON m.post_id = p.ID WHERE m.meta_key = 'views' ORDER BY CAST(m.meta_value AS UNSIGNED) DESC;
SELECT p.ID, COUNT(c.comment_ID) AS approved FROM wp_posts p LEFT JOIN wp_comments c ON c.comment_post_ID = p.ID AND c.comment_approved = '1' GROUP BY p.ID ORDER BY p.ID;
SELECT comment_post_ID, COUNT(*) AS n FROM wp_comments GROUP BY comment_post_ID HAVING COUNT(*) > 1;
SELECT post_author, COUNT(*) AS n, MAX(post_date) AS latest FROM wp_posts GROUP BY post_author HAVING n >= 2 ORDER BY n DESC, post_author;
UPDATE wp_posts SET comment_count = (SELECT COUNT(*) FROM wp_comments WHERE comment_post_ID = wp_posts.ID AND comment_approved = '1');
SELECT ID, comment_count FROM wp_posts ORDER BY ID;
SELECT post_name FROM wp_posts WHERE post_name = 'HELLO-WORLD';
SELECT ID FROM wp_posts WHERE post_title LIKE '%post%' OR post_title LIKE 'v%' ORDER BY ID;
SELECT ID, post_title FROM wp_posts WHERE ID IN (SELECT post_id FROM wp_postmeta WHERE meta_key = '_thumbnail_id');
SELECT ID FROM wp_posts p WHERE EXISTS (SELECT 1 FROM wp_comments c WHERE c.comment_post_ID = p.ID AND c.comment_author = 'ann') ORDER BY ID;
SELECT ID, DATEDIFF('2024-03-10', post_date) AS age_days FROM wp_posts WHERE post_date > DATE_SUB('2024-03-10', INTERVAL 30 DAY) ORDER BY ID;
SELECT ID FROM wp_posts WHERE post_date BETWEEN '2024-01-01' AND '2024-01-31 23:59:59' ORDER BY ID;
UPDATE wp_posts SET post_status = 'trash' WHERE post_status = 'draft' AND post_date < '2024-02-10';
SELECT post_status, COUNT(*) FROM wp_posts GROUP BY post_status ORDER BY post_status;
DELETE FROM wp_posts WHERE post_status = 'trash';
SELECT COUNT(*) FROM wp_posts;
DELETE m FROM wp_postmeta m LEFT JOIN wp_posts p ON p.ID = m.post_id WHERE p.ID IS NULL;
SELECT COUNT(*) FROM wp_postmeta;
SELECT CAST('120' AS UNSIGNED), CAST('12abc' AS UNSIGNED), CAST(7.5 AS UNSIGNED), CAST(NULL AS UNSIGNED), CAST(2.5e0 AS UNSIGNED), CAST('' AS UNSIGNED);
SELECT meta_key, SUM(CAST(meta_value AS UNSIGNED)) FROM wp_postmeta GROUP BY meta_key ORDER BY meta_key;

-- script: an ORM's session
CREATE TABLE users (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, email VARCHAR(190) NOT NULL, name VARCHAR(100) NOT NULL, version INT NOT NULL DEFAULT 0, score DECIMAL(8,2) NOT NULL DEFAULT 0.00, created_at DATETIME NOT NULL, deleted_at DATETIME NULL DEFAULT NULL, UNIQUE KEY users_email_unique (email)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
CREATE TABLE users (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, email VARCHAR(190) NOT NULL, name VARCHAR(100) NOT NULL, version INT NOT NULL DEFAULT 0, score DECIMAL(8,2) NOT NULL DEFAULT 0.00, created_at DATETIME NOT NULL, deleted_at DATETIME NULL DEFAULT NULL, UNIQUE KEY users_email_unique (email)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
SELECT 1;
START TRANSACTION;
INSERT INTO users (email, name, created_at) VALUES ('ann@example.com', 'Ann', '2024-04-01 10:00:00');
SELECT LAST_INSERT_ID();
INSERT INTO users (email, name, created_at) VALUES ('bob@example.com', 'Bob', '2024-04-02 11:00:00'), ('cy@example.com', 'Cy', '2024-04-03 12:00:00');
COMMIT;
SELECT id, email, name, version, score FROM users WHERE deleted_at IS NULL ORDER BY id ASC;
UPDATE users SET name = 'Ann B', version = version + 1 WHERE id = 1 AND version = 0;
UPDATE users SET name = 'Ann C', version = version + 1 WHERE id = 1 AND version = 0;
SELECT id, name, version FROM users WHERE id = 1;
INSERT INTO users (email, name, score, created_at) VALUES ('ANN@example.com', 'Dup', 1.5, '2024-04-04 00:00:00') ON DUPLICATE KEY UPDATE score = score + VALUES(score), version = version + 1;
INSERT INTO users (email, name, score, created_at) VALUES ('dee@example.com', 'Dee', 2.25, '2024-04-05 00:00:00') ON DUPLICATE KEY UPDATE score = score + VALUES(score);
SELECT id, email, score, version FROM users ORDER BY id;
INSERT INTO users (email, name, created_at) VALUES ('bob@example.com', 'Bob2', '2024-04-06 00:00:00');
BEGIN;
UPDATE users SET deleted_at = '2024-05-01 00:00:00' WHERE id = 2;
SELECT COUNT(*) FROM users WHERE deleted_at IS NULL;
ROLLBACK;
SELECT COUNT(*) FROM users WHERE deleted_at IS NULL;
START TRANSACTION;
SELECT id, score FROM users WHERE id = 3 FOR UPDATE;
UPDATE users SET score = score - 0.25 WHERE id = 3;
COMMIT;
SELECT score FROM users WHERE id = 3;
SELECT COUNT(*) AS aggregate FROM users WHERE email LIKE '%@example.com' AND deleted_at IS NULL;
SELECT * FROM users WHERE id IN (1, 3, 5) ORDER BY id DESC LIMIT 10 OFFSET 0;
SELECT EXISTS(SELECT 1 FROM users WHERE email = 'cy@example.com') AS e;
SELECT name FROM users WHERE created_at >= DATE_SUB('2024-04-05 00:00:00', INTERVAL 3 DAY) ORDER BY created_at;
DELETE FROM users WHERE id = 4;
SELECT MAX(id), COUNT(*) FROM users;
INSERT INTO users (email, name, created_at) VALUES ('eve@example.com', 'Eve', '2024-04-07 00:00:00');
SELECT id FROM users WHERE email = 'eve@example.com';

-- script: statements a compute node pushes down
CREATE TABLE orders (o_id INT NOT NULL, o_cust INT NOT NULL, o_date DATE NOT NULL, o_status CHAR(1) NOT NULL, o_total DECIMAL(12,2) NOT NULL, o_note VARCHAR(40), PRIMARY KEY (o_id), KEY o_cust (o_cust), KEY o_date (o_date));
CREATE TABLE customers (c_id INT NOT NULL PRIMARY KEY, c_name VARCHAR(30) NOT NULL, c_region VARCHAR(10) NOT NULL);
INSERT INTO customers VALUES (1, 'Acme', 'EU'), (2, 'Globex', 'US'), (3, 'Initech', 'US'), (4, 'Umbrella', 'APAC');
INSERT INTO orders VALUES (1, 1, '2024-01-03', 'F', 100.00, NULL), (2, 1, '2024-01-15', 'O', 250.50, 'rush'), (3, 2, '2024-02-01', 'F', 75.25, NULL), (4, 3, '2024-02-11', 'F', 980.00, 'big'), (5, 3, '2024-03-05', 'P', 12.10, NULL), (6, 2, '2024-03-20', 'F', 430.00, NULL), (7, 4, '2024-03-28', 'O', 66.60, 'gift');
SELECT o_id, o_total FROM orders WHERE o_cust IN (1, 3) AND o_date >= '2024-01-10' ORDER BY o_id;
SELECT o_cust, COUNT(*), SUM(o_total), MIN(o_total), MAX(o_total), AVG(o_total) FROM orders GROUP BY o_cust ORDER BY o_cust;
SELECT c.c_region, SUM(o.o_total) AS revenue FROM orders o JOIN customers c ON c.c_id = o.o_cust WHERE o.o_status = 'F' GROUP BY c.c_region HAVING SUM(o.o_total) > 100 ORDER BY revenue DESC;
SELECT o_status, COUNT(DISTINCT o_cust) FROM orders GROUP BY o_status ORDER BY o_status;
SELECT o_id FROM orders WHERE o_total BETWEEN 50 AND 300 AND o_note IS NULL ORDER BY o_total DESC;
SELECT `o_id`, `o_total` FROM `orders` WHERE (`o_status` = 'F') AND (`o_total` > 80.5) ORDER BY `o_id` LIMIT 2;
SELECT DATE_FORMAT(o_date, '%Y-%m') AS month, SUM(o_total) FROM orders GROUP BY DATE_FORMAT(o_date, '%Y-%m') ORDER BY month;
SELECT o_cust, o_total FROM orders o1 WHERE o_total = (SELECT MAX(o_total) FROM orders o2 WHERE o2.o_cust = o1.o_cust) ORDER BY o_cust;
SELECT c_name FROM customers WHERE c_id NOT IN (SELECT o_cust FROM orders WHERE o_status = 'O') ORDER BY c_name;
SELECT t.o_cust, t.n FROM (SELECT o_cust, COUNT(*) AS n FROM orders GROUP BY o_cust) AS t WHERE t.n > 1 ORDER BY t.o_cust;
SELECT o_id, o_date FROM orders WHERE o_date < '2024-02-01' UNION ALL SELECT o_id, o_date FROM orders WHERE o_total > 900 ORDER BY o_id;
SELECT o_id, CASE WHEN o_total >= 500 THEN 'large' WHEN o_total >= 100 THEN 'medium' ELSE 'small' END AS size FROM orders ORDER BY o_id;
SELECT COALESCE(o_note, '-'), IFNULL(o_note, 'none') FROM orders WHERE o_id IN (1, 2) ORDER BY o_id;
SELECT o_cust, SUM(CASE WHEN o_status = 'F' THEN o_total ELSE 0 END) AS done FROM orders GROUP BY o_cust ORDER BY o_cust;
SELECT c.c_name, COUNT(o.o_id) FROM customers c LEFT JOIN orders o ON o.o_cust = c.c_id AND o.o_date >= '2024-03-01' GROUP BY c.c_id, c.c_name ORDER BY c.c_id;
SELECT o_id, o_total * 1.2 AS gross, ROUND(o_total * 0.19, 2) AS vat FROM orders WHERE o_id <= 3 ORDER BY o_id;
SELECT COUNT(*) FROM orders WHERE o_date BETWEEN DATE_SUB('2024-03-31', INTERVAL 1 MONTH) AND '2024-03-31';
SELECT o_id, DATEDIFF(o_date, '2024-01-01') AS d, DAYOFWEEK(o_date), WEEKDAY(o_date), QUARTER(o_date) FROM orders ORDER BY o_id;
SELECT o_id, ROW_NUMBER() OVER (PARTITION BY o_cust ORDER BY o_date) AS rn FROM orders ORDER BY o_id;
SELECT o_cust, GROUP_CONCAT(o_id ORDER BY o_id SEPARATOR ',') FROM orders GROUP BY o_cust ORDER BY o_cust;

-- script: the last generated id
CREATE TABLE tickets (id INT AUTO_INCREMENT PRIMARY KEY, title VARCHAR(20) NOT NULL UNIQUE);
INSERT INTO tickets (title) VALUES ('a');
SELECT LAST_INSERT_ID();
INSERT INTO tickets (title) VALUES ('b'), ('c'), ('d');
SELECT LAST_INSERT_ID();
INSERT INTO tickets (id, title) VALUES (10, 'e');
SELECT LAST_INSERT_ID();
INSERT INTO tickets (title) VALUES ('a');
SELECT LAST_INSERT_ID();
UPDATE tickets SET title = 'z' WHERE id = 1;
SELECT LAST_INSERT_ID(), ROW_COUNT();
INSERT INTO tickets (title) VALUES ('f');
SELECT LAST_INSERT_ID(), id FROM tickets WHERE title = 'f';

-- script: names under the default collation
CREATE TABLE people (id INT PRIMARY KEY, login VARCHAR(30) NOT NULL, city VARCHAR(30), UNIQUE KEY login (login));
INSERT INTO people VALUES (1, 'Zoë', 'Köln'), (2, 'adam', 'berlin'), (3, 'Émile', 'Paris'), (4, 'bob', 'Berlin'), (5, 'Adèle', 'paris');
INSERT INTO people VALUES (6, 'ADAM', 'x');
INSERT INTO people VALUES (7, 'adam ', 'x');
SELECT login FROM people ORDER BY login, id;
SELECT city, COUNT(*) FROM people GROUP BY city ORDER BY city;
SELECT DISTINCT city FROM people ORDER BY city;
SELECT id FROM people WHERE login = 'zoe' OR login = 'EMILE' ORDER BY id;
SELECT id FROM people WHERE city IN ('BERLIN') ORDER BY id;
SELECT id FROM people WHERE login LIKE 'a%' ORDER BY id;
SELECT MIN(login), MAX(login) FROM people;
SELECT id FROM people WHERE login COLLATE utf8mb4_bin = 'adam';
SELECT login FROM people ORDER BY login COLLATE utf8mb4_bin;
SELECT id, login > 'b', login < 'B' FROM people ORDER BY id;
SELECT UPPER(login), LOWER(city) FROM people ORDER BY id;
SELECT COUNT(DISTINCT city), COUNT(DISTINCT LOWER(city)) FROM people;
SELECT p1.id, p2.id FROM people p1 JOIN people p2 ON p1.city = p2.city AND p1.id < p2.id ORDER BY p1.id, p2.id;

-- script: strict mode refusals an application meets
CREATE TABLE profile (id INT PRIMARY KEY, nick VARCHAR(5) NOT NULL, age TINYINT UNSIGNED, born DATE, balance DECIMAL(6,2), kind CHAR(2) NOT NULL DEFAULT 'a');
INSERT INTO profile (id, nick) VALUES (1, 'toolongnick');
INSERT INTO profile (id, nick, age) VALUES (1, 'ok', 300);
INSERT INTO profile (id, nick, age) VALUES (1, 'ok', -1);
INSERT INTO profile (id, nick, born) VALUES (1, 'ok', '2024-02-30');
INSERT INTO profile (id, nick, born) VALUES (1, 'ok', 'yesterday');
INSERT INTO profile (id, nick, balance) VALUES (1, 'ok', 12345.67);
INSERT INTO profile (id, nick, balance) VALUES (1, 'ok', '12.3x');
INSERT INTO profile (id, nick) VALUES (1, NULL);
INSERT INTO profile (id) VALUES (1);
INSERT INTO profile (id, nick, age) VALUES (1, 'ok', '42');
INSERT INTO profile (id, nick, balance, born) VALUES (2, 'ok2', 1.005, '2024-02-29');
SELECT * FROM profile ORDER BY id;
UPDATE profile SET age = age + 250 WHERE id = 1;
UPDATE profile SET nick = CONCAT(nick, '-long') WHERE id = 1;
UPDATE profile SET balance = balance * 1000 WHERE id = 2;
SELECT id, nick, age, balance FROM profile ORDER BY id;
INSERT IGNORE INTO profile (id, nick, age) VALUES (3, 'toolongnick', 999);
SELECT id, nick, age FROM profile WHERE id = 3;
INSERT INTO profile (id, nick) VALUES (1, 'dup');

-- script: a mysqldump of tables with keys
/*!40101 SET NAMES utf8mb4 */;
DROP TABLE IF EXISTS `wp_terms`;
/*!40101 SET @saved_cs_client = 1 */;
CREATE TABLE `wp_terms` (`term_id` bigint(20) unsigned NOT NULL AUTO_INCREMENT, `name` varchar(200) NOT NULL DEFAULT '', `slug` varchar(200) NOT NULL DEFAULT '', `term_group` bigint(10) NOT NULL DEFAULT 0, PRIMARY KEY (`term_id`), KEY `slug` (`slug`(191)), KEY `name` (`name`(191))) ENGINE=InnoDB AUTO_INCREMENT=4 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
LOCK TABLES `wp_terms` WRITE;
INSERT INTO `wp_terms` VALUES (1,'Uncategorized','uncategorized',0),(2,'News','news',0),(3,'Émigré \"quotes\"','emigre',0);
UNLOCK TABLES;
SELECT term_id, name, slug FROM wp_terms ORDER BY term_id;
INSERT INTO wp_terms (name, slug) VALUES ('Next', 'next');
SELECT MAX(term_id) FROM wp_terms;

-- script: HEX and CONV of numbers
SELECT HEX(1.5), HEX(2.5), HEX(-1.5), HEX(1.4e0), HEX(2.5e0), HEX(-2.5e0), HEX(0.4), HEX(-0.4);
SELECT HEX(18446744073709551616), HEX(-18446744073709551616), HEX(99999999999999999999), HEX(1e30), HEX(-9223372036854775809), HEX(9223372036854775808);
SELECT HEX(255), HEX(-255), HEX('abc'), HEX(NULL), HEX(''), UNHEX(HEX('xyz'));
SELECT CONV('-1', 10, 16), CONV('-1', 10, -16), CONV('-ff', 16, 10), CONV('ff', 16, -10), CONV('-10', 10, -2), CONV('12x', 10, 10), CONV('x', 10, 10);
SELECT CONV(' 5', 10, 10), CONV('99999999999999999999', 10, 16), CONV('-99999999999999999999', 10, -10), CONV('8000000000000000', 16, -10), CONV('zz', 36, 10), CONV('1', 1, 10), CONV(10, 10, 37);
SELECT CONV('-ff', -16, 10), CONV('-ff', -16, -10), CONV('99999999999999999999', -10, 10), CONV(255, 10, 2), CONV(-255, 10, 2);

-- script: expired transients deleted in pairs
CREATE TABLE wp_options2 (option_id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT, option_name VARCHAR(191) NOT NULL DEFAULT '', option_value LONGTEXT NOT NULL, autoload VARCHAR(20) NOT NULL DEFAULT 'yes', PRIMARY KEY (option_id), UNIQUE KEY option_name (option_name), KEY autoload (autoload)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO wp_options2 (option_name, option_value, autoload) VALUES ('_transient_feed', 'a', 'no'), ('_transient_timeout_feed', '1600000000', 'no'), ('_transient_news', 'b', 'no'), ('_transient_timeout_news', '1900000000', 'no'), ('siteurl', 'http://x', 'yes'), ('_transient_orphan', 'c', 'no');
SELECT option_name, option_value FROM wp_options2 WHERE autoload = 'yes';
DELETE a, b FROM wp_options2 a, wp_options2 b WHERE a.option_name LIKE '\_transient\_%' AND a.option_name NOT LIKE '\_transient\_timeout\_%' AND b.option_name = CONCAT('_transient_timeout_', SUBSTRING(a.option_name, 12)) AND b.option_value < 1700000000;
SELECT option_name FROM wp_options2 ORDER BY option_id;
DELETE a FROM wp_options2 a LEFT JOIN wp_options2 b ON b.option_name = CONCAT('_transient_timeout_', SUBSTRING(a.option_name, 12)) WHERE a.option_name LIKE '\_transient\_%' AND a.option_name NOT LIKE '\_transient\_timeout\_%' AND b.option_id IS NULL;
SELECT option_name FROM wp_options2 ORDER BY option_id;
DELETE x FROM wp_options2 a;
SELECT COUNT(*) FROM wp_options2;

-- script: a scheduler's date arithmetic
CREATE TABLE jobs (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, every_days INT NOT NULL, last_run DATETIME, due DATE);
INSERT INTO jobs VALUES (1, 'backup', 1, '2024-02-28 23:30:00', '2024-02-29'), (2, 'report', 7, '2024-01-31 08:00:00', '2024-02-07'), (3, 'cleanup', 30, NULL, '2024-12-31'), (4, 'billing', 31, '2023-12-31 00:00:00', '2024-01-31');
SELECT id, DATE_ADD(last_run, INTERVAL every_days DAY) AS next_run FROM jobs ORDER BY id;
SELECT id, last_run + INTERVAL 1 MONTH, last_run - INTERVAL 1 YEAR, due + INTERVAL 1 MONTH FROM jobs ORDER BY id;
SELECT id, DATE_FORMAT(last_run, '%Y-%m-%d %H:%i:%s'), DATE_FORMAT(last_run, '%a %b %e, %Y %l:%i %p'), DATE_FORMAT(due, '%W %D %M %Y') FROM jobs ORDER BY id;
SELECT id, DATE(last_run), TIME(last_run), DAYNAME(due), MONTHNAME(due), DAYOFYEAR(due), WEEK(due), LAST_DAY(due) FROM jobs ORDER BY id;
SELECT id, TIMESTAMPDIFF(HOUR, last_run, '2024-03-01 00:00:00'), TIMESTAMPDIFF(MONTH, due, '2024-12-31'), DATEDIFF(due, last_run) FROM jobs ORDER BY id;
SELECT name FROM jobs WHERE due BETWEEN '2024-01-01' AND '2024-02-29' ORDER BY due;
SELECT name FROM jobs WHERE last_run < DATE_SUB('2024-03-01', INTERVAL 2 WEEK) ORDER BY id;
SELECT YEAR(due), COUNT(*) FROM jobs GROUP BY YEAR(due) ORDER BY 1;
UPDATE jobs SET last_run = '2024-03-01 00:00:00', due = DATE_ADD(due, INTERVAL every_days DAY) WHERE id IN (1, 2);
SELECT id, last_run, due FROM jobs ORDER BY id;
SELECT STR_TO_DATE('01/03/2024', '%d/%m/%Y'), STR_TO_DATE('2024-03-01 10:11', '%Y-%m-%d %H:%i'), UNIX_TIMESTAMP('2024-03-01 00:00:00') - UNIX_TIMESTAMP('2024-02-29 00:00:00');
SELECT MAKEDATE(2024, 60), ADDDATE('2024-01-31', 30), SUBDATE('2024-03-01', 1), DATE_ADD('2024-01-31', INTERVAL 1 MONTH), DATE_ADD('2023-02-28 23:59:59', INTERVAL 1 SECOND);
SELECT STR_TO_DATE('1/3/2024', '%d/%m/%Y'), STR_TO_DATE('2024-03-01 extra', '%Y-%m-%d'), STR_TO_DATE('24-3-1', '%y-%m-%d'), STR_TO_DATE('2024-03-01 5:6:7', '%Y-%m-%d %H:%i:%s');
SELECT STR_TO_DATE('2024-03-01', '%Y-%m-%d %H'), STR_TO_DATE('2024/03/01', '%Y-%m-%d'), STR_TO_DATE(' 2024-03-01', '%Y-%m-%d'), STR_TO_DATE('2024-3-1', '%Y-%c-%e'), STR_TO_DATE('20240301', '%Y%m%d'), STR_TO_DATE(NULL, '%Y-%m-%d');
SELECT id FROM jobs WHERE due < STR_TO_DATE('01.03.2024', '%d.%m.%Y') ORDER BY id;
SELECT STR_TO_DATE('2024-03-01 10:11:12', '%Y-%m-%d %T') + INTERVAL 1 HOUR;

-- script: a shop's catalogue pages and reports
CREATE TABLE products (id INT UNSIGNED NOT NULL AUTO_INCREMENT, sku VARCHAR(16) NOT NULL, title VARCHAR(60) NOT NULL, price DECIMAL(10,2) NOT NULL, stock INT NOT NULL DEFAULT 0, category VARCHAR(20) NOT NULL, active TINYINT(1) NOT NULL DEFAULT 1, PRIMARY KEY (id), UNIQUE KEY sku (sku), KEY category (category, price)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO products (sku, title, price, stock, category, active) VALUES ('A-1', 'Apple juice', 2.49, 100, 'drinks', 1), ('A-2', 'apple pie', 5.99, 0, 'bakery', 1), ('B-1', 'Banana bread', 4.50, 12, 'bakery', 1), ('C-1', 'Cola', 1.99, 250, 'drinks', 1), ('C-2', 'Croissant', 1.20, 40, 'bakery', 0), ('D-1', 'Dark chocolate', 3.75, 8, 'sweets', 1), ('E-1', 'Éclair', 2.80, 15, 'bakery', 1);
SELECT id, title, price FROM products WHERE active = 1 ORDER BY price ASC, id ASC LIMIT 3;
SELECT id, title, price FROM products WHERE active = 1 ORDER BY price ASC, id ASC LIMIT 3, 3;
SELECT COUNT(*) FROM products WHERE active = 1 AND (title LIKE '%apple%' OR sku LIKE 'a%');
SELECT title FROM products WHERE title LIKE 'e%' OR title LIKE 'É%' ORDER BY title;
SELECT category, COUNT(*) AS n, SUM(stock) AS units, ROUND(AVG(price), 2) AS avg_price, MIN(price), MAX(price) FROM products GROUP BY category ORDER BY category;
SELECT category, SUM(price * stock) AS value FROM products WHERE active = 1 GROUP BY category HAVING value > 100 ORDER BY value DESC;
SELECT id, title, IF(stock > 0, 'in stock', 'sold out') AS availability FROM products ORDER BY id;
SELECT title, FORMAT(price, 2), CONCAT('$', price), LPAD(stock, 5, '0') FROM products WHERE id <= 3 ORDER BY id;
UPDATE products SET stock = stock - 1 WHERE sku = 'B-1' AND stock > 0;
UPDATE products SET price = ROUND(price * 1.10, 2) WHERE category = 'drinks';
SELECT sku, price, stock FROM products WHERE category IN ('drinks', 'bakery') ORDER BY sku;
SELECT category, GROUP_CONCAT(sku ORDER BY sku SEPARATOR '|') FROM products GROUP BY category ORDER BY category;
SELECT p.category, COUNT(*) FROM products p WHERE p.price > (SELECT AVG(price) FROM products) GROUP BY p.category ORDER BY p.category;
SELECT title FROM products ORDER BY title LIMIT 4;
SELECT DISTINCT category FROM products WHERE active ORDER BY category DESC;
INSERT INTO products (sku, title, price, category) VALUES ('a-1', 'dup', 1.00, 'drinks');
INSERT INTO products (sku, title, price, category) VALUES ('F-1', 'Fig', 0.5, 'fruit') ON DUPLICATE KEY UPDATE price = VALUES(price);
SELECT id, sku, price FROM products WHERE sku = 'F-1';
DELETE FROM products WHERE active = 0 LIMIT 1;
SELECT COUNT(*), SUM(active) FROM products;

-- script: transfers in transactions
CREATE TABLE wallets (id INT PRIMARY KEY, owner VARCHAR(20) NOT NULL, balance DECIMAL(12,2) NOT NULL DEFAULT 0.00);
INSERT INTO wallets VALUES (1, 'ann', 100.00), (2, 'bob', 50.00);
START TRANSACTION;
UPDATE wallets SET balance = balance - 30.00 WHERE id = 1;
UPDATE wallets SET balance = balance + 30.00 WHERE id = 2;
COMMIT;
SELECT id, balance FROM wallets ORDER BY id;
BEGIN;
UPDATE wallets SET balance = balance - 500.00 WHERE id = 1 AND balance >= 500.00;
SELECT ROW_COUNT();
ROLLBACK;
SELECT SUM(balance) FROM wallets;
START TRANSACTION;
INSERT INTO wallets VALUES (3, 'cy', 10.00);
INSERT INTO wallets VALUES (3, 'cy again', 10.00);
SELECT COUNT(*) FROM wallets;
COMMIT;
SELECT id, owner FROM wallets ORDER BY id;

-- script: ALTER TABLE MODIFY and CHANGE COLUMN
CREATE TABLE items (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(10) NOT NULL, qty INT, price DECIMAL(6,2), UNIQUE KEY by_name (name), KEY by_qty (qty)) AUTO_INCREMENT = 5;
INSERT INTO items (name, qty, price) VALUES ('apple', 3, 1.25), ('pear', NULL, 2.5);
ALTER TABLE items MODIFY qty BIGINT DEFAULT 7;
INSERT INTO items (name) VALUES ('plum');
SELECT * FROM items ORDER BY id;
ALTER TABLE items CHANGE COLUMN name title VARCHAR(20) NOT NULL;
SELECT id, title FROM items ORDER BY title;
INSERT INTO items (title) VALUES ('apple');
INSERT INTO items (title, qty) VALUES ('kiwi', 1);
SELECT id, title, qty FROM items ORDER BY id;
ALTER TABLE items MODIFY price DECIMAL(8,3) AFTER id;
SELECT * FROM items ORDER BY id;
ALTER TABLE items MODIFY COLUMN price INT FIRST;
SELECT * FROM items ORDER BY id;
ALTER TABLE items CHANGE qty amount VARCHAR(5) COLLATE utf8mb4_bin;
SELECT id, amount FROM items WHERE amount = '7' ORDER BY id;
SELECT id FROM items WHERE qty = 1;
ALTER TABLE items MODIFY nothere INT;
ALTER TABLE items CHANGE title amount INT;
CREATE TABLE stamped (id INT PRIMARY KEY, n INT, at DATETIME DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP);
INSERT INTO stamped (id, n, at) VALUES (1, 1, '2001-01-01 00:00:00');
ALTER TABLE stamped MODIFY n BIGINT NOT NULL;
UPDATE stamped SET n = 2;
SELECT COUNT(*) FROM stamped WHERE at > '2001-01-01 00:00:00';
ALTER TABLE stamped MODIFY n INT NOT NULL DEFAULT 5;
INSERT INTO stamped (id) VALUES (2);
SELECT id, n FROM stamped ORDER BY id;

-- script: CHECK constraints on rows that satisfy them
CREATE TABLE accounts (id INT PRIMARY KEY, balance DECIMAL(10,2) CHECK (balance >= 0), kind VARCHAR(10), CONSTRAINT kind_known CHECK (kind IN ('a', 'b') OR kind IS NULL), lo INT, hi INT, CHECK (lo <= hi));
INSERT INTO accounts VALUES (1, 10.50, 'a', 1, 2), (2, 0, 'B', NULL, 5), (3, NULL, NULL, 3, 3);
UPDATE accounts SET balance = balance + 1 WHERE id = 1;
UPDATE accounts SET hi = NULL;
SELECT id, balance, kind, lo, hi FROM accounts ORDER BY id;

-- script: CHECK constraints refuse rows, named as MariaDB names them
CREATE TABLE ck (id INT PRIMARY KEY, a INT CHECK (a > 0), b INT, c INT, j JSON, CHECK (b > a), CONSTRAINT small_c CHECK (c < 100), CHECK (b < 100));
INSERT INTO ck VALUES (1, 1, 2, 3, '{}');
INSERT INTO ck VALUES (2, -1, -2, 3, '{}');
INSERT INTO ck VALUES (3, 5, 1, 3, '{}');
INSERT INTO ck VALUES (4, 1, 200, 3, '{}');
INSERT INTO ck VALUES (5, 1, 2, 300, '{}');
INSERT INTO ck VALUES (6, 1, 2, 3, 'not json');
UPDATE ck SET a = 0 WHERE id = 1;
UPDATE ck SET c = NULL, b = 50;
SELECT id, a, b, c, j FROM ck ORDER BY id;
SELECT CONSTRAINT_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'ck' ORDER BY CONSTRAINT_NAME;

-- script: information_schema orders names as utf8mb3_general_ci does
CREATE TABLE names_order (ab INT, a_b INT, `A_c` INT, aa INT, b INT);
SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'names_order' ORDER BY COLUMN_NAME;
SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'names_order' AND COLUMN_NAME = 'A_B';

-- script: ENUM columns
CREATE TABLE tickets2 (id INT PRIMARY KEY, status ENUM('open', 'in progress', 'closed') NOT NULL DEFAULT 'open', prio ENUM('low', 'high'), kind ENUM('b', 'a') NOT NULL);
INSERT INTO tickets2 (id, status, prio, kind) VALUES (1, 'closed', 'high', 'a'), (2, 'OPEN', NULL, 'b'), (3, 'in progress ', 'low', 'a');
INSERT INTO tickets2 (id, status, kind) VALUES (4, 2, 1);
INSERT INTO tickets2 (id, prio, kind) VALUES (5, '2', 'b');
INSERT INTO tickets2 (id, kind) VALUES (6, 'nope');
INSERT INTO tickets2 (id, kind) VALUES (7, 0);
INSERT INTO tickets2 (id, kind) VALUES (8, 3);
INSERT INTO tickets2 (id, kind) VALUES (9, '');
SELECT * FROM tickets2 ORDER BY id;
SELECT id, status FROM tickets2 ORDER BY status, id;
SELECT id, kind FROM tickets2 ORDER BY kind DESC, id;
SELECT id FROM tickets2 WHERE status = 'Closed' ORDER BY id;
SELECT id FROM tickets2 WHERE status IN ('open', 'closed') ORDER BY id;
SELECT id FROM tickets2 WHERE prio IS NULL ORDER BY id;
SELECT id FROM tickets2 WHERE status <> 'open' AND prio = 'low';
SELECT status, COUNT(*) FROM tickets2 GROUP BY status ORDER BY status;
SELECT t.status AS s FROM tickets2 AS t WHERE t.id = 3;
SELECT id FROM tickets2 WHERE status LIKE 'IN%' OR prio NOT LIKE '%o%' ORDER BY id;
UPDATE tickets2 SET status = 'closed' WHERE status = 'open';
SELECT id, status FROM tickets2 ORDER BY id;
UPDATE tickets2 SET prio = 'medium' WHERE id = 1;
INSERT INTO tickets2 (id, kind) VALUES (10, 'a') ON DUPLICATE KEY UPDATE kind = 'b';
INSERT INTO tickets2 (id, kind) VALUES (1, 'a') ON DUPLICATE KEY UPDATE kind = VALUES(kind);
SELECT id, kind FROM tickets2 WHERE id IN (1, 10) ORDER BY id;
INSERT IGNORE INTO tickets2 (id, kind) VALUES (11, 'zzz');
SELECT id, kind FROM tickets2 WHERE id = 11;
INSERT INTO tickets2 (id) VALUES (12);
SELECT id, kind FROM tickets2 WHERE id = 12;

-- script: TIME columns
CREATE TABLE shifts (id INT PRIMARY KEY, starts TIME NOT NULL, ends TIME);
INSERT INTO shifts VALUES (1, '09:00:00', '17:30:00'), (2, '8:05', NULL), (3, 220000, '23:59:59');
INSERT INTO shifts VALUES (4, '1 02:03:04', '12:00:00.000'), (5, '2024-01-02 07:08:09', '000102');
INSERT INTO shifts VALUES (6, '25:61:00', NULL);
INSERT INTO shifts VALUES (7, 'noon', NULL);
INSERT INTO shifts VALUES (8, '10:70', NULL);
SELECT * FROM shifts ORDER BY id;
SELECT id FROM shifts ORDER BY starts, id;
SELECT id FROM shifts WHERE ends IS NULL ORDER BY id;
SELECT id FROM shifts WHERE starts < ends ORDER BY id;
SELECT id FROM shifts WHERE starts LIKE '0_:%' ORDER BY id;
UPDATE shifts SET ends = '18:00' WHERE id = 2;
SELECT ends FROM shifts WHERE id = 2;
INSERT IGNORE INTO shifts VALUES (9, 'bad', NULL);
SELECT starts FROM shifts WHERE id = 9;

-- script: DEFAULT as an inserted value
CREATE TABLE defaults_t (id INT AUTO_INCREMENT PRIMARY KEY, n INT NOT NULL DEFAULT 7, s VARCHAR(5) DEFAULT 'x', d DECIMAL(5,2) DEFAULT 1.5, free INT, must INT NOT NULL);
INSERT INTO defaults_t VALUES (DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, 1);
INSERT INTO defaults_t (n, s, must) VALUES (DEFAULT, 'y', 2), (3, DEFAULT, 3);
INSERT INTO defaults_t (must) VALUES (DEFAULT);
INSERT IGNORE INTO defaults_t (must) VALUES (DEFAULT);
SELECT * FROM defaults_t ORDER BY id;
UPDATE defaults_t SET n = DEFAULT, s = DEFAULT WHERE id = 3;
UPDATE defaults_t SET free = 5 WHERE id = 1;
UPDATE defaults_t SET free = DEFAULT WHERE id = 1;
UPDATE defaults_t SET must = DEFAULT WHERE id = 1;
SELECT * FROM defaults_t ORDER BY id;

-- script: SET columns
CREATE TABLE perms (id INT PRIMARY KEY, p SET('read', 'write', 'admin') NOT NULL, tags SET('x', 'y') DEFAULT 'y,x');
INSERT INTO perms (id, p) VALUES (1, 'write,read'), (2, 'ADMIN'), (3, ''), (4, 'read,read,write');
INSERT INTO perms (id, p, tags) VALUES (5, 5, NULL), (6, 7, 'x');
INSERT INTO perms (id, p) VALUES (7, 'read,delete');
INSERT INTO perms (id, p) VALUES (8, 8);
INSERT INTO perms (id) VALUES (9);
SELECT * FROM perms ORDER BY id;
SELECT id, p FROM perms ORDER BY p, id;
SELECT id FROM perms WHERE p = 'read,write' ORDER BY id;
SELECT id FROM perms WHERE FIND_IN_SET('admin', p) > 0 ORDER BY id;
SELECT id FROM perms WHERE p LIKE '%write%' ORDER BY id;
SELECT p, COUNT(*) FROM perms GROUP BY p ORDER BY p;
UPDATE perms SET p = 'admin,read' WHERE id = 3;
SELECT p FROM perms WHERE id = 3;
INSERT IGNORE INTO perms (id, p) VALUES (10, 'read,bogus');
SELECT p FROM perms WHERE id = 10;

-- script: ALTER TABLE with several changes
CREATE TABLE profiles (id INT PRIMARY KEY, name VARCHAR(10), age INT);
INSERT INTO profiles VALUES (1, 'ann', 30), (2, 'bob', NULL);
ALTER TABLE profiles ADD COLUMN city VARCHAR(20) NOT NULL DEFAULT 'x', ADD COLUMN zip INT, ADD INDEX by_city (city);
SELECT * FROM profiles ORDER BY id;
ALTER TABLE profiles ADD UNIQUE KEY by_name (name), DROP COLUMN zip, RENAME COLUMN city TO town;
INSERT INTO profiles (id, name) VALUES (3, 'ann');
ALTER TABLE profiles MODIFY age BIGINT NOT NULL DEFAULT 0, DROP INDEX by_city;
UPDATE profiles SET age = 0 WHERE age IS NULL;
ALTER TABLE profiles MODIFY age BIGINT NOT NULL DEFAULT 0, DROP INDEX by_city;
ALTER TABLE profiles MODIFY age INT, ADD COLUMN note TEXT;
SELECT * FROM profiles ORDER BY id;
INSERT INTO profiles (id, name) VALUES (4, 'cy');
SELECT id, age, town, note FROM profiles ORDER BY id;
ALTER TABLE profiles ADD COLUMN a INT, ADD COLUMN a INT;
ALTER TABLE profiles ADD COLUMN first_one INT FIRST;
ALTER TABLE profiles ADD COLUMN after_name VARCHAR(5) NOT NULL AFTER name, ADD COLUMN d INT DEFAULT 3 AFTER id;
SELECT * FROM profiles ORDER BY id;
INSERT INTO profiles (id, name) VALUES (5, 'dee');
SELECT * FROM profiles ORDER BY id;
ALTER TABLE profiles ADD COLUMN x INT AFTER nothere;

-- script: strings read as TIME values
SELECT HOUR('10:30:45'), MINUTE('10:30:45'), SECOND('10:30:45'), MICROSECOND('10:30:45.25');
SELECT HOUR('2024-01-02 10:30:45'), HOUR(103045), HOUR('103045'), HOUR('1030'), MINUTE('1030');
SELECT HOUR('100:00:00'), HOUR('-05:00:00'), HOUR('1 10:00:00'), HOUR('abc'), HOUR('10:75:00');
SELECT HOUR('2024-01-02'), HOUR(''), HOUR(NULL), HOUR('10:30');
SELECT TIME_TO_SEC('10:30:45'), SEC_TO_TIME(3661), TIME_TO_SEC('-01:00:00'), TIME_TO_SEC('2024-01-02 01:00:00');
SELECT TIME('2024-01-02 10:30:45'), TIME('10:30:45.123'), TIME('10:30'), TIME(103045), TIME('abc');
SELECT TIMEDIFF('10:00:00', '09:30:00'), TIMEDIFF('2024-01-02 10:00:00', '2024-01-01 09:00:00'), TIMEDIFF('10:00:00', '2024-01-01 09:00:00');
SELECT MAKETIME(10, 30, 15), MAKETIME(10, 60, 0), SEC_TO_TIME(0), SEC_TO_TIME(86399);
SELECT CAST('10:11:12' AS TIME), CAST('2024-01-02 10:11:12' AS TIME), CAST(101112 AS TIME);

-- script: week numbers in every mode
SELECT DATE_FORMAT('2024-03-05 07:08:09', '%Y-%m-%d %H:%i:%s %W %M %j %a %b %e %c %p %r %T %y %D %U %u %w');
SELECT DATE_FORMAT('2024-01-01', '%U %u %V %v %X %x'), DATE_FORMAT('2023-01-01', '%U %u %V %v %X %x'), DATE_FORMAT('2021-01-03', '%U %u %V %v %X %x');
SELECT DATE_FORMAT('2020-12-31', '%U %u %V %v %X %x'), DATE_FORMAT('2019-12-30', '%U %u %V %v %X %x'), DATE_FORMAT('2027-01-01', '%U %u %V %v %X %x');
SELECT WEEK('2024-05-06'), WEEK('2024-05-06', 1), YEARWEEK('2024-05-06'), WEEKOFYEAR('2024-05-06');
SELECT WEEK('2021-01-01', 0), WEEK('2021-01-01', 1), WEEK('2021-01-01', 2), WEEK('2021-01-01', 3), WEEK('2021-01-01', 4), WEEK('2021-01-01', 5), WEEK('2021-01-01', 6), WEEK('2021-01-01', 7);
SELECT WEEK('2019-12-31', 0), WEEK('2019-12-31', 1), WEEK('2019-12-31', 2), WEEK('2019-12-31', 3), WEEK('2019-12-31', 4), WEEK('2019-12-31', 5), WEEK('2019-12-31', 6), WEEK('2019-12-31', 7);
SELECT YEARWEEK('2021-01-01'), YEARWEEK('2021-01-01', 1), YEARWEEK('2019-12-31', 3), WEEKOFYEAR('2021-01-03'), WEEKOFYEAR('2020-12-31');
SELECT FROM_UNIXTIME(0), FROM_UNIXTIME(1700000000, '%Y'), FROM_UNIXTIME(1700000000, '%Y-%m-%d %H');

-- script: digests, encodings, identifiers and trigonometry
SELECT MD5('abc'), SHA1('abc'), SHA('abc'), CRC32('abc'), MD5(NULL), MD5(123);
SELECT SHA2('abc', 256), SHA2('abc', 224), SHA2('abc', 0), SHA2('abc', 384), SHA2('abc', 512), SHA2('abc', 100);
SELECT TO_BASE64('abc'), FROM_BASE64('YWJj'), TO_BASE64(REPEAT('x', 100)), FROM_BASE64('!!'), FROM_BASE64(TO_BASE64(REPEAT('ab', 60))) = REPEAT('ab', 60);
SELECT LENGTH(UUID()), UUID() = UUID(), SUBSTRING(UUID(), 15, 1), SUBSTRING(UUID(), 9, 1);
SELECT INET_ATON('10.0.5.9'), INET_ATON('127.1'), INET_ATON('1.2.3'), INET_ATON('256.1.1.1'), INET_ATON('1.2.3.'), INET_ATON(''), INET_NTOA(167773449), INET_NTOA(-1), INET_NTOA(4294967296);
SELECT QUOTE('a''b'), QUOTE('a\\b'), QUOTE(NULL), QUOTE(12);
SELECT CHAR(65, 66), CHAR(65, NULL, 67), HEX(CHAR(256)), HEX(CHAR(0)), ORD('a'), ORD('é'), ORD(''), ORD(NULL);
SELECT BIN(5), OCT(8), BIN(-1), BIN(NULL), BIT_COUNT(255), BIT_COUNT(-1), BIT_LENGTH('ab'), BIT_LENGTH('é');
SELECT SIN(0), COS(0), TAN(0), ASIN(1), ACOS(1), ATAN(1), ATAN(1, 2), ATAN2(1, 2), COT(1), DEGREES(1), RADIANS(180);
SELECT ASIN(2), ACOS(-2), SIN(NULL);
SELECT COT(0);
SELECT CONVERT('12', SIGNED), CONVERT('12.5', DECIMAL(5,2)), CONVERT(12, CHAR), CONVERT('2024-01-02', DATE);
SELECT LENGTH(UTC_TIMESTAMP()), LENGTH(UTC_DATE()), SYSDATE() = NOW(), LOCALTIME = NOW(), LOCALTIMESTAMP() = NOW();
SELECT RAND() < 1, RAND() >= 0, RAND() = RAND();
SELECT DATE_ADD('2024-01-01', INTERVAL 1 QUARTER), DATE_ADD('2024-01-01', INTERVAL 2 WEEK);

-- script: a shop: users and orders, strict writes, joins and aggregates
CREATE TABLE users (id INT UNSIGNED NOT NULL AUTO_INCREMENT, email VARCHAR(100) NOT NULL, name VARCHAR(50), age TINYINT UNSIGNED, balance DECIMAL(12,2) NOT NULL DEFAULT 0.00, active TINYINT(1) NOT NULL DEFAULT 1, PRIMARY KEY (id), UNIQUE KEY uk_email (email), KEY idx_name (name)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
CREATE TABLE orders (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, user_id INT UNSIGNED NOT NULL, total DECIMAL(10,2) NOT NULL, status ENUM('new','paid','shipped') NOT NULL DEFAULT 'new', note TEXT, placed DATE NOT NULL, CONSTRAINT fk_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE);
INSERT INTO users (email, name, age, balance) VALUES ('a@x.com', 'Alice', 30, 100.50), ('b@x.com', 'bob', 25, 0), ('c@x.com', NULL, NULL, 12.345);
INSERT INTO orders (user_id, total, status, placed) VALUES (1, 10.00, 'paid', '2024-01-05'), (1, 25.50, 'new', '2024-02-10'), (2, 7.25, 'shipped', '2024-02-11'), (3, 100, 'paid', '2024-03-01');
SELECT u.name, COUNT(o.id) AS n, SUM(o.total) AS s, AVG(o.total) FROM users u LEFT JOIN orders o ON o.user_id = u.id GROUP BY u.id, u.name ORDER BY u.id;
SELECT name FROM users ORDER BY name;
SELECT name FROM users ORDER BY name DESC;
SELECT * FROM users WHERE name LIKE 'a%';
SELECT status, COUNT(*) FROM orders GROUP BY status ORDER BY status;
SELECT status, COUNT(*) FROM orders GROUP BY status ORDER BY COUNT(*) DESC, status;
SELECT user_id, SUM(total) s FROM orders GROUP BY user_id HAVING s > 20 ORDER BY s DESC;
SELECT * FROM orders WHERE placed BETWEEN '2024-02-01' AND '2024-02-29' ORDER BY id;
SELECT * FROM orders WHERE placed > '2024-2-1' ORDER BY id;
SELECT id, total * 1.1, total / 3, ROUND(total / 3, 2), total DIV 3 FROM orders ORDER BY id;
SELECT MAX(total), MIN(placed) FROM orders;
SELECT DISTINCT user_id FROM orders ORDER BY user_id DESC LIMIT 1, 2;
SELECT * FROM users WHERE id IN (SELECT user_id FROM orders WHERE total > 20) ORDER BY id;
SELECT u.email FROM users u WHERE EXISTS (SELECT 1 FROM orders o WHERE o.user_id = u.id AND o.status = 'PAID') ORDER BY 1;
SELECT name, age, age + 1, age - 31 FROM users ORDER BY id;
UPDATE users SET age = age - 31 WHERE id = 1;
UPDATE users SET balance = balance + 0.005 WHERE id = 2;
SELECT balance FROM users ORDER BY id;
UPDATE orders SET status = 'unknown' WHERE id = 1;
INSERT INTO users (email) VALUES ('A@X.COM');
INSERT INTO users (email, age) VALUES ('d@x.com', 300);
INSERT INTO users (email, age) VALUES ('d@x.com', -1);
INSERT INTO users (email, name) VALUES ('e@x.com', REPEAT('n', 60));
SELECT LAST_INSERT_ID();
DELETE FROM users WHERE id = 1;
SELECT COUNT(*) FROM orders;
SELECT id, email, active FROM users ORDER BY id;
SELECT CONCAT(name, ' <', email, '>') FROM users ORDER BY id;
SELECT IFNULL(name, 'anon'), COALESCE(age, 0) FROM users ORDER BY id;
SELECT name, CASE WHEN age IS NULL THEN 'unknown' WHEN age < 30 THEN 'young' ELSE 'old' END FROM users ORDER BY id;
SELECT * FROM users ORDER BY age;
SELECT * FROM users ORDER BY age DESC;
SELECT GROUP_CONCAT(id) FROM orders;
SELECT u.id, o.id FROM users u JOIN orders o USING (id) ORDER BY 1;
SELECT id FROM orders UNION SELECT user_id FROM orders ORDER BY 1;
SELECT id FROM orders UNION ALL SELECT user_id FROM orders ORDER BY 1 LIMIT 3;
SELECT COUNT(*), COUNT(DISTINCT user_id), SUM(DISTINCT user_id) FROM orders;
SELECT YEAR(placed), MONTH(placed), COUNT(*) FROM orders GROUP BY YEAR(placed), MONTH(placed) ORDER BY 1, 2;
SELECT DATE_FORMAT(placed, '%Y-%m') m, SUM(total) FROM orders GROUP BY m ORDER BY m;
SELECT * FROM orders WHERE note IS NULL AND total >= 25.5 ORDER BY id;
SELECT total FROM orders WHERE total = '25.5';
SELECT total FROM orders WHERE total = 25.50 AND user_id = '2abc';
SELECT id FROM users WHERE email = 'b@x.com ';
SELECT 'x' FROM users WHERE name = 'BOB';
TRUNCATE TABLE orders;
SELECT COUNT(*) FROM orders;

-- script: a blog: posts, upserts, REPLACE, counts and ALTER
CREATE TABLE posts (id INT PRIMARY KEY AUTO_INCREMENT, title VARCHAR(200) NOT NULL, body LONGTEXT, views INT DEFAULT 0, score FLOAT, rating DOUBLE, published TIMESTAMP NULL DEFAULT NULL, slug VARCHAR(64) UNIQUE);
INSERT INTO posts (title, body, score, rating, slug) VALUES ('Hello', 'World', 1.5, 2.25, 'hello'), ('Second', NULL, NULL, 0.1, 'second'), ('third', 'x', 3.14159, 1e10, NULL);
SELECT id, score, rating, score * 2, rating / 3 FROM posts ORDER BY id;
SELECT SUM(score), AVG(rating), MAX(score) FROM posts;
UPDATE posts SET views = views + 1 WHERE slug = 'hello';
SELECT views FROM posts WHERE id = 1;
INSERT INTO posts (title, slug) VALUES ('dup', 'hello');
INSERT INTO posts (title, slug) VALUES ('dup', 'hello') ON DUPLICATE KEY UPDATE views = views + 10;
SELECT id, views FROM posts ORDER BY id;
REPLACE INTO posts (id, title, slug) VALUES (2, 'Second v2', 'second');
SELECT id, title, views FROM posts ORDER BY id;
SELECT title FROM posts WHERE published IS NULL ORDER BY title;
UPDATE posts SET published = '2024-05-01 12:00:00' WHERE id = 1;
SELECT published, published + INTERVAL 1 HOUR FROM posts WHERE id = 1;
SELECT COUNT(*) FROM posts WHERE published > NOW() - INTERVAL 100 YEAR;
SELECT title, LENGTH(body), CHAR_LENGTH(title) FROM posts ORDER BY id LIMIT 2 OFFSET 1;
SELECT * FROM posts WHERE title LIKE '%e%' ORDER BY views DESC, id ASC;
SELECT SQL_CALC_FOUND_ROWS id FROM posts ORDER BY id LIMIT 1;
SELECT FOUND_ROWS();
DELETE FROM posts ORDER BY id DESC LIMIT 1;
SELECT ROW_COUNT();
SELECT id FROM posts ORDER BY id;
ALTER TABLE posts ADD COLUMN author VARCHAR(50) NOT NULL DEFAULT 'anon' AFTER title;
SELECT id, author FROM posts ORDER BY id;
ALTER TABLE posts DROP COLUMN rating, ADD INDEX idx_views (views);

-- script: CREATE TABLE … LIKE
CREATE TABLE src (id INT AUTO_INCREMENT PRIMARY KEY, code VARCHAR(10) NOT NULL UNIQUE, qty INT DEFAULT 5, updated TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, KEY k_qty (qty)) AUTO_INCREMENT = 100;
INSERT INTO src (code) VALUES ('a'), ('b');
CREATE TABLE cp LIKE src;
SELECT COUNT(*) FROM cp;
INSERT INTO cp (code) VALUES ('x'), ('y');
SELECT id, code, qty FROM cp ORDER BY id;
INSERT INTO cp (code) VALUES ('x');
CREATE TABLE cp LIKE src;
CREATE TABLE IF NOT EXISTS cp LIKE src;
CREATE TABLE cp2 LIKE nothere;
CREATE TABLE parent (id INT PRIMARY KEY);
CREATE TABLE child (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES parent (id));
CREATE TABLE child2 LIKE child;
INSERT INTO child2 VALUES (1, 42);
SELECT * FROM child2;
INSERT INTO child VALUES (1, 42);

-- script: CREATE TABLE … AS SELECT
CREATE TABLE src (id INT AUTO_INCREMENT PRIMARY KEY, code VARCHAR(10) NOT NULL, qty INT DEFAULT 5, price DECIMAL(8,2) NOT NULL, note TEXT, d DATE);
INSERT INTO src (code, price, note, d) VALUES ('a', 1.5, 'x', '2024-01-01'), ('b', 2, NULL, NULL), ('c', 3.25, 'z', '2024-02-02');
CREATE TABLE cp AS SELECT * FROM src WHERE qty = 5;
SELECT * FROM cp ORDER BY id;
INSERT INTO cp (note) VALUES ('no id');
SELECT id, code, qty, price, note FROM cp ORDER BY id;
CREATE TABLE cp2 SELECT id AS ident, code FROM src WHERE id > 1 ORDER BY id;
SELECT * FROM cp2 ORDER BY ident;
INSERT INTO cp2 (ident, code) VALUES (2, 'b');
SELECT COUNT(*) FROM cp2;
CREATE TABLE cp AS SELECT * FROM src;
CREATE TABLE IF NOT EXISTS cp AS SELECT * FROM src;
SELECT COUNT(*) FROM cp;
CREATE TABLE cp3 AS SELECT code, code FROM src;
CREATE TABLE cp5 ENGINE=InnoDB AS SELECT code FROM src;
SELECT * FROM cp5 ORDER BY code;

-- script: exact sums over windows
CREATE TABLE emp (id INT PRIMARY KEY, name VARCHAR(30), dept VARCHAR(10), salary DECIMAL(10,2));
INSERT INTO emp VALUES (1, 'Ann', 'eng', 5000, ), (2, 'Ben', 'eng', 4000), (3, 'Cid', 'ops', 3000), (4, 'Dee', 'ops', 3500.5), (5, 'Eve', 'hr', NULL);
INSERT INTO emp VALUES (1, 'Ann', 'eng', 5000), (2, 'Ben', 'eng', 4000), (3, 'Cid', 'ops', 3000), (4, 'Dee', 'ops', 3500.5), (5, 'Eve', 'hr', NULL);
SELECT name, SUM(salary) OVER (PARTITION BY dept) FROM emp ORDER BY id;
SELECT name, SUM(salary) OVER (ORDER BY id), AVG(salary) OVER (ORDER BY id) FROM emp ORDER BY id;
SELECT name, AVG(salary) OVER (PARTITION BY dept ORDER BY salary) FROM emp ORDER BY id;
SELECT name, SUM(id) OVER (), COUNT(salary) OVER (PARTITION BY dept) FROM emp ORDER BY id;
SELECT dept, SUM(salary), AVG(salary) FROM emp GROUP BY dept ORDER BY dept;

-- script: window functions that read another row of the window
CREATE TABLE ev (id INT PRIMARY KEY, grp VARCHAR(5), name VARCHAR(10), amount DECIMAL(8,2), at DATETIME, n INT UNSIGNED);
INSERT INTO ev VALUES (1, 'a', 'bob', 10.5, '2024-01-02 03:04:05', 7), (2, 'b', 'Amy', NULL, NULL, 0), (3, 'a', 'cat', 2.25, '2024-02-01 00:00:00', 4294967295), (4, 'b', 'Dan', 99.99, '2023-12-31 23:59:59', 1), (5, 'a', 'eve', 10.5, '2024-03-03 03:03:03', NULL);
SELECT id, LAG(amount) OVER (ORDER BY id), LEAD(amount, 2) OVER (ORDER BY id) FROM ev ORDER BY id;
SELECT id, LAG(name, 1) OVER (PARTITION BY grp ORDER BY id), LEAD(at) OVER (PARTITION BY grp ORDER BY id) FROM ev ORDER BY id;
SELECT id, FIRST_VALUE(name) OVER (PARTITION BY grp ORDER BY id), LAST_VALUE(amount) OVER (PARTITION BY grp ORDER BY amount) FROM ev ORDER BY id;
SELECT id, NTH_VALUE(name, 2) OVER (ORDER BY id), NTILE(3) OVER (ORDER BY id) FROM ev ORDER BY id;
SELECT id, NTILE(2) OVER (PARTITION BY grp ORDER BY amount DESC, id) FROM ev ORDER BY id;
SELECT id, LAG(n, 0) OVER (ORDER BY id), LAG(id * 2) OVER (ORDER BY id) + 1, LEAD(n) OVER (ORDER BY id) FROM ev ORDER BY id;
SELECT id, LAG(name) OVER (ORDER BY name), LEAD(grp, 1) OVER (PARTITION BY grp ORDER BY name DESC) FROM ev ORDER BY id;
SELECT name FROM ev WHERE id > 1 ORDER BY LAG(id) OVER (ORDER BY id) DESC;

-- script: recursive common table expressions
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000) SELECT count(*), sum(i), max(i) FROM c;
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i * 2 FROM c WHERE i < 1000000000000) SELECT max(i), count(*) FROM c;
WITH RECURSIVE c(i) AS (SELECT -1 UNION ALL SELECT i * 2 FROM c WHERE i > -10000000000) SELECT min(i), count(*) FROM c;
WITH RECURSIVE c(i) AS (SELECT 1234567890 UNION ALL SELECT i * 2 FROM c WHERE i < 10000000000) SELECT max(i), count(*) FROM c;
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 0.5 FROM c WHERE i < 3) SELECT i FROM c;
WITH RECURSIVE c(i, s) AS (SELECT 1, 'a' UNION ALL SELECT i + 1, concat(s, 'a') FROM c WHERE i < 3) SELECT i, s FROM c;
WITH RECURSIVE c(i, s) AS (SELECT 1, 'abc' UNION ALL SELECT i + 1, upper(s) FROM c WHERE i < 3) SELECT i, s FROM c;
WITH RECURSIVE c(i) AS (SELECT 1 UNION SELECT i FROM c) SELECT i FROM c;
WITH RECURSIVE c(n, f) AS (SELECT 1, 1e0 UNION ALL SELECT n + 1, f * 1.5 FROM c WHERE n < 5) SELECT n, f FROM c;
CREATE TABLE tree (id INT PRIMARY KEY, parent INT, name VARCHAR(10));
INSERT INTO tree VALUES (1, NULL, 'root'), (2, 1, 'a'), (3, 1, 'b'), (4, 2, 'aa'), (5, 4, 'aaa');
WITH RECURSIVE sub AS (SELECT id, name FROM tree WHERE id = 2 UNION ALL SELECT t.id, t.name FROM tree t JOIN sub ON t.parent = sub.id) SELECT id, name FROM sub ORDER BY id;
WITH RECURSIVE path (id, depth) AS (SELECT id, 0 FROM tree WHERE parent IS NULL UNION ALL SELECT t.id, p.depth + 1 FROM tree t JOIN path p ON t.parent = p.id) SELECT id, depth FROM path ORDER BY id;
WITH RECURSIVE up (id, parent, name) AS (SELECT * FROM tree WHERE id = 5 UNION ALL SELECT t.* FROM tree t JOIN up ON t.id = up.parent) SELECT name FROM up;
INSERT INTO tree (id, parent, name) WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < 12) SELECT i, 5, 'gen' FROM n;
SELECT count(*) FROM tree WHERE name = 'gen';
WITH RECURSIVE plain AS (SELECT 1 AS x UNION ALL SELECT 'abc') SELECT x FROM plain;

-- script: a primary key column without a default
CREATE TABLE keyed (id INTEGER PRIMARY KEY, v INTEGER);
INSERT INTO keyed (v) VALUES (10), (20), (30);
INSERT INTO keyed VALUES (NULL, 5);
INSERT INTO keyed VALUES (1, 5);
INSERT IGNORE INTO keyed (v) VALUES (7);
SELECT * FROM keyed;
CREATE TABLE named (code VARCHAR(5), n INT, PRIMARY KEY (code));
INSERT INTO named (n) VALUES (1);
INSERT INTO named VALUES ('a', 1);
ALTER TABLE keyed MODIFY id BIGINT;
INSERT INTO keyed (v) VALUES (8);
SELECT * FROM keyed;

-- script: row comparisons
SELECT (1, 2) = (1, 2), (1, 2) = (1, 3), (1, NULL) = (1, 2), (1, NULL) = (2, 2), (1, 2) <> (1, 3), (1, NULL) <> (1, 2);
SELECT (1, 2) < (1, 3), (1, 2) < (2, 0), (2, 0) < (1, 9), (1, NULL) < (1, 2), (1, NULL) < (2, 2), (NULL, 1) < (1, 2);
SELECT (1, 2) <= (1, 2), (1, 2) >= (1, 3), (1, 2, 3) > (1, 2, 2), (1, 'a') = (1, 'A'), ('b', 1) > ('A', 2);
SELECT (1, NULL) <=> (1, NULL), (1, 2) <=> (1, NULL);
SELECT (1, 2) = (1, 2, 3);
CREATE TABLE pairs (a INT, b VARCHAR(5), c DECIMAL(5,2));
INSERT INTO pairs VALUES (1, 'x', 1.50), (1, 'y', 2.00), (2, 'a', 0.25), (2, NULL, 3.00), (3, 'b', NULL);
SELECT a, b FROM pairs WHERE (a, b) > (1, 'X') ORDER BY a, b;
SELECT a, c FROM pairs WHERE (a, c) <= (2, 0.25) ORDER BY a, c;
SELECT count(*) FROM pairs WHERE (a, b) = (2, NULL);

-- script: SUM(DISTINCT …)
CREATE TABLE amounts (g INT, n INT, f DOUBLE, d DECIMAL(6,2));
INSERT INTO amounts VALUES (1, 5, 0.5, 1.10), (1, 5, 0.5, 1.10), (1, 7, 1.25, 2.00), (2, NULL, NULL, NULL), (2, 3, 0.1, 0.30), (2, 3, 0.2, 0.30);
SELECT SUM(DISTINCT n), SUM(n), SUM(DISTINCT f) FROM amounts;
SELECT g, SUM(DISTINCT n), SUM(DISTINCT f) FROM amounts GROUP BY g ORDER BY g;
SELECT SUM(DISTINCT n) FROM amounts WHERE n > 100;
SELECT SUM(DISTINCT d) FROM amounts;
SELECT g, SUM(DISTINCT d), AVG(DISTINCT d), AVG(DISTINCT n), AVG(DISTINCT f) FROM amounts GROUP BY g ORDER BY g;
SELECT SUM(DISTINCT d * 2), AVG(DISTINCT d / 3), SUM(DISTINCT n / 2), AVG(DISTINCT n + 0.5) FROM amounts;
SELECT SUM(DISTINCT d), AVG(DISTINCT d) FROM amounts WHERE g > 5;

-- script: integers and decimals in one value
CREATE TABLE mix (id INT PRIMARY KEY, n INT, d DECIMAL(8,2));
INSERT INTO mix VALUES (1, 5, NULL), (2, NULL, -3.50), (3, -7, 0.25), (4, NULL, NULL), (5, 12, 100.00);
SELECT id, COALESCE(d, n) AS v FROM mix ORDER BY v, id;
SELECT id, IFNULL(d, 0) AS v FROM mix ORDER BY v DESC, id;
SELECT id, IF(n > 0, n, d) AS v FROM mix ORDER BY v, id;
SELECT id, CASE WHEN d IS NULL THEN n ELSE d END AS v FROM mix ORDER BY 2, 1;
SELECT COALESCE(SUM(d), 0), COALESCE(MAX(n), 0.5), IFNULL(NULL, 3) + 0.25 FROM mix WHERE id > 100;
SELECT COALESCE(d, n) * 2, COALESCE(d, n) = 5, COALESCE(n, d) > 0.2 FROM mix ORDER BY id;
SELECT MAX(COALESCE(d, n)), MIN(COALESCE(d, n)), SUM(COALESCE(d, n)) FROM mix;
SELECT DISTINCT COALESCE(d, 0) AS v FROM mix ORDER BY v;

-- script: UNION of columns of different types
CREATE TABLE u (i INT, d DECIMAL(6,2), s VARCHAR(10), f DOUBLE, dt DATE);
INSERT INTO u VALUES (1, 1.50, 'b', 0.1, '2024-01-02'), (2, -3.25, 'A', 2.5, NULL), (NULL, 2.00, '10', 1e20, '2023-12-31');
SELECT i FROM u UNION SELECT d FROM u ORDER BY 1;
SELECT d FROM u UNION SELECT i FROM u ORDER BY 1 DESC;
SELECT i FROM u UNION ALL SELECT s FROM u ORDER BY 1;
SELECT s FROM u UNION SELECT i FROM u UNION SELECT 'a' ORDER BY 1;
SELECT i FROM u UNION SELECT '1' ORDER BY 1;
SELECT f FROM u UNION ALL SELECT i FROM u ORDER BY 1;
SELECT d FROM u UNION ALL SELECT f FROM u ORDER BY 1;
SELECT f FROM u UNION ALL SELECT s FROM u ORDER BY 1;
SELECT d FROM u UNION ALL SELECT s FROM u ORDER BY 1;
SELECT dt FROM u UNION SELECT s FROM u ORDER BY 1;
SELECT i, s FROM u UNION SELECT d, f FROM u ORDER BY 1, 2;
SELECT 1 AS v UNION ALL SELECT 2.5 UNION ALL SELECT 'abc';
SELECT x FROM (SELECT i AS x FROM u UNION SELECT d FROM u) AS t WHERE x > 1 ORDER BY x;
SELECT COUNT(*), SUM(x) FROM (SELECT i AS x FROM u UNION ALL SELECT d FROM u) AS t;
WITH c AS (SELECT i AS x FROM u UNION SELECT s FROM u) SELECT x FROM c ORDER BY x;

-- script: LAST_INSERT_ID(expr)
CREATE TABLE seq (name VARCHAR(10) PRIMARY KEY, n BIGINT UNSIGNED NOT NULL);
INSERT INTO seq VALUES ('a', 10), ('b', 20);
UPDATE seq SET n = LAST_INSERT_ID(n + 1) WHERE name = 'a';
SELECT LAST_INSERT_ID(), n FROM seq WHERE name = 'a';
SELECT LAST_INSERT_ID(7), LAST_INSERT_ID();
SELECT LAST_INSERT_ID(2.5), LAST_INSERT_ID('12abc'), LAST_INSERT_ID();
SELECT LAST_INSERT_ID(NULL), LAST_INSERT_ID();
UPDATE seq SET n = LAST_INSERT_ID(n * 2);
SELECT LAST_INSERT_ID(), SUM(n) FROM seq;

-- script: temporary tables
CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20));
INSERT INTO items VALUES (1, 'kept'), (2, 'also kept');
CREATE TEMPORARY TABLE items (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20), KEY name_key (name));
INSERT INTO items (name) VALUES ('scratch'), ('Scratch 2');
SELECT id, name FROM items ORDER BY name;
SELECT COUNT(*) FROM items WHERE name = 'SCRATCH';
UPDATE items SET name = 'changed' WHERE id = 1;
CREATE TEMPORARY TABLE items (id INT);
CREATE TEMPORARY TABLE IF NOT EXISTS items (id INT);
DROP TEMPORARY TABLE items;
SELECT id, name FROM items ORDER BY id;
DROP TEMPORARY TABLE items;
DROP TEMPORARY TABLE IF EXISTS items;
CREATE TEMPORARY TABLE copy LIKE items;
INSERT INTO copy SELECT * FROM items;
SELECT COUNT(*) FROM copy;
CREATE TEMPORARY TABLE picked AS SELECT id, name FROM items WHERE id = 2;
SELECT id, name FROM picked;
DROP TABLE picked, copy;
SELECT * FROM picked;

-- script: unsigned bigint columns
CREATE TABLE ub (id INT PRIMARY KEY, b BIGINT UNSIGNED);
INSERT INTO ub VALUES (1, 9223372036854775807), (2, 0);
INSERT INTO ub VALUES (3, -1);
INSERT INTO ub VALUES (4, 18446744073709551616);
SELECT id, b FROM ub ORDER BY b DESC;
INSERT INTO ub VALUES (5, 9223372036854775808);

-- script: storage engines
CREATE TABLE e1 (a INT) ENGINE=InnoDB;
CREATE TABLE e2 (a INT) ENGINE=MyISAM DEFAULT CHARSET=utf8mb4;
CREATE TABLE e3 (a INT) ENGINE=Bogus;
INSERT INTO e2 VALUES (1);
SELECT a FROM e2;
CREATE TABLE e4 (a INT) ENGINE=MEMORY;

-- script: time columns across their range
CREATE TABLE tm (id INT PRIMARY KEY, t TIME(6), u TIME);
INSERT INTO tm VALUES (1, '-05:00:00.25', '10:00:00'), (2, '838:59:59', '-838:59:59'), (3, '1 02:03:04.5', '12'), (4, '00:00:00', '-00:00:01');
SELECT id, t, u FROM tm ORDER BY t;
SELECT id FROM tm ORDER BY u DESC;
SELECT id FROM tm WHERE t > '-00:45:00' ORDER BY id;
SELECT id FROM tm WHERE u = '12' OR u < '-1:00';
INSERT INTO tm VALUES (5, '839:00:00', NULL);
INSERT INTO tm VALUES (6, '-839:00:00', NULL);
UPDATE tm SET u = '-100:00:00' WHERE id = 4;
SELECT u FROM tm WHERE id = 4;
CREATE TABLE tm7 (t TIME(7));
CREATE TABLE dt7 (d DATETIME(7));
SELECT MAX(t), MIN(t), MAX(u), MIN(u) FROM tm;

-- script: UPDATE of a view of a self-join
CREATE TABLE t (a INT, b INT);
INSERT INTO t VALUES (1, 1);
CREATE VIEW v AS SELECT x.a, y.b FROM t x JOIN t y ON x.a = y.a;
UPDATE v SET b = 3;
SELECT * FROM t;

-- script: writes through a view of an inner join change one of its tables
CREATE TABLE t (a INT PRIMARY KEY, b INT);
CREATE TABLE u (a INT PRIMARY KEY, c INT);
INSERT INTO t VALUES (1, 1), (2, 2);
INSERT INTO u VALUES (1, 10), (3, 30);
CREATE VIEW v AS SELECT t.a, t.b, u.c, t.b + u.c AS total FROM t JOIN u ON u.a = t.a;
UPDATE v SET b = 3;
UPDATE v SET c = 11 WHERE b = 3;
UPDATE v SET c = c + total WHERE a = 1;
UPDATE v SET b = 4, c = 12;
UPDATE v SET total = 1;
DELETE FROM v;
DELETE FROM v WHERE a = 1;
INSERT INTO v (a, b) VALUES (5, 5);
INSERT INTO v SET a = 8, b = 8;
INSERT INTO v (a, c) VALUES (6, 6);
INSERT INTO v (b, c) VALUES (6, 6);
INSERT INTO v VALUES (7, 7, 7, 7);
INSERT INTO v (total) VALUES (1);
SELECT * FROM t ORDER BY a;
SELECT * FROM u ORDER BY a;
SELECT * FROM v ORDER BY a;
CREATE VIEW w AS SELECT x.a AS id, b, c FROM t x JOIN u ON u.a = x.a WHERE c > 0;
UPDATE w SET b = 9 WHERE id = 1;
SELECT * FROM t ORDER BY a;
REPLACE INTO v (a, b) VALUES (1, 6);
INSERT INTO v (a, b) SELECT 9, 9;
INSERT IGNORE INTO v (a, b) VALUES (1, 7);
UPDATE v AS vv SET vv.b = 42 WHERE vv.a = 1;
UPDATE v SET v.c = v.c + 1;
SELECT * FROM t ORDER BY a;
SELECT * FROM u ORDER BY a;

-- script: a write through a view of a join with USING or of several FROM items is refused
CREATE TABLE t (a INT PRIMARY KEY, b INT);
CREATE TABLE u (a INT PRIMARY KEY, c INT);
INSERT INTO t VALUES (1, 1), (2, 2);
INSERT INTO u VALUES (1, 10), (3, 30);
CREATE VIEW w AS SELECT x.a AS id, b, c FROM t x JOIN u USING (a) WHERE c > 0;
UPDATE w SET b = 9 WHERE id = 1;
SELECT * FROM t ORDER BY a;
CREATE VIEW cross_v AS SELECT t.a, u.c FROM t, u WHERE u.a = t.a;
UPDATE cross_v SET c = 0;
SELECT * FROM u ORDER BY a;

-- script: DELETE from an aggregating view is refused
CREATE TABLE t (a INT, b INT);
INSERT INTO t VALUES (1, 1);
CREATE VIEW v AS SELECT a, COUNT(*) AS n FROM t GROUP BY a;
DELETE FROM v WHERE a = 1;

-- script: views MySQL cannot write through refuse UPDATE, DELETE, INSERT and REPLACE
CREATE TABLE t (a INT, b INT);
INSERT INTO t VALUES (1, 1), (2, 2);
CREATE VIEW grouped AS SELECT a, COUNT(*) AS n FROM t GROUP BY a;
UPDATE grouped SET a = 2;
DELETE FROM grouped WHERE nope = 1;
INSERT INTO grouped (a) VALUES (3);
INSERT INTO grouped VALUES (3, 4);
REPLACE INTO grouped (a) VALUES (3);
INSERT INTO grouped SET a = 1;
CREATE VIEW distinct_a AS SELECT DISTINCT a FROM t;
UPDATE distinct_a SET a = 1;
DELETE FROM distinct_a;
INSERT INTO distinct_a VALUES (1);
CREATE VIEW limited AS SELECT a FROM t LIMIT 1;
DELETE FROM limited;
UPDATE limited SET a = 5;
CREATE VIEW unioned AS SELECT a FROM t UNION SELECT b FROM t;
DELETE FROM unioned;
INSERT INTO unioned VALUES (1);
CREATE VIEW having_a AS SELECT a FROM t HAVING a > 0;
DELETE FROM having_a;
CREATE VIEW top AS SELECT MAX(a) AS m FROM t;
UPDATE top SET m = 1;
CREATE VIEW numbered AS SELECT a, ROW_NUMBER() OVER (ORDER BY a) AS r FROM t;
DELETE FROM numbered;
CREATE VIEW literal AS SELECT 1 AS one;
DELETE FROM literal;
UPDATE literal SET one = 2;
INSERT INTO literal VALUES (2);
CREATE VIEW over_grouped AS SELECT * FROM grouped;
DELETE FROM over_grouped;
INSERT INTO over_grouped (a) VALUES (1);
SELECT a, b FROM t ORDER BY a;

-- script: a write through a view with a subquery is refused
CREATE TABLE t (a INT, b INT);
INSERT INTO t VALUES (1, 1);
CREATE VIEW v AS SELECT a, b FROM t;
UPDATE v SET b = (SELECT 5);

-- script: SHOW CREATE VIEW is refused
CREATE TABLE t (a INT, b INT);
CREATE VIEW v AS SELECT a, b FROM t;
SHOW CREATE VIEW v;

-- script: a view's aggregate column is described
CREATE TABLE t (a INT, b INT);
CREATE VIEW totals AS SELECT a, SUM(b) AS s FROM t GROUP BY a;
DESCRIBE totals;

-- script: information_schema's columns are listed beside a view's aggregate column
CREATE TABLE t (a INT, b INT);
CREATE VIEW totals AS SELECT a, SUM(b) AS s FROM t GROUP BY a;
SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 't';
SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, DATA_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION;

-- script: a view's computed column that is not an aggregate of a column is not described
CREATE TABLE t (a INT, b INT);
CREATE VIEW v AS SELECT a, b + 1 AS c FROM t;
SELECT * FROM v;
DESCRIBE v;

-- script: views' aggregates of columns are described as MariaDB sizes them
CREATE TABLE t (a INT, b INT NOT NULL, ti TINYINT, si SMALLINT, bi BIGINT, u INT UNSIGNED, d DECIMAL(10,2), d0 DECIMAL(5,0), du DECIMAL(10,2) UNSIGNED, f FLOAT, db DOUBLE, mi MEDIUMINT, i3 INT(3), tu TINYINT UNSIGNED, mu MEDIUMINT UNSIGNED, bo BOOLEAN);
CREATE VIEW s AS SELECT SUM(a), SUM(b), SUM(ti), SUM(si), SUM(bi), SUM(u), SUM(d), SUM(d0), SUM(du), SUM(f), SUM(db), SUM(mi), SUM(i3), SUM(tu), SUM(mu), SUM(bo), SUM(DISTINCT a) FROM t;
DESCRIBE s;
CREATE VIEW c AS SELECT COUNT(*), COUNT(a), COUNT(DISTINCT a), COUNT(b) AS n FROM t;
DESCRIBE c;
CREATE VIEW av AS SELECT AVG(a), AVG(b), AVG(d), AVG(bi), AVG(ti), AVG(f), AVG(u), AVG(du), AVG(tu), AVG(mu) FROM t;
DESCRIBE av;
CREATE TABLE w (id INT NOT NULL PRIMARY KEY, v VARCHAR(10) NOT NULL DEFAULT 'x', ch CHAR(3), dt DATETIME, da DATE, ts TIMESTAMP NULL, tm TIME(3), tx TEXT, vb VARBINARY(5), y YEAR, bo BOOLEAN, vbin VARCHAR(10) COLLATE utf8mb4_bin);
CREATE VIEW m AS SELECT MAX(id), MIN(v), MAX(ch), MAX(dt), MIN(da), MAX(ts), MAX(tm), MAX(tx), MAX(vb), MAX(y), MAX(bo), MAX(vbin) FROM w;
SHOW FULL COLUMNS FROM m;
CREATE VIEW g AS SELECT w.v, COUNT(t.a) AS n, SUM(t.d) AS total, MAX(w.id) AS top FROM w LEFT JOIN t ON t.a = w.id GROUP BY w.v;
DESCRIBE g;
INSERT INTO t (a, b, d) VALUES (1, 2, 3.5), (1, 3, 4.25);
INSERT INTO w (id, v) VALUES (1, 'a'), (2, 'b');
SELECT * FROM g ORDER BY v;

-- script: a view's column from the outer side of a join is described nullable
CREATE TABLE p (id INT NOT NULL, name VARCHAR(5) NOT NULL);
CREATE TABLE q (id INT NOT NULL, label VARCHAR(10) NOT NULL);
CREATE VIEW j AS SELECT p.id, q.label FROM p LEFT JOIN q ON q.id = p.id;
DESCRIBE j;

-- script: views of outer joins describe the outer side's columns nullable, with their defaults
CREATE TABLE p (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(5) NOT NULL DEFAULT 'pp', n INT DEFAULT 3);
CREATE TABLE q (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, label VARCHAR(10) NOT NULL DEFAULT 'x', m INT DEFAULT 4, k INT NOT NULL);
CREATE TABLE r (id INT NOT NULL);
CREATE VIEW j AS SELECT p.id, p.name, p.n, q.label, q.m, q.k, q.id AS qid FROM p LEFT JOIN q ON q.id = p.id;
DESCRIBE j;
CREATE VIEW rj AS SELECT p.id, p.name, p.n, q.label, q.m FROM p RIGHT JOIN q ON q.id = p.id;
DESCRIBE rj;
CREATE VIEW ij AS SELECT p.id, p.name, q.label FROM p JOIN q ON q.id = p.id;
DESCRIBE ij;
CREATE VIEW s AS SELECT * FROM p LEFT JOIN q USING (id);
DESCRIBE s;
CREATE VIEW w AS SELECT q.label FROM p LEFT JOIN q ON q.id = p.id WHERE q.id IS NOT NULL;
DESCRIBE w;
CREATE VIEW n AS SELECT x.id, y.label, z.id AS zid FROM p x LEFT JOIN (q y JOIN r z ON z.id = y.id) ON y.id = x.id;
DESCRIBE n;
CREATE VIEW n2 AS SELECT x.id, y.label, z.id AS zid FROM p x LEFT JOIN q y ON y.id = x.id JOIN r z ON z.id = x.id;
DESCRIBE n2;
CREATE VIEW n3 AS SELECT x.id, y.label, z.id AS zid FROM p x LEFT JOIN q y ON y.id = x.id RIGHT JOIN r z ON z.id = x.id;
SHOW COLUMNS FROM n3;
CREATE VIEW d AS SELECT x.id, y.label FROM p x LEFT JOIN (SELECT id, label FROM q) y ON y.id = x.id;
DESCRIBE d;
CREATE VIEW over_ij AS SELECT ij.label, r.id FROM r JOIN ij ON ij.id = r.id;
DESCRIBE over_ij;
SELECT COLUMN_NAME, IS_NULLABLE, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'n3' ORDER BY ORDINAL_POSITION;

-- script: a view over a view of an outer join is not described
CREATE TABLE p (id INT NOT NULL, name VARCHAR(5) NOT NULL);
CREATE TABLE q (id INT NOT NULL, label VARCHAR(10) NOT NULL);
CREATE VIEW j AS SELECT p.id, q.label FROM p LEFT JOIN q ON q.id = p.id;
CREATE VIEW over_j AS SELECT * FROM j;
SELECT * FROM over_j;
DESCRIBE over_j;

-- script: a view's union column is described
CREATE TABLE p (id INT NOT NULL, name VARCHAR(5) NOT NULL);
CREATE TABLE q (id INT NOT NULL, label VARCHAR(10) NOT NULL);
CREATE VIEW un AS SELECT name FROM p UNION SELECT label FROM q;
SHOW COLUMNS FROM un;

-- script: views' union columns of one type are described as MariaDB merges them
CREATE TABLE p (id INT NOT NULL, name VARCHAR(5) NOT NULL, c CHAR(3) NOT NULL, n INT, bi BIGINT NOT NULL, ti TINYINT NOT NULL, u INT UNSIGNED NOT NULL, vb VARCHAR(7) COLLATE utf8mb4_bin NOT NULL);
CREATE TABLE q (id INT NOT NULL, label VARCHAR(10) NOT NULL, c CHAR(5) NOT NULL, n INT NOT NULL, bi BIGINT, ti TINYINT NOT NULL, u INT UNSIGNED NOT NULL, vb VARCHAR(9) COLLATE utf8mb4_bin);
CREATE TABLE r (k INT NOT NULL);
CREATE VIEW u1 AS SELECT id, name, c, n, bi, ti, u FROM p UNION SELECT id, label, c, n, bi, ti, u FROM q;
DESCRIBE u1;
CREATE VIEW u2 AS SELECT p.id AS pid, q.label FROM p JOIN q ON q.id = p.id UNION ALL SELECT k, name FROM r JOIN p ON p.id = r.k;
DESCRIBE u2;
CREATE VIEW u3 AS SELECT vb FROM p UNION SELECT vb FROM q ORDER BY vb LIMIT 5;
SHOW FULL COLUMNS FROM u3;
CREATE VIEW u4 AS SELECT id FROM p UNION SELECT n FROM q UNION SELECT k FROM r;
DESCRIBE u4;
CREATE VIEW u5 AS SELECT q.id AS i, q.label AS l FROM q UNION SELECT p.id, p.name FROM p;
DESCRIBE u5;
INSERT INTO p VALUES (1, 'a', 'b', NULL, 2, 3, 4, 'v');
INSERT INTO q VALUES (1, 'aa', 'bb', 5, NULL, 6, 7, NULL);
SELECT * FROM u1 ORDER BY id, name;
SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'u1' ORDER BY ORDINAL_POSITION;

-- script: a view's union of columns of different types is not described
CREATE TABLE p (id INT NOT NULL, name VARCHAR(5) NOT NULL, ti TINYINT NOT NULL);
CREATE TABLE q (id BIGINT NOT NULL, c CHAR(5) NOT NULL, u INT UNSIGNED NOT NULL);
CREATE VIEW mixed AS SELECT id, name, ti FROM p UNION SELECT id, c, u FROM q;
SELECT * FROM mixed;
DESCRIBE mixed;
CREATE VIEW literal AS SELECT id, name FROM p UNION ALL SELECT 1, 'x';
DESCRIBE literal;

-- script: a view joined with information_schema
CREATE TABLE t (a INT);
INSERT INTO t VALUES (1);
CREATE VIEW v AS SELECT a FROM t;
SELECT v.a, s.SCHEMA_NAME = DATABASE(), s.DEFAULT_COLLATION_NAME FROM v JOIN information_schema.SCHEMATA s ON s.SCHEMA_NAME = DATABASE();
SELECT t.TABLE_NAME, t.TABLE_TYPE, COUNT(c.COLUMN_NAME) FROM information_schema.TABLES t JOIN information_schema.COLUMNS c ON c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME WHERE t.TABLE_SCHEMA = DATABASE() GROUP BY t.TABLE_NAME, t.TABLE_TYPE ORDER BY t.TABLE_NAME;
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'V' UNION ALL SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'T';
SELECT a, (SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'v') FROM t;

-- script: views declared ALGORITHM=TEMPTABLE are not written through
CREATE TABLE t (a INT);
INSERT INTO t VALUES (1);
CREATE ALGORITHM=TEMPTABLE VIEW v AS SELECT a FROM t;
UPDATE v SET a = 2;
DELETE FROM v;
INSERT INTO v VALUES (3);
SELECT * FROM v;
CREATE ALGORITHM=MERGE VIEW m2 AS SELECT a FROM t;
UPDATE m2 SET a = 4;
CREATE ALGORITHM=UNDEFINED VIEW m3 AS SELECT a FROM t;
UPDATE m3 SET a = 5;
CREATE VIEW over_tt AS SELECT a FROM v;
UPDATE over_tt SET a = 5;
CREATE OR REPLACE VIEW v AS SELECT a FROM t;
UPDATE v SET a = 6;
SELECT * FROM t;

-- script: ALGORITHM=MERGE of a view MySQL cannot merge is refused
CREATE TABLE t (a INT);
CREATE ALGORITHM=MERGE VIEW m AS SELECT COUNT(*) AS n FROM t;
SHOW WARNINGS;

-- script: a view's CHECK OPTION is refused
CREATE TABLE t (a INT);
CREATE VIEW v AS SELECT a FROM t WHERE a > 2 WITH CASCADED CHECK OPTION;

-- script: ALTER VIEW with ALGORITHM is refused
CREATE TABLE t (a INT);
CREATE VIEW v AS SELECT a FROM t;
ALTER ALGORITHM=MERGE VIEW v AS SELECT a + 1 AS b FROM t;

-- script: a view's DEFINER other than the session's user is refused
CREATE TABLE t (a INT);
CREATE DEFINER=`someone`@`localhost` VIEW v AS SELECT a FROM t;

-- script: a subquery of an UPDATE reads its own table's column of an assigned name
CREATE TABLE t (a INT, b INT);
CREATE TABLE u (a INT);
INSERT INTO t VALUES (1, 0), (2, 0);
INSERT INTO u VALUES (7), (9);
UPDATE t SET a = 5, b = (SELECT a FROM u ORDER BY a LIMIT 1);
SELECT * FROM t ORDER BY a, b;
UPDATE t SET a = a + 1, b = (SELECT MAX(u.a) FROM u WHERE u.a > t.a);
SELECT * FROM t ORDER BY a, b;

-- script: a view's computed columns of one name are renamed My_exp
CREATE TABLE t (a INT);
CREATE VIEW v AS SELECT a + 1, a + 1 FROM t;

-- script: a view's computed column of a long text is named Name_exp
CREATE TABLE t (a INT);
CREATE VIEW v AS SELECT CONCAT(a, 'a fairly long string literal that makes the name long', a) FROM t;

-- script: a view's generated column names as MySQL makes them unique
CREATE TABLE t (a INT, b INT);
INSERT INTO t VALUES (1, 2);
CREATE VIEW v AS SELECT a + 1, a + 1 FROM t;
SELECT * FROM v;
SELECT `My_exp_a + 1` FROM v;
CREATE VIEW v2 AS SELECT a + 1, a + 1, a + 1, a AS `My_exp_1_a + 1`, a+1 FROM t;
SELECT * FROM v2;
CREATE VIEW v3 AS SELECT a, a FROM t;
CREATE VIEW v4 AS SELECT a AS x, a + 1 AS x FROM t;
CREATE VIEW v5 AS SELECT a AS `a + 1`, a + 1 FROM t;
SELECT * FROM v5;
CREATE VIEW v6 AS SELECT a + 1, a AS `a + 1` FROM t;
SELECT * FROM v6;
CREATE VIEW v7 AS SELECT CONCAT(a, 'a fairly long string literal that makes the name long', a), CONCAT(b, 'a fairly long string literal that makes the name long', a), 1 AS Name_exp_1 FROM t;
SELECT * FROM v7;
CREATE VIEW v8 AS SELECT 'x', 'x', 1, 1 FROM t;
SELECT * FROM v8;
CREATE VIEW v9 AS SELECT A + 1, a + 1 FROM t;
SELECT * FROM v9;
CREATE VIEW v10 AS SELECT a, t.a FROM t;
CREATE VIEW v11 AS SELECT a + 1, b, a + 1 FROM t UNION SELECT 1, 2, 3;
SELECT * FROM v11 ORDER BY 1;
CREATE VIEW v12 AS SELECT *, a FROM t;
CREATE VIEW v13 AS SELECT a + b, t.* FROM t;
SELECT * FROM v13;
SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE();

-- script: a write through a view whose table a temporary table hides is refused
CREATE TABLE t (a INT);
INSERT INTO t VALUES (1);
CREATE VIEW v AS SELECT a FROM t;
CREATE TEMPORARY TABLE t (a INT);
UPDATE v SET a = 2;
DROP TEMPORARY TABLE t;
SELECT * FROM t;

-- script: a write through a view with a computed function column
CREATE TABLE t (a INT, b VARCHAR(5));
INSERT INTO t VALUES (1, 'x');
CREATE VIEW v AS SELECT a, UPPER(b) AS u FROM t;
UPDATE v SET a = 2;

-- script: writes through views whose columns call functions
CREATE TABLE t (id INT PRIMARY KEY, b VARCHAR(10), d DATE);
INSERT INTO t VALUES (1, 'x', '2024-01-31'), (2, 'y', '2024-02-29'), (3, 'z', NULL);
CREATE VIEW v AS SELECT id, UPPER(b) AS u, DATE_ADD(d, INTERVAL 1 MONTH) AS next_month, CONCAT(b, '-', id) AS label, b FROM t WHERE id < 3;
UPDATE v SET b = 'w' WHERE u = 'X';
SELECT * FROM v ORDER BY id;
UPDATE v SET u = 'q';
UPDATE v SET id = id + 10 WHERE next_month = '2024-03-29';
DELETE FROM v WHERE label = 'w-1';
INSERT INTO v (id, b) VALUES (5, 'five');
INSERT INTO v VALUES (6, 'A', NULL, 'l', 'six');
INSERT INTO v (id, label) VALUES (7, 'l');
SELECT * FROM t ORDER BY id;
SELECT * FROM v ORDER BY id;

-- script: a view's definition in information_schema.VIEWS is refused
CREATE TABLE t (a INT);
CREATE VIEW v AS SELECT a FROM t;
SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE();

-- script: CONVERT … USING a character set
CREATE TABLE cv (id INT PRIMARY KEY, name VARCHAR(10) COLLATE utf8mb4_bin, amount DECIMAL(6,2), at DATE, b VARBINARY(4));
INSERT INTO cv VALUES (1, 'Bob', 1.50, '2024-02-03', 'ab'), (2, 'bob', NULL, NULL, NULL), (3, 'Ann', -2.00, '2023-12-31', 'x');
SELECT id, CONVERT(name USING utf8mb4), CONVERT(amount USING utf8mb4), CONVERT(at USING utf8), CONVERT(id USING utf8mb4) FROM cv ORDER BY id;
SELECT COUNT(*) FROM cv WHERE CONVERT(name USING utf8mb4) = 'BOB';
SELECT COUNT(*) FROM cv WHERE name = 'BOB';
SELECT CONVERT(id USING utf8mb4) = '1', CONCAT(CONVERT(amount USING utf8mb4), '!') FROM cv ORDER BY id;
SELECT HEX(CONVERT(name USING binary)) FROM cv ORDER BY id;
SELECT CONVERT(b USING utf8mb4) FROM cv ORDER BY id;

-- script: upserts of several rows into a table with ON UPDATE CURRENT_TIMESTAMP
CREATE TABLE ou (id INT AUTO_INCREMENT PRIMARY KEY, k VARCHAR(5) UNIQUE, n INT, ts TIMESTAMP NOT NULL DEFAULT '2020-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP);
INSERT INTO ou (k, n) VALUES ('a', 1);
INSERT INTO ou (k, n) VALUES ('a', 2) ON DUPLICATE KEY UPDATE n = 5;
INSERT INTO ou (k, n) VALUES ('b', 3) ON DUPLICATE KEY UPDATE n = 6;
SELECT id, k, n FROM ou ORDER BY id;
INSERT INTO ou (k, n, ts) VALUES ('a', 1, '2021-01-01 00:00:00'), ('c', 2, '2021-01-01 00:00:00') ON DUPLICATE KEY UPDATE n = 7;
SELECT id, k, n, ts = '2021-01-01 00:00:00', ts > '2021-01-01 00:00:00' FROM ou ORDER BY id;
INSERT IGNORE INTO ou (k, n, ts) VALUES ('c', 9, '2022-01-01 00:00:00'), ('d', 4, '2022-01-01 00:00:00'), ('e', 5, '2022-01-01 00:00:00');
SELECT id, k, n, ts FROM ou WHERE k IN ('c', 'd', 'e') ORDER BY id;
SELECT LAST_INSERT_ID();

-- script: DOUBLE literals are read as the nearest double
CREATE TABLE dl (k INT PRIMARY KEY, v DOUBLE);
INSERT INTO dl VALUES (1, -427703446871307e-20), (2, 665705e-31), (3, 1547679217e-38), (4, 1.581552523616512e-177), (5, 3.184797688015296e277), (6, 4.3796705401895166e81);
SELECT k, v, v = -427703446871307e-20, v * 1e0 FROM dl ORDER BY k;
SELECT 8.06162190503599e-163, -1547679217e-38, 1e0 + 0.5e0;
CREATE TABLE dd (k INT PRIMARY KEY, v DOUBLE);
INSERT INTO dd VALUES (1, -294.3269655), (2, 421.493940197613);
SELECT k, v = -294.3269655, v = 421.493940197613, v + 0.5, v - 421.493940197613 FROM dd ORDER BY k;
SELECT k FROM dd WHERE v < 421.493940197613 ORDER BY k;

-- script: numbers with a fraction read as datetimes keep it as microseconds
SELECT CAST(20240229.5 AS DATE), CAST(20240229123456.5 AS DATETIME(1)), CAST(20240229123456.123456789 AS DATETIME(6)), CAST('20240229123456.25' AS DATETIME(2));
SELECT CONVERT(20240229123456.5, DATETIME(1)), CAST(240229123456.75 AS DATETIME(2));

-- script: TIME values with days
SELECT CAST('1 02:03:04' AS TIME), CAST('2 1:2' AS TIME), CAST('0 10:00:00' AS TIME), TIME('3 04'), TIME('1 23');
SELECT TIME('3 4');

-- script: FLOAT(p) is FLOAT or DOUBLE by its precision; DOUBLE(M,D) and FLOAT(M,D) are refused
CREATE TABLE fp (id INT PRIMARY KEY, a FLOAT(20), b FLOAT(30), c DOUBLE);
INSERT INTO fp VALUES (1, 0.1, 0.1, 0.1);
SELECT a = 0.1, b = 0.1, c = 0.1 FROM fp;
SHOW CREATE TABLE fp;
