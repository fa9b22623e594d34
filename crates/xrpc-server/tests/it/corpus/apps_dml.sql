-- What applications send once their schema exists: an ORM's CRUD and upserts, a blog's queries,
-- the reports a compute node pushes down. Each script runs statement by statement on a fresh node
-- and a fresh MariaDB database, and the outcomes are compared (corpus_sqlite.rs).

-- script: an ORM's CRUD with backquoted names, existence checks and a counted page
CREATE TABLE `auth_user` (`id` int(11) NOT NULL AUTO_INCREMENT, `username` varchar(150) COLLATE utf8mb4_unicode_ci NOT NULL, `email` varchar(254) COLLATE utf8mb4_unicode_ci NOT NULL, `is_active` tinyint(1) NOT NULL, `date_joined` datetime(6) NOT NULL, PRIMARY KEY (`id`), UNIQUE KEY `username` (`username`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
INSERT INTO `auth_user` (`username`, `email`, `is_active`, `date_joined`) VALUES ('alice', 'alice@example.com', 1, '2024-01-02 03:04:05.123456');
SELECT LAST_INSERT_ID();
INSERT INTO `auth_user` (`username`, `email`, `is_active`, `date_joined`) VALUES ('bob', 'bob@example.com', 0, '2024-02-03 04:05:06.000000'), ('Émile', 'emile@example.com', 1, '2024-03-04 05:06:07.500000'), ('carol_x', 'c%x@example.com', 1, '2024-04-05 06:07:08.000000');
SELECT LAST_INSERT_ID();
SELECT `auth_user`.`id`, `auth_user`.`username`, `auth_user`.`email`, `auth_user`.`is_active`, `auth_user`.`date_joined` FROM `auth_user` WHERE `auth_user`.`username` = 'alice' LIMIT 21;
SELECT 1 AS `a` FROM `auth_user` WHERE `auth_user`.`email` = 'bob@example.com' LIMIT 1;
SELECT COUNT(*) AS `__count` FROM `auth_user` WHERE `auth_user`.`is_active`;
SELECT `auth_user`.`id`, `auth_user`.`username` FROM `auth_user` WHERE `auth_user`.`id` IN (1, 3, 4) ORDER BY `auth_user`.`username` ASC;
SELECT `auth_user`.`username` FROM `auth_user` WHERE `auth_user`.`username` LIKE 'carol\_%' ESCAPE '\\' ORDER BY `auth_user`.`id`;
SELECT `auth_user`.`username` FROM `auth_user` WHERE `auth_user`.`email` LIKE 'c!%%' ESCAPE '!';
SELECT `auth_user`.`username` FROM `auth_user` ORDER BY `auth_user`.`id` DESC LIMIT 1, 2;
UPDATE `auth_user` SET `is_active` = 1 WHERE `auth_user`.`id` = 2;
SELECT `auth_user`.`id`, `auth_user`.`is_active` FROM `auth_user` WHERE `auth_user`.`id` = 2 FOR UPDATE;
DELETE FROM `auth_user` WHERE `auth_user`.`id` IN (4);
SELECT `username`, `date_joined` FROM `auth_user` ORDER BY `username`;

-- script: upserts with ON DUPLICATE KEY UPDATE and VALUES() (MySQL 8's row alias, which MariaDB lacks, is in xrpc-sql-sqlite's tests/mysql_only.rs)
CREATE TABLE `counters` (`id` bigint(20) unsigned NOT NULL AUTO_INCREMENT, `name` varchar(64) NOT NULL, `hits` int(11) NOT NULL DEFAULT 0, `updated_at` timestamp NULL DEFAULT NULL, PRIMARY KEY (`id`), UNIQUE KEY `counters_name_unique` (`name`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
INSERT INTO `counters` (`name`, `hits`, `updated_at`) VALUES ('home', 1, '2024-01-01 00:00:00'), ('about', 1, '2024-01-01 00:00:00');
INSERT INTO `counters` (`name`, `hits`, `updated_at`) VALUES ('home', 5, '2024-01-02 00:00:00') ON DUPLICATE KEY UPDATE `hits` = `hits` + VALUES(`hits`), `updated_at` = VALUES(`updated_at`);
INSERT INTO `counters` (`name`, `hits`) VALUES ('home', 1), ('contact', 1) ON DUPLICATE KEY UPDATE `hits` = VALUES(`hits`) + `counters`.`hits`;
SELECT LAST_INSERT_ID();
INSERT INTO `counters` (`name`, `hits`) VALUES ('x', 1), ('home', 1), ('y', 1), ('about', 2), ('z', 1) ON DUPLICATE KEY UPDATE `hits` = 0;
SELECT LAST_INSERT_ID();
INSERT INTO `counters` (`name`, `hits`) VALUES ('home', 2) ON DUPLICATE KEY UPDATE `hits` = 3;
SELECT LAST_INSERT_ID();
INSERT INTO `counters` (`name`) VALUES ('w');
SELECT LAST_INSERT_ID();
SELECT `id`, `name`, `hits` FROM `counters` ORDER BY `id`;
INSERT INTO `counters` (`name`, `hits`) VALUES ('about', 7) ON DUPLICATE KEY UPDATE `hits` = VALUES(`hits`);
INSERT INTO `counters` (`name`, `hits`) VALUES ('about', 1) ON DUPLICATE KEY UPDATE `id` = LAST_INSERT_ID(`id`), `hits` = `hits` + 1;
SELECT LAST_INSERT_ID();
SELECT `id`, `name`, `hits`, `updated_at` FROM `counters` ORDER BY `id`;

-- script: INSERT IGNORE of several rows and REPLACE on an auto-increment key
CREATE TABLE `tags` (`id` int unsigned NOT NULL AUTO_INCREMENT, `slug` varchar(50) NOT NULL, `label` varchar(100) DEFAULT NULL, PRIMARY KEY (`id`), UNIQUE KEY `slug` (`slug`)) ENGINE=InnoDB;
INSERT IGNORE INTO `tags` (`slug`, `label`) VALUES ('rust', 'Rust'), ('sql', 'SQL');
INSERT IGNORE INTO `tags` (`slug`, `label`) VALUES ('rust', 'Rust again'), ('go', 'Go'), ('sql', NULL), ('zig', 'Zig');
SELECT LAST_INSERT_ID();
SELECT `id`, `slug`, `label` FROM `tags` ORDER BY `id`;
REPLACE INTO `tags` (`slug`, `label`) VALUES ('go', 'Golang');
REPLACE INTO `tags` (`id`, `slug`, `label`) VALUES (1, 'rust', 'Rust lang');
INSERT INTO `tags` (`slug`) VALUES ('c');
SELECT `id`, `slug`, `label` FROM `tags` ORDER BY `id`;

-- script: a paged listing with SQL_CALC_FOUND_ROWS and FOUND_ROWS()
CREATE TABLE `products` (`id` int NOT NULL AUTO_INCREMENT PRIMARY KEY, `name` varchar(80) NOT NULL, `price` decimal(10,2) NOT NULL, `stock` int NOT NULL DEFAULT 0) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO `products` (`name`, `price`, `stock`) VALUES ('apple', 1.20, 10), ('Banana', 0.50, 0), ('cherry', 3.75, 5), ('date', 2.00, 7), ('Éclair', 4.10, 2);
SELECT SQL_CALC_FOUND_ROWS `id`, `name` FROM `products` WHERE `stock` > 0 ORDER BY `price` DESC LIMIT 0, 2;
SELECT FOUND_ROWS();
SELECT `name` FROM `products` ORDER BY `name`;
SELECT `name`, `price` * `stock` AS `value` FROM `products` ORDER BY `value` DESC, `name`;
SELECT MAX(`price`) INTO @top FROM `products`;
SELECT @top, `name` FROM `products` WHERE `price` = @top;

-- script: a blog's post and meta queries
CREATE TABLE `wp_posts` (`ID` bigint(20) unsigned NOT NULL AUTO_INCREMENT, `post_author` bigint(20) unsigned NOT NULL DEFAULT 0, `post_date` datetime NOT NULL DEFAULT '0000-00-00 00:00:00', `post_title` text COLLATE utf8mb4_unicode_520_ci NOT NULL, `post_status` varchar(20) COLLATE utf8mb4_unicode_520_ci NOT NULL DEFAULT 'publish', `post_type` varchar(20) COLLATE utf8mb4_unicode_520_ci NOT NULL DEFAULT 'post', PRIMARY KEY (`ID`), KEY `type_status_date` (`post_type`,`post_status`,`post_date`,`ID`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci;
CREATE TABLE `wp_postmeta` (`meta_id` bigint(20) unsigned NOT NULL AUTO_INCREMENT, `post_id` bigint(20) unsigned NOT NULL DEFAULT 0, `meta_key` varchar(255) COLLATE utf8mb4_unicode_520_ci DEFAULT NULL, `meta_value` longtext COLLATE utf8mb4_unicode_520_ci, PRIMARY KEY (`meta_id`), KEY `post_id` (`post_id`), KEY `meta_key` (`meta_key`(191))) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci;
INSERT INTO `wp_posts` (`post_author`, `post_date`, `post_title`, `post_status`, `post_type`) VALUES (1, '2023-12-31 23:59:59', 'Hello world', 'publish', 'post'), (2, '2024-02-29 10:00:00', 'Leap day', 'publish', 'post'), (1, '2024-03-01 08:30:00', 'Draft', 'draft', 'post'), (1, '2024-03-02 09:00:00', 'About', 'publish', 'page');
INSERT INTO `wp_postmeta` (`post_id`, `meta_key`, `meta_value`) VALUES (1, 'views', '120'), (2, 'views', '45'), (3, 'views', '7'), (1, '_thumbnail_id', '9'), (2, 'rating', '4.5'), (4, 'views', 'n/a');
SELECT SQL_CALC_FOUND_ROWS wp_posts.ID FROM wp_posts WHERE 1=1 AND wp_posts.post_type = 'post' AND ((wp_posts.post_status = 'publish')) ORDER BY wp_posts.post_date DESC LIMIT 0, 10;
SELECT FOUND_ROWS();
SELECT wp_posts.ID, wp_posts.post_title FROM wp_posts INNER JOIN wp_postmeta ON ( wp_posts.ID = wp_postmeta.post_id ) WHERE 1=1 AND ( wp_postmeta.meta_key = 'views' ) AND wp_posts.post_type IN ('post', 'page') GROUP BY wp_posts.ID ORDER BY CAST(wp_postmeta.meta_value AS SIGNED) DESC LIMIT 0, 10;
SELECT post_id, meta_key, meta_value FROM wp_postmeta WHERE post_id IN (1,2) ORDER BY meta_id ASC;
SELECT YEAR(post_date) AS `year`, MONTH(post_date) AS `month`, count(ID) as posts FROM wp_posts WHERE post_type = 'post' AND post_status = 'publish' GROUP BY YEAR(post_date), MONTH(post_date) ORDER BY post_date DESC;
SELECT DATE_FORMAT(post_date, '%Y-%m-%d') AS day, DATE_FORMAT(post_date, '%M %e, %Y %l:%i %p') AS shown FROM wp_posts ORDER BY ID;
SELECT post_author, COUNT(*) AS c FROM wp_posts GROUP BY post_author HAVING COUNT(*) > 1;
SELECT meta_key, SUM(CAST(meta_value AS SIGNED)) AS total, CAST(meta_value AS DECIMAL(10,2)) AS d FROM wp_postmeta WHERE meta_key = 'rating' GROUP BY meta_key, meta_value;
SELECT p.ID, p.post_title, m.meta_value FROM wp_posts p LEFT JOIN wp_postmeta m ON m.post_id = p.ID AND m.meta_key = '_thumbnail_id' ORDER BY p.ID;
SELECT DISTINCT meta_key FROM wp_postmeta WHERE meta_key NOT LIKE '\_%' ORDER BY meta_key;

-- script: a pushed-down sales report over three tables with ROLLUP
CREATE TABLE region (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL);
CREATE TABLE customer (id INT PRIMARY KEY, region_id INT NOT NULL, name VARCHAR(40) NOT NULL);
CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT NOT NULL, amount DECIMAL(12,2) NOT NULL, qty INT NOT NULL, weight DOUBLE, ordered DATE NOT NULL);
INSERT INTO region VALUES (1, 'north'), (2, 'south'), (3, 'east');
INSERT INTO customer VALUES (1, 1, 'acme'), (2, 1, 'beta'), (3, 2, 'gamma'), (4, 3, 'delta');
INSERT INTO orders VALUES (1, 1, 10.50, 2, 1.5, '2024-01-05'), (2, 1, 10.50, 1, NULL, '2024-01-20'), (3, 2, 99.99, 5, 2.25, '2024-02-01'), (4, 3, 0.01, 1, 0.1, '2024-02-14'), (5, 3, 250.00, 10, 12.5, '2024-03-03');
SELECT r.name, COUNT(*) AS n, SUM(o.amount) AS total, AVG(o.amount) AS mean, MIN(o.amount) AS lo, MAX(o.amount) AS hi, SUM(o.qty) AS q, AVG(o.qty) AS aq, SUM(o.weight) AS w, AVG(o.weight) AS aw FROM orders o JOIN customer c ON c.id = o.customer_id JOIN region r ON r.id = c.region_id GROUP BY r.name ORDER BY r.name;
SELECT COUNT(DISTINCT o.customer_id) AS buyers, SUM(DISTINCT o.amount) AS distinct_total, AVG(DISTINCT o.amount) AS distinct_mean, COUNT(DISTINCT o.amount) AS amounts FROM orders o;
SELECT r.name, c.name, SUM(o.amount) AS total FROM orders o JOIN customer c ON c.id = o.customer_id JOIN region r ON r.id = c.region_id GROUP BY r.name, c.name WITH ROLLUP;
SELECT r.name, COALESCE(SUM(o.amount), 0) AS total FROM region r LEFT JOIN customer c ON c.region_id = r.id LEFT JOIN orders o ON o.customer_id = c.id GROUP BY r.id, r.name ORDER BY total DESC;
SELECT DATE_FORMAT(ordered, '%Y-%m') AS month, SUM(amount) AS total, SUM(qty * amount) AS gross FROM orders GROUP BY DATE_FORMAT(ordered, '%Y-%m') ORDER BY month;
SELECT c.name, (SELECT SUM(o.amount) FROM orders o WHERE o.customer_id = c.id) AS total FROM customer c ORDER BY c.id;
SELECT name FROM customer c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND o.amount > 50) ORDER BY name;
SELECT t.region_id, t.total FROM (SELECT c.region_id, SUM(o.amount) AS total FROM orders o JOIN customer c ON c.id = o.customer_id GROUP BY c.region_id) t WHERE t.total > 20 ORDER BY t.region_id;
SELECT id, CASE WHEN amount >= 100 THEN 'big' WHEN amount >= 10 THEN 'mid' ELSE 'small' END AS size, amount / qty AS unit, qty / 0 AS inf, amount DIV qty AS whole FROM orders ORDER BY id;

-- script: window functions and common table expressions
CREATE TABLE emp (id INT PRIMARY KEY, dept VARCHAR(10), salary DECIMAL(10,2), manager_id INT NULL, hired DATE);
INSERT INTO emp VALUES (1, 'eng', 100.00, NULL, '2020-01-01'), (2, 'eng', 80.00, 1, '2021-06-15'), (3, 'eng', 80.00, 1, '2022-03-01'), (4, 'ops', 60.00, 1, '2019-11-30'), (5, 'ops', 70.50, 4, '2023-07-07');
SELECT id, dept, salary, ROW_NUMBER() OVER (PARTITION BY dept ORDER BY salary DESC, id) AS rn, RANK() OVER (PARTITION BY dept ORDER BY salary DESC) AS rk, DENSE_RANK() OVER (ORDER BY salary DESC) AS drk FROM emp ORDER BY id;
SELECT id, salary, SUM(salary) OVER (ORDER BY id) AS running, AVG(salary) OVER (PARTITION BY dept) AS dept_avg, LAG(salary) OVER (ORDER BY id) AS prev, LEAD(salary, 1) OVER (ORDER BY id) AS nxt FROM emp ORDER BY id;
WITH dept_total AS (SELECT dept, SUM(salary) AS total FROM emp GROUP BY dept) SELECT dept, total FROM dept_total WHERE total > 100 ORDER BY dept;
WITH RECURSIVE chain AS (SELECT id, manager_id, 1 AS depth FROM emp WHERE manager_id IS NULL UNION ALL SELECT e.id, e.manager_id, c.depth + 1 FROM emp e JOIN chain c ON e.manager_id = c.id) SELECT id, depth FROM chain ORDER BY depth, id;
WITH RECURSIVE seq (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < 5) SELECT n, n * n AS sq FROM seq;
SELECT dept, GROUP_CONCAT(id ORDER BY id SEPARATOR ',') AS ids, COUNT(*) AS n FROM emp GROUP BY dept ORDER BY dept;

-- script: UNION of columns of different types
CREATE TABLE a (i INT, d DECIMAL(8,3), s VARCHAR(10), f DOUBLE, dt DATE);
INSERT INTO a VALUES (1, 1.500, 'x', 0.1, '2024-01-01'), (2, NULL, 'yy', 2.5, NULL);
SELECT i FROM a UNION SELECT d FROM a ORDER BY 1;
SELECT i FROM a UNION ALL SELECT s FROM a;
SELECT d FROM a UNION ALL SELECT f FROM a;
SELECT dt FROM a UNION ALL SELECT s FROM a;
SELECT i, s FROM a UNION SELECT 3, 'zzz' UNION SELECT 1, 'x' ORDER BY i;
SELECT 1 AS v UNION ALL SELECT 2.50 UNION ALL SELECT 'abc';
SELECT NULL AS v UNION SELECT 1;

-- script: user variables as row counters and running totals
CREATE TABLE scores (id INT PRIMARY KEY, player VARCHAR(20), points INT);
INSERT INTO scores VALUES (1, 'zoë', 30), (2, 'adam', 50), (3, 'Zack', 20), (4, 'éva', 50), (5, 'Adam', NULL);
SET @rownum := 0;
SELECT @rownum := @rownum + 1 AS rank_no, player, points FROM scores ORDER BY id;
SET @total = (SELECT SUM(points) FROM scores);
SELECT @total, @rownum;
SELECT player FROM scores ORDER BY player;
SELECT player, points FROM scores ORDER BY points, id;
SELECT player, points FROM scores ORDER BY points DESC, player;
SELECT id, points INTO @pid, @pp FROM scores WHERE player = 'Zack';
SELECT @pid, @pp;

-- script: casts, conversions, string and date functions
CREATE TABLE evt (id INT PRIMARY KEY, name VARCHAR(30), at DATETIME, amount DECIMAL(10,4), big BIGINT);
INSERT INTO evt VALUES (1, 'Launch', '2024-02-29 13:45:10', 12.3456, 9223372036854775807), (2, 'retro ', '2024-12-31 00:00:00', -0.5, -9223372036854775808), (3, NULL, NULL, NULL, NULL);
SELECT CONVERT(name USING utf8mb4), CAST(id AS CHAR), CAST(amount AS DECIMAL(10,2)), CAST(at AS DATE), CAST('2024-05-06 07:08:09' AS DATE) FROM evt ORDER BY id;
SELECT CONCAT(name, '#', id), CONCAT_WS('-', name, NULL, id), UPPER(name), LOWER(name), LENGTH(name), CHAR_LENGTH(name), TRIM(name), SUBSTRING(name, 2, 3), REPLACE(name, 'a', 'A'), LPAD(id, 4, '0') FROM evt ORDER BY id;
SELECT DATE(at), TIME(at), DATE_ADD(at, INTERVAL 1 MONTH), DATE_SUB(at, INTERVAL 1 DAY), DATEDIFF('2025-01-01', at), DAYOFWEEK(at), LAST_DAY(at), UNIX_TIMESTAMP(at) - UNIX_TIMESTAMP('2024-01-01 00:00:00') FROM evt ORDER BY id;
SELECT big + 1 FROM evt WHERE id = 1;
SELECT big - 1 FROM evt WHERE id = 2;
SELECT amount / 0, amount MOD 0, IFNULL(name, 'none'), NULLIF(id, 1), IF(amount > 0, 'pos', 'neg') FROM evt ORDER BY id;
SELECT ROUND(amount, 2), TRUNCATE(amount, 1), FLOOR(amount), CEIL(amount), ABS(amount), FORMAT(amount * 1000, 2) FROM evt ORDER BY id;
SELECT id FROM evt ORDER BY at, id;
SELECT id FROM evt ORDER BY at DESC, id;

-- script: generated AUTO_INCREMENT values past the column's type are refused (167)
CREATE TABLE tiny (id TINYINT AUTO_INCREMENT PRIMARY KEY, v INT);
INSERT INTO tiny VALUES (-1, 0), (124, 0);
INSERT INTO tiny (v) VALUES (1);
INSERT INTO tiny (v) VALUES (2), (3), (4);
INSERT INTO tiny (v) VALUES (5), (6);
SELECT id, v FROM tiny ORDER BY id;
INSERT INTO tiny (v) SELECT 7;
INSERT INTO tiny (v) SELECT 8;
SELECT id, v FROM tiny ORDER BY id;
CREATE TABLE small (id SMALLINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, v INT) AUTO_INCREMENT = 65535;
INSERT INTO small (v) VALUES (1);
INSERT INTO small (v) VALUES (2);
SELECT id, v FROM small;

-- script: dates and times read as numbers, and numbers read as dates
CREATE TABLE shifts (id INT PRIMARY KEY, day DATE, starts DATETIME, lasts TIME, stamp DATETIME(3), code DECIMAL(14,2));
INSERT INTO shifts VALUES (1, '2024-02-29', '2024-02-29 08:30:00', '07:45:00', '2024-02-29 08:30:00.000', 20240229.00), (2, '2023-12-31', '2023-12-31 22:00:05', '10:00:01', '2023-12-31 22:00:05.250', 20231231221505.50), (3, NULL, NULL, NULL, NULL, NULL);
SELECT day + 0, starts + 0, lasts + 0, -lasts, lasts * 2, CAST('07:45:00' AS TIME) + 0, -day, day - 1, day * 2, day DIV 100, day % 100 FROM shifts ORDER BY id;
SELECT CAST(day AS SIGNED), CAST(starts AS UNSIGNED), CAST(CAST('10:00:01' AS TIME) AS DECIMAL(10,2)), CAST(stamp AS SIGNED), CAST(starts AS DOUBLE) FROM shifts WHERE id = 1;
SELECT CAST(code AS DATE), CAST(code AS DATETIME(2)) FROM shifts ORDER BY id;
SELECT CAST('10:11:12.5' AS TIME(2)), CAST('10:11:12.5' AS TIME(1)), CAST(10709.25e0 AS TIME(2)) FROM shifts WHERE id = 2;
SELECT stamp + 0 FROM shifts WHERE id = 2;
INSERT INTO shifts (id, code) VALUES (4, '12abc' = 12);
SELECT id FROM shifts ORDER BY id;

-- script: strings read as numbers in writes under strict mode
CREATE TABLE sw (id INT PRIMARY KEY, name VARCHAR(10), n INT);
INSERT INTO sw VALUES (1, 'abc', 1), (2, '12', 2);
UPDATE sw SET n = 5 WHERE name = 12;
UPDATE sw SET n = 5 WHERE name > 1;
UPDATE sw SET n = 5 WHERE name IN (1, 2);
UPDATE sw SET n = 7 WHERE name + 0 = 0;
UPDATE sw SET n = (name = 0) WHERE id = 1;
UPDATE sw SET n = name + 0 WHERE id = 1;
SELECT * FROM sw ORDER BY id;
INSERT INTO sw VALUES (4, 'q', 'abc' = 0);
INSERT INTO sw VALUES (5, 'q', 'abc' + 0);
INSERT INTO sw SELECT 3, 'x', 1 FROM DUAL WHERE 'abc' = 0;
UPDATE sw SET n = 9 WHERE name = '12';
DELETE FROM sw WHERE name = 0;
SELECT * FROM sw ORDER BY id;

-- script: a foreign key failure names the side that failed
CREATE TABLE par (id INT PRIMARY KEY, name VARCHAR(10));
CREATE TABLE chi (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES par (id));
INSERT INTO par VALUES (1, 'a'), (2, 'b');
INSERT INTO chi VALUES (1, 1);
UPDATE par SET id = 3 WHERE id = 1;
UPDATE chi SET p = 9 WHERE id = 1;
INSERT INTO chi VALUES (2, 7);
UPDATE par SET id = 4 WHERE id = 2;
UPDATE par SET name = 'z' WHERE id = 1;
DELETE FROM par WHERE id = 1;
SELECT * FROM par ORDER BY id;
