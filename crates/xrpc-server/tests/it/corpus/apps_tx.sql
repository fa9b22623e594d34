-- Transactions and session semantics as applications, ORMs and compute nodes use them: each
-- script runs statement by statement on one session of a fresh node (translated) and of a fresh
-- MariaDB database, and the outcomes are compared (corpus_sqlite.rs).

-- script: an ORM's unit of work committed
CREATE TABLE `orders` (`id` bigint(20) unsigned NOT NULL AUTO_INCREMENT, `customer` varchar(64) COLLATE utf8mb4_unicode_520_ci NOT NULL, `total` decimal(10,2) NOT NULL DEFAULT '0.00', PRIMARY KEY (`id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci;
START TRANSACTION;
INSERT INTO `orders` (`customer`, `total`) VALUES ('alice', 10.50);
SELECT LAST_INSERT_ID(), ROW_COUNT();
INSERT INTO `orders` (`customer`, `total`) VALUES ('bob', 3.00), ('carol', 7.25);
SELECT LAST_INSERT_ID(), ROW_COUNT();
UPDATE `orders` SET `total` = `total` + 1 WHERE `customer` = 'bob';
SELECT ROW_COUNT();
COMMIT;
SELECT `id`, `customer`, `total` FROM `orders` ORDER BY `id`;

-- script: a rolled back transaction keeps its auto-increment values used
CREATE TABLE `t` (`id` int(11) NOT NULL AUTO_INCREMENT, `v` varchar(10) DEFAULT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB;
INSERT INTO `t` (`v`) VALUES ('a');
BEGIN;
INSERT INTO `t` (`v`) VALUES ('b'), ('c');
SELECT LAST_INSERT_ID();
ROLLBACK;
SELECT LAST_INSERT_ID(), ROW_COUNT();
INSERT INTO `t` (`v`) VALUES ('d');
SELECT LAST_INSERT_ID();
SELECT `id`, `v` FROM `t` ORDER BY `id`;

-- script: a duplicate key on a multi-row insert's third row inserts none of its rows and keeps the transaction
CREATE TABLE `users` (`id` int NOT NULL, `email` varchar(100) NOT NULL, PRIMARY KEY (`id`), UNIQUE KEY `email` (`email`));
INSERT INTO `users` VALUES (1, 'a@x.org');
START TRANSACTION;
INSERT INTO `users` VALUES (2, 'b@x.org');
INSERT INTO `users` VALUES (3, 'c@x.org'), (4, 'd@x.org'), (5, 'a@x.org'), (6, 'f@x.org');
SELECT `id`, `email` FROM `users` ORDER BY `id`;
INSERT INTO `users` VALUES (7, 'g@x.org');
COMMIT;
SELECT `id`, `email` FROM `users` ORDER BY `id`;

-- script: a failing update rolls back only itself
CREATE TABLE `stock` (`sku` varchar(10) NOT NULL PRIMARY KEY, `qty` int unsigned NOT NULL);
INSERT INTO `stock` VALUES ('a', 5), ('b', 0), ('c', 2);
BEGIN;
UPDATE `stock` SET `qty` = `qty` + 10 WHERE `sku` = 'c';
UPDATE `stock` SET `sku` = 'c' WHERE `sku` = 'a';
SELECT `sku`, `qty` FROM `stock` ORDER BY `sku`;
ROLLBACK;
SELECT `sku`, `qty` FROM `stock` ORDER BY `sku`;

-- script: an error in autocommit mode
CREATE TABLE `k` (`id` int PRIMARY KEY, `n` int NOT NULL);
INSERT INTO `k` VALUES (1, 1), (2, 2), (1, 3);
SELECT COUNT(*) FROM `k`;
INSERT INTO `k` VALUES (1, 1);
INSERT INTO `k` VALUES (2, NULL);
SELECT `id`, `n` FROM `k` ORDER BY `id`;
ROLLBACK;
SELECT COUNT(*) FROM `k`;

-- script: savepoints as an ORM nests transactions
CREATE TABLE `log` (`id` int NOT NULL AUTO_INCREMENT PRIMARY KEY, `msg` varchar(20));
START TRANSACTION;
INSERT INTO `log` (`msg`) VALUES ('outer');
SAVEPOINT `sp1`;
INSERT INTO `log` (`msg`) VALUES ('inner 1');
SAVEPOINT `sp2`;
INSERT INTO `log` (`msg`) VALUES ('inner 2');
ROLLBACK TO SAVEPOINT `sp2`;
SELECT `msg` FROM `log` ORDER BY `id`;
RELEASE SAVEPOINT `sp1`;
ROLLBACK TO SAVEPOINT `sp1`;
ROLLBACK TO `sp2`;
COMMIT;
SELECT `msg` FROM `log` ORDER BY `id`;

-- script: savepoints that do not exist
SAVEPOINT a;
ROLLBACK TO SAVEPOINT a;
RELEASE SAVEPOINT nothere;
BEGIN;
SAVEPOINT a;
SAVEPOINT a;
ROLLBACK TO a;
RELEASE SAVEPOINT a;
RELEASE SAVEPOINT a;
COMMIT;

-- script: autocommit off then commit
CREATE TABLE `c` (`id` int PRIMARY KEY, `v` int);
SET autocommit=0;
SELECT @@autocommit, @@session.autocommit;
INSERT INTO `c` VALUES (1, 10);
COMMIT;
INSERT INTO `c` VALUES (2, 20);
ROLLBACK;
SELECT `id`, `v` FROM `c` ORDER BY `id`;
SET autocommit=1;
SELECT @@autocommit;
SET autocommit=0;
SELECT @@autocommit;
SELECT @@global.autocommit, @@global.tx_isolation, @@global.unique_checks, @@global.sql_mode;
ROLLBACK;
SET autocommit=1;

-- script: autocommit turned back on commits the open transaction
CREATE TABLE `c` (`id` int PRIMARY KEY);
SET SESSION autocommit = 0;
INSERT INTO `c` VALUES (1);
SET SESSION autocommit = 1;
ROLLBACK;
SELECT COUNT(*) FROM `c`;
SET autocommit = OFF;
INSERT INTO `c` VALUES (2);
SET autocommit = ON;
SELECT @@autocommit;
ROLLBACK;
SELECT COUNT(*) FROM `c`;

-- script: isolation levels as drivers set them
SELECT @@tx_isolation, @@session.tx_isolation;
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT @@tx_isolation;
SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;
SELECT @@tx_isolation;
SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ;
SELECT @@tx_isolation;
SET SESSION tx_isolation = 'READ-UNCOMMITTED';
SELECT @@tx_isolation;
SET SESSION tx_isolation = 'REPEATABLE-READ';
SELECT @@tx_read_only;
SET SESSION TRANSACTION READ ONLY;
SELECT @@tx_read_only;
SET SESSION TRANSACTION READ WRITE;
SELECT @@tx_read_only;

-- script: the transaction_isolation name MariaDB 10.11 does not know
SELECT @@transaction_isolation;

-- script: START TRANSACTION with characteristics
CREATE TABLE `r` (`id` int PRIMARY KEY);
INSERT INTO `r` VALUES (1);
START TRANSACTION READ ONLY;
SELECT COUNT(*) FROM `r`;
INSERT INTO `r` VALUES (2);
COMMIT;
START TRANSACTION READ WRITE;
INSERT INTO `r` VALUES (3);
COMMIT;
START TRANSACTION WITH CONSISTENT SNAPSHOT;
SELECT COUNT(*) FROM `r`;
COMMIT;
START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY;
SELECT `id` FROM `r` ORDER BY `id`;
COMMIT WORK;
BEGIN WORK;
ROLLBACK WORK;

-- script: DDL commits the open transaction
CREATE TABLE `a` (`id` int PRIMARY KEY);
BEGIN;
INSERT INTO `a` VALUES (1);
CREATE TABLE `b` (`id` int PRIMARY KEY);
ROLLBACK;
SELECT COUNT(*) FROM `a`;
BEGIN;
INSERT INTO `a` VALUES (2);
ALTER TABLE `b` ADD COLUMN `x` int;
ROLLBACK;
SELECT COUNT(*) FROM `a`;
BEGIN;
INSERT INTO `a` VALUES (3);
CREATE INDEX `ix` ON `b` (`x`);
ROLLBACK;
SELECT COUNT(*) FROM `a`;
BEGIN;
INSERT INTO `a` VALUES (4);
DROP TABLE `b`;
ROLLBACK;
SELECT `id` FROM `a` ORDER BY `id`;

-- script: TRUNCATE and RENAME commit the open transaction
CREATE TABLE `a` (`id` int PRIMARY KEY);
CREATE TABLE `b` (`id` int PRIMARY KEY);
INSERT INTO `b` VALUES (9);
START TRANSACTION;
INSERT INTO `a` VALUES (1);
TRUNCATE TABLE `b`;
ROLLBACK;
SELECT COUNT(*) FROM `a`;
SELECT COUNT(*) FROM `b`;
START TRANSACTION;
INSERT INTO `a` VALUES (2);
RENAME TABLE `b` TO `b2`;
ROLLBACK;
SELECT COUNT(*) FROM `a`;

-- script: LOCK TABLES commits the open transaction
CREATE TABLE `a` (`id` int PRIMARY KEY);
BEGIN;
INSERT INTO `a` VALUES (1);
LOCK TABLES `a` WRITE;
UNLOCK TABLES;
ROLLBACK;
SELECT COUNT(*) FROM `a`;

-- script: a temporary table inside a transaction does not commit it
CREATE TABLE `a` (`id` int PRIMARY KEY);
BEGIN;
INSERT INTO `a` VALUES (1);
CREATE TEMPORARY TABLE `tmp` (`id` int);
INSERT INTO `tmp` VALUES (5);
ROLLBACK;
SELECT COUNT(*) FROM `a`;
DROP TEMPORARY TABLE `tmp`;

-- script: locking reads
CREATE TABLE `jobs` (`id` int NOT NULL PRIMARY KEY, `state` varchar(10) NOT NULL);
INSERT INTO `jobs` VALUES (1, 'new'), (2, 'new'), (3, 'done');
START TRANSACTION;
SELECT `id`, `state` FROM `jobs` WHERE `state` = 'new' ORDER BY `id` LIMIT 1 FOR UPDATE;
SELECT `id` FROM `jobs` WHERE `id` = 2 LOCK IN SHARE MODE;
SELECT `id` FROM `jobs` WHERE `id` = 1 FOR UPDATE NOWAIT;
SELECT `id` FROM `jobs` WHERE `state` = 'new' ORDER BY `id` FOR UPDATE SKIP LOCKED;
UPDATE `jobs` SET `state` = 'running' WHERE `id` = 1;
COMMIT;
SELECT `id`, `state` FROM `jobs` ORDER BY `id`;

-- script: ROW_COUNT and LAST_INSERT_ID after each kind of statement
CREATE TABLE `p` (`id` int NOT NULL AUTO_INCREMENT PRIMARY KEY, `n` int NOT NULL DEFAULT 0);
SELECT ROW_COUNT();
INSERT INTO `p` (`n`) VALUES (1), (2), (3);
SELECT LAST_INSERT_ID(), ROW_COUNT();
UPDATE `p` SET `n` = `n` WHERE `id` = 1;
SELECT ROW_COUNT();
DELETE FROM `p` WHERE `id` > 1;
SELECT ROW_COUNT();
SELECT `id` FROM `p`;
SELECT ROW_COUNT();
INSERT INTO `p` (`id`, `n`) VALUES (1, 5) ON DUPLICATE KEY UPDATE `n` = VALUES(`n`);
SELECT ROW_COUNT();
REPLACE INTO `p` (`id`, `n`) VALUES (1, 6);
SELECT ROW_COUNT(), LAST_INSERT_ID();
INSERT IGNORE INTO `p` (`id`, `n`) VALUES (1, 7);
SELECT ROW_COUNT();
SELECT LAST_INSERT_ID(42);
SELECT LAST_INSERT_ID();
BEGIN;
INSERT INTO `p` (`n`) VALUES (8);
ROLLBACK;
SELECT ROW_COUNT(), LAST_INSERT_ID();

-- script: XA transactions
CREATE TABLE `x` (`id` int PRIMARY KEY);
XA START 'trx1';
INSERT INTO `x` VALUES (1);
XA END 'trx1';
XA PREPARE 'trx1';
XA COMMIT 'trx1';
XA RECOVER;
SELECT COUNT(*) FROM `x`;

-- script: session checks switched off for a load
SET SESSION foreign_key_checks = 0;
SET SESSION unique_checks = 0;
SELECT @@foreign_key_checks, @@unique_checks;
CREATE TABLE `child` (`id` int PRIMARY KEY, `parent` int, KEY (`parent`));
INSERT INTO `child` VALUES (1, 10);
SET SESSION foreign_key_checks = 1;
SET SESSION unique_checks = 1;
SELECT @@foreign_key_checks, @@unique_checks;
SELECT `id`, `parent` FROM `child`;

-- script: safe updates
CREATE TABLE `s` (`id` int PRIMARY KEY, `v` int);
INSERT INTO `s` VALUES (1, 1), (2, 2);
SET SESSION sql_safe_updates = 1;
SELECT @@sql_safe_updates;
UPDATE `s` SET `v` = 0;
DELETE FROM `s`;
UPDATE `s` SET `v` = 5 WHERE `id` = 1;
SET SESSION sql_safe_updates = 0;
DELETE FROM `s`;
SELECT COUNT(*) FROM `s`;

-- script: the connection id and user variables across a transaction
SELECT CONNECTION_ID() > 0;
CREATE TABLE `acct` (`id` int PRIMARY KEY, `bal` int NOT NULL);
INSERT INTO `acct` VALUES (1, 100), (2, 50);
START TRANSACTION;
SELECT @b := `bal` FROM `acct` WHERE `id` = 1 FOR UPDATE;
SET @amount = 30;
UPDATE `acct` SET `bal` = @b - @amount WHERE `id` = 1;
UPDATE `acct` SET `bal` = `bal` + @amount WHERE `id` = 2;
ROLLBACK;
SELECT @b, @amount;
SELECT `id`, `bal` FROM `acct` ORDER BY `id`;

-- script: KILL of a connection that does not exist
KILL 999999;
KILL QUERY 999999;

-- script: whether a transaction is open
SELECT @@in_transaction;
START TRANSACTION;
SELECT @@in_transaction;
COMMIT;
SELECT @@in_transaction;

-- script: whether a transaction is open, through its statements and a savepoint
CREATE TABLE `it` (`id` int PRIMARY KEY);
BEGIN;
SELECT 1;
SELECT @@in_transaction;
INSERT INTO `it` VALUES (1);
SAVEPOINT s;
SELECT @@in_transaction, @@session.in_transaction;
ROLLBACK;
SELECT @@in_transaction;
START TRANSACTION READ ONLY;
SELECT @@in_transaction;
COMMIT;
CREATE TABLE `it2` (`a` int);
SELECT @@in_transaction;

-- script: an INSERT … SELECT that fails part-way inserts nothing
CREATE TABLE `src` (`id` int NOT NULL, `v` varchar(5));
CREATE TABLE `dst` (`id` int NOT NULL PRIMARY KEY, `v` varchar(5));
INSERT INTO `src` VALUES (1, 'a'), (2, 'b'), (1, 'c');
START TRANSACTION;
INSERT INTO `dst` VALUES (9, 'z');
INSERT INTO `dst` (`id`, `v`) SELECT `id`, `v` FROM `src` ORDER BY `v`;
SELECT ROW_COUNT();
COMMIT;
SELECT `id`, `v` FROM `dst` ORDER BY `id`;

-- script: an ORM's upsert inside a transaction
CREATE TABLE `wp_options` (`option_id` bigint(20) unsigned NOT NULL AUTO_INCREMENT, `option_name` varchar(191) COLLATE utf8mb4_unicode_520_ci NOT NULL DEFAULT '', `option_value` longtext COLLATE utf8mb4_unicode_520_ci NOT NULL, `autoload` varchar(20) COLLATE utf8mb4_unicode_520_ci NOT NULL DEFAULT 'yes', PRIMARY KEY (`option_id`), UNIQUE KEY `option_name` (`option_name`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci;
START TRANSACTION;
INSERT INTO `wp_options` (`option_name`, `option_value`, `autoload`) VALUES ('siteurl', 'http://a', 'yes') ON DUPLICATE KEY UPDATE `option_name` = VALUES(`option_name`), `option_value` = VALUES(`option_value`), `autoload` = VALUES(`autoload`);
SELECT LAST_INSERT_ID(), ROW_COUNT();
INSERT INTO `wp_options` (`option_name`, `option_value`, `autoload`) VALUES ('siteurl', 'http://b', 'yes') ON DUPLICATE KEY UPDATE `option_name` = VALUES(`option_name`), `option_value` = VALUES(`option_value`), `autoload` = VALUES(`autoload`);
SELECT ROW_COUNT();
SAVEPOINT `before_blog`;
INSERT INTO `wp_options` (`option_name`, `option_value`) VALUES ('blogname', 'x');
ROLLBACK TO SAVEPOINT `before_blog`;
COMMIT;
SELECT `option_id`, `option_name`, `option_value` FROM `wp_options` ORDER BY `option_id`;
INSERT INTO `wp_options` (`option_name`, `option_value`) VALUES ('blogname', 'y');
SELECT LAST_INSERT_ID();

-- script: a compute node's pushed-down transaction
CREATE TABLE `t_order` (`id` bigint NOT NULL, `user_id` bigint NOT NULL, `amount` decimal(12,2) NOT NULL, `gmt_create` datetime NOT NULL, PRIMARY KEY (`id`), KEY `k_user` (`user_id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
SET autocommit=0;
INSERT INTO `t_order` (`id`, `user_id`, `amount`, `gmt_create`) VALUES (1, 10, 5.50, '2024-01-01 10:00:00'), (2, 10, 7.25, '2024-01-02 11:00:00');
SELECT `id`, `amount` FROM `t_order` WHERE `user_id` = 10 ORDER BY `id` FOR UPDATE;
UPDATE `t_order` SET `amount` = `amount` - 1.00 WHERE `id` = 1 AND `amount` >= 1.00;
DELETE FROM `t_order` WHERE `id` = 2;
COMMIT;
INSERT INTO `t_order` VALUES (3, 11, 1.00, '2024-01-03 00:00:00');
ROLLBACK;
SET autocommit=1;
SELECT `id`, `user_id`, `amount`, `gmt_create` FROM `t_order` ORDER BY `id`;

-- script: a deadlock-free retry pattern with user variables
CREATE TABLE `counters` (`name` varchar(20) NOT NULL PRIMARY KEY, `n` bigint unsigned NOT NULL DEFAULT 0);
INSERT INTO `counters` VALUES ('hits', 0);
BEGIN;
UPDATE `counters` SET `n` = LAST_INSERT_ID(`n` + 1) WHERE `name` = 'hits';
SELECT LAST_INSERT_ID();
COMMIT;
SET @n := (SELECT `n` FROM `counters` WHERE `name` = 'hits');
SELECT @n;

-- script: a read-only session refuses writes
CREATE TABLE `ro` (`id` int PRIMARY KEY);
SET SESSION TRANSACTION READ ONLY;
INSERT INTO `ro` VALUES (1);
SELECT COUNT(*) FROM `ro`;

-- script: a read-only session refuses DDL and locking reads, and writes in a READ WRITE transaction
CREATE TABLE `rw` (`id` int PRIMARY KEY);
INSERT INTO `rw` VALUES (1);
CREATE TEMPORARY TABLE `scratch` (`a` int);
SET SESSION tx_read_only = 1;
SELECT @@tx_read_only, @@session.tx_read_only;
UPDATE `rw` SET `id` = 2;
DELETE FROM `rw`;
REPLACE INTO `rw` VALUES (1);
SELECT * FROM `rw` FOR UPDATE;
SELECT * FROM `rw` LOCK IN SHARE MODE;
CREATE TABLE `other` (`a` int);
ALTER TABLE `rw` ADD COLUMN `b` int;
CREATE INDEX `rw_id` ON `rw` (`id`);
DROP TABLE `rw`;
TRUNCATE TABLE `rw`;
CREATE TEMPORARY TABLE `scratch2` (`a` int);
CREATE VIEW `v` AS SELECT 1;
BEGIN;
INSERT INTO `rw` VALUES (5);
SELECT @@tx_read_only;
COMMIT;
START TRANSACTION READ WRITE;
INSERT INTO `rw` VALUES (6);
COMMIT;
SET autocommit = 0;
INSERT INTO `rw` VALUES (7);
ROLLBACK;
SET autocommit = 1;
SET SESSION TRANSACTION READ WRITE;
INSERT INTO `rw` VALUES (8);
SET SESSION tx_read_only = DEFAULT;
SELECT @@tx_read_only;
SET SESSION tx_read_only = 2;
SELECT * FROM `rw` ORDER BY `id`;

-- script: sql_select_limit cuts a query without a LIMIT of its own at the top
CREATE TABLE `lim` (`id` int PRIMARY KEY, `g` int);
INSERT INTO `lim` VALUES (1, 1), (2, 1), (3, 2), (4, 2), (5, 3);
SET SESSION sql_select_limit = 2;
SELECT @@sql_select_limit;
SELECT `id` FROM `lim` ORDER BY `id` DESC;
SELECT `id` FROM `lim` ORDER BY `id` LIMIT 3;
SELECT `id` FROM `lim` ORDER BY `id` LIMIT 1;
SELECT * FROM (SELECT `id` FROM `lim` ORDER BY `id`) AS `x` ORDER BY `id`;
SELECT COUNT(*) FROM (SELECT `id` FROM `lim`) AS `x`;
SELECT `g`, COUNT(*) FROM `lim` GROUP BY `g` ORDER BY `g`;
SELECT `id` FROM `lim` WHERE `id` < 3 UNION SELECT 9 ORDER BY 1;
(SELECT `id` FROM `lim` ORDER BY `id` LIMIT 1) UNION ALL (SELECT `id` FROM `lim` ORDER BY `id` LIMIT 4);
SELECT `id` FROM `lim` WHERE `id` IN (SELECT `id` FROM `lim` WHERE `g` = 2) ORDER BY `id`;
INSERT INTO `lim` SELECT `id` + 10, `g` FROM `lim`;
SELECT COUNT(*) FROM `lim`;
SET SESSION sql_select_limit = 0;
SELECT `id` FROM `lim`;
SET SESSION sql_select_limit = DEFAULT;
SELECT @@sql_select_limit;
SELECT COUNT(*) FROM `lim` WHERE `id` > 2;

-- script: safe-update mode runs what MariaDB surely runs and refuses what it surely refuses
CREATE TABLE `sx` (`id` int PRIMARY KEY, `v` int, `u` int UNIQUE, `k` int, KEY `k_key` (`k`));
INSERT INTO `sx` VALUES (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3);
SET SESSION sql_safe_updates = ON;
SELECT @@sql_safe_updates;
UPDATE `sx` SET `v` = 0;
DELETE FROM `sx`;
UPDATE `sx` SET `v` = 0 WHERE `v` = 1;
DELETE FROM `sx` WHERE `v` = 9;
UPDATE `sx` SET `v` = 0 WHERE 1;
DELETE FROM `sx` LIMIT 1;
DELETE FROM `sx` ORDER BY `id` LIMIT 1;
UPDATE `sx` SET `v` = 10 WHERE `id` = 1;
UPDATE `sx` AS `x` SET `v` = 20 WHERE `x`.`u` = 2;
UPDATE `sx` SET `v` = 30 WHERE `id` = '3' AND `v` > 0;
UPDATE `sx` SET `v` = `v` + 1 LIMIT 1;
UPDATE `sx` SET `v` = `v` + 1 WHERE `v` > 100 LIMIT 1;
DELETE FROM `sx` WHERE `v` = 9 LIMIT 1;
DELETE FROM `sx` WHERE `id` = 99;
SELECT * FROM `sx` ORDER BY `id`;
SET SESSION sql_safe_updates = DEFAULT;
SELECT @@sql_safe_updates;
DELETE FROM `sx`;
SELECT COUNT(*) FROM `sx`;

-- script: the mysql client's safe-updates mode
CREATE TABLE `su` (`id` int PRIMARY KEY, `v` int);
INSERT INTO `su` VALUES (1, 1), (2, 2);
SET sql_safe_updates=1, sql_select_limit=1000, max_join_size=1000000;
DELETE FROM `su`;
SELECT COUNT(*) FROM `su`;

-- script: inert session variables beside sql_select_limit
CREATE TABLE `sl` (`id` int PRIMARY KEY);
INSERT INTO `sl` VALUES (1), (2), (3);
SET SESSION net_write_timeout = 600, wait_timeout = 28800;
SET sql_select_limit = DEFAULT;
SELECT COUNT(*) FROM `sl`;
SET sql_select_limit = 2;
SELECT `id` FROM `sl` ORDER BY `id`;

-- script: temporary tables made and dropped inside transactions outlive their ROLLBACK
CREATE TABLE `a` (`id` int PRIMARY KEY);
BEGIN;
INSERT INTO `a` VALUES (1);
CREATE TEMPORARY TABLE `tmp` (`id` int, KEY (`id`));
INSERT INTO `tmp` VALUES (5);
ROLLBACK;
SELECT COUNT(*) FROM `a`;
SELECT COUNT(*) FROM `tmp`;
INSERT INTO `tmp` VALUES (6);
SELECT * FROM `tmp`;
BEGIN;
DROP TEMPORARY TABLE `tmp`;
ROLLBACK;
SELECT * FROM `tmp`;
CREATE TEMPORARY TABLE `t2` (`x` int AUTO_INCREMENT PRIMARY KEY, `y` varchar(5));
INSERT INTO `t2` (`y`) VALUES ('a');
START TRANSACTION;
INSERT INTO `t2` (`y`) VALUES ('b');
SAVEPOINT s1;
CREATE TEMPORARY TABLE `t3` (`z` int);
INSERT INTO `t3` VALUES (1);
ROLLBACK TO SAVEPOINT s1;
SELECT COUNT(*) FROM `t3`;
COMMIT;
SELECT * FROM `t2`;
SELECT COUNT(*) FROM `t3`;
DROP TEMPORARY TABLE `t3`;
DROP TEMPORARY TABLE `t2`;

-- script: the mysql client's safe-updates settings kept and read back
CREATE TABLE su (id int PRIMARY KEY, n int);
INSERT INTO su VALUES (1, 1), (2, 2), (3, 3);
SET sql_safe_updates=1, sql_select_limit=1000, max_join_size=1000000;
SELECT @@max_join_size, @@sql_big_selects, @@sql_select_limit, @@sql_safe_updates;
SELECT * FROM su ORDER BY id;
SELECT a.id, b.id FROM su a JOIN su b ON a.n = b.n ORDER BY a.id;
UPDATE su SET n = 5;
UPDATE su SET n = 5 WHERE id = 1;
DELETE FROM su WHERE n = 2;
SET max_join_size = DEFAULT;
SELECT @@max_join_size, @@sql_big_selects;
