-- Application schema scripts: the DDL, catalog reads, session variables and dump headers that
-- frameworks and tools send, as they send them. Each script runs statement by statement on a fresh
-- node (translated) and a fresh MariaDB database, and the outcomes are compared (corpus_sqlite.rs).

-- script: WordPress core schema and install
SET NAMES utf8mb4;
SELECT @@SESSION.sql_mode;
CREATE TABLE wp_users (ID bigint(20) unsigned NOT NULL auto_increment, user_login varchar(60) NOT NULL default '', user_pass varchar(255) NOT NULL default '', user_nicename varchar(50) NOT NULL default '', user_email varchar(100) NOT NULL default '', user_url varchar(100) NOT NULL default '', user_registered datetime NOT NULL default '0000-00-00 00:00:00', user_activation_key varchar(255) NOT NULL default '', user_status int(11) NOT NULL default '0', display_name varchar(250) NOT NULL default '', PRIMARY KEY  (ID), KEY user_login_key (user_login), KEY user_nicename (user_nicename), KEY user_email (user_email)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci;
CREATE TABLE wp_usermeta (umeta_id bigint(20) unsigned NOT NULL auto_increment, user_id bigint(20) unsigned NOT NULL default '0', meta_key varchar(255) default NULL, meta_value longtext, PRIMARY KEY  (umeta_id), KEY user_id (user_id), KEY meta_key (meta_key(191))) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci;
CREATE TABLE wp_options (option_id bigint(20) unsigned NOT NULL auto_increment, option_name varchar(191) NOT NULL default '', option_value longtext NOT NULL, autoload varchar(20) NOT NULL default 'yes', PRIMARY KEY  (option_id), UNIQUE KEY option_name (option_name), KEY autoload (autoload)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci;
CREATE TABLE wp_terms (term_id bigint(20) unsigned NOT NULL auto_increment, name varchar(200) NOT NULL default '', slug varchar(200) NOT NULL default '', term_group bigint(10) NOT NULL default 0, PRIMARY KEY  (term_id), KEY slug (slug(191)), KEY name (name(191))) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci;
CREATE TABLE wp_term_taxonomy (term_taxonomy_id bigint(20) unsigned NOT NULL auto_increment, term_id bigint(20) unsigned NOT NULL default 0, taxonomy varchar(32) NOT NULL default '', description longtext NOT NULL, parent bigint(20) unsigned NOT NULL default 0, count bigint(20) NOT NULL default 0, PRIMARY KEY  (term_taxonomy_id), UNIQUE KEY term_id_taxonomy (term_id,taxonomy), KEY taxonomy (taxonomy)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci;
CREATE TABLE wp_term_relationships (object_id bigint(20) unsigned NOT NULL default 0, term_taxonomy_id bigint(20) unsigned NOT NULL default 0, term_order int(11) NOT NULL default 0, PRIMARY KEY  (object_id,term_taxonomy_id), KEY term_taxonomy_id (term_taxonomy_id)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci;
CREATE TABLE wp_posts (ID bigint(20) unsigned NOT NULL auto_increment, post_author bigint(20) unsigned NOT NULL default '0', post_date datetime NOT NULL default '0000-00-00 00:00:00', post_date_gmt datetime NOT NULL default '0000-00-00 00:00:00', post_content longtext NOT NULL, post_title text NOT NULL, post_excerpt text NOT NULL, post_status varchar(20) NOT NULL default 'publish', comment_status varchar(20) NOT NULL default 'open', ping_status varchar(20) NOT NULL default 'open', post_password varchar(255) NOT NULL default '', post_name varchar(200) NOT NULL default '', to_ping text NOT NULL, pinged text NOT NULL, post_modified datetime NOT NULL default '0000-00-00 00:00:00', post_modified_gmt datetime NOT NULL default '0000-00-00 00:00:00', post_content_filtered longtext NOT NULL, post_parent bigint(20) unsigned NOT NULL default '0', guid varchar(255) NOT NULL default '', menu_order int(11) NOT NULL default '0', post_type varchar(20) NOT NULL default 'post', post_mime_type varchar(100) NOT NULL default '', comment_count bigint(20) NOT NULL default '0', PRIMARY KEY  (ID), KEY post_name (post_name(191)), KEY type_status_date (post_type,post_status,post_date,ID), KEY post_parent (post_parent), KEY post_author (post_author)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci;
INSERT INTO `wp_options` (`option_name`, `option_value`, `autoload`) VALUES ('siteurl', 'http://example.com', 'yes'), ('home', 'http://example.com', 'yes'), ('blogname', 'My Site', 'yes'), ('db_version', '57155', 'yes'), ('cron', 'a:0:{}', 'yes');
INSERT INTO `wp_users` (`user_login`, `user_pass`, `user_nicename`, `user_email`, `user_registered`, `display_name`) VALUES ('admin', '$P$Babc', 'admin', 'admin@example.com', '2024-05-01 10:00:00', 'admin');
INSERT INTO `wp_usermeta` (`user_id`, `meta_key`, `meta_value`) VALUES (1, 'nickname', 'admin'), (1, 'wp_capabilities', 'a:1:{s:13:\"administrator\";b:1;}');
INSERT INTO `wp_posts` (`post_author`, `post_date`, `post_date_gmt`, `post_content`, `post_title`, `post_excerpt`, `post_name`, `to_ping`, `pinged`, `post_modified`, `post_modified_gmt`, `post_content_filtered`, `guid`) VALUES (1, '2024-05-01 10:00:00', '2024-05-01 10:00:00', 'Welcome to WordPress.', 'Hello world!', '', 'hello-world', '', '', '2024-05-01 10:00:00', '2024-05-01 10:00:00', '', 'http://example.com/?p=1');
SELECT option_value FROM wp_options WHERE option_name = 'siteurl' LIMIT 1;
SELECT option_name, option_value FROM wp_options WHERE autoload = 'yes';
SELECT * FROM wp_users WHERE user_login = 'admin' LIMIT 1;
SELECT user_id, meta_key, meta_value FROM wp_usermeta WHERE user_id IN (1) ORDER BY umeta_id ASC;
SELECT wp_posts.ID FROM wp_posts WHERE 1=1 AND wp_posts.post_type = 'post' AND ((wp_posts.post_status = 'publish')) ORDER BY wp_posts.post_date DESC LIMIT 0, 10;
SELECT post_date, post_modified, post_date_gmt FROM wp_posts WHERE ID = 1;
SHOW CREATE TABLE wp_usermeta;
DESCRIBE wp_posts;
SHOW INDEX FROM wp_usermeta;

-- script: WordPress dbDelta reads the schema
CREATE TABLE wp_comments (comment_ID bigint(20) unsigned NOT NULL auto_increment, comment_post_ID bigint(20) unsigned NOT NULL default '0', comment_author tinytext NOT NULL, comment_date datetime NOT NULL default '0000-00-00 00:00:00', comment_content text NOT NULL, comment_karma int(11) NOT NULL default '0', comment_approved varchar(20) NOT NULL default '1', comment_parent bigint(20) unsigned NOT NULL default '0', PRIMARY KEY  (comment_ID), KEY comment_post_ID (comment_post_ID), KEY comment_approved_date_gmt (comment_approved,comment_date), KEY comment_parent (comment_parent)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci;
SHOW TABLES LIKE 'wp\_comments';
DESCRIBE wp_comments;
SHOW INDEX FROM wp_comments;
SHOW FULL COLUMNS FROM `wp_comments`;
SELECT @@character_set_database, @@collation_database;

-- script: Django migrations
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT @@SQL_MODE;
SELECT @@sql_auto_is_null;
SELECT @@default_storage_engine;
SELECT @@lower_case_table_names;
SHOW FULL TABLES;
CREATE TABLE `django_migrations` (`id` bigint AUTO_INCREMENT NOT NULL PRIMARY KEY, `app` varchar(255) NOT NULL, `name` varchar(255) NOT NULL, `applied` datetime(6) NOT NULL);
CREATE TABLE `django_content_type` (`id` integer AUTO_INCREMENT NOT NULL PRIMARY KEY, `name` varchar(100) NOT NULL, `app_label` varchar(100) NOT NULL, `model` varchar(100) NOT NULL);
ALTER TABLE `django_content_type` ADD CONSTRAINT `django_content_type_app_label_model_76bd3d3b_uniq` UNIQUE (`app_label`, `model`);
CREATE TABLE `auth_permission` (`id` integer AUTO_INCREMENT NOT NULL PRIMARY KEY, `name` varchar(50) NOT NULL, `content_type_id` integer NOT NULL, `codename` varchar(100) NOT NULL);
ALTER TABLE `auth_permission` ADD CONSTRAINT `auth_permission_content_type_id_codename_01ab375a_uniq` UNIQUE (`content_type_id`, `codename`);
ALTER TABLE `auth_permission` ADD CONSTRAINT `auth_permission_content_type_id_2f476e4b_fk_django_co` FOREIGN KEY (`content_type_id`) REFERENCES `django_content_type` (`id`);
ALTER TABLE `django_content_type` MODIFY `name` varchar(100) NULL;
ALTER TABLE `django_content_type` DROP COLUMN `name`;
ALTER TABLE `auth_permission` MODIFY `name` varchar(255) NOT NULL;
CREATE TABLE `auth_user` (`id` integer AUTO_INCREMENT NOT NULL PRIMARY KEY, `password` varchar(128) NOT NULL, `last_login` datetime(6) NULL, `is_superuser` bool NOT NULL, `username` varchar(150) NOT NULL UNIQUE, `email` varchar(254) NOT NULL, `is_staff` bool NOT NULL, `is_active` bool NOT NULL, `date_joined` datetime(6) NOT NULL);
INSERT INTO `django_migrations` (`app`, `name`, `applied`) VALUES ('contenttypes', '0001_initial', '2024-05-01 10:00:00.123456');
INSERT INTO `django_content_type` (`app_label`, `model`) VALUES ('auth', 'permission'), ('auth', 'user');
INSERT INTO `auth_permission` (`name`, `content_type_id`, `codename`) VALUES ('Can add permission', 1, 'add_permission');
INSERT INTO `auth_permission` (`name`, `content_type_id`, `codename`) VALUES ('Can add permission', 1, 'add_permission');
INSERT INTO `auth_permission` (`name`, `content_type_id`, `codename`) VALUES ('Can add thing', 9, 'add_thing');
SELECT `django_migrations`.`id`, `django_migrations`.`app`, `django_migrations`.`name`, `django_migrations`.`applied` FROM `django_migrations`;
SELECT `django_content_type`.`id`, `django_content_type`.`app_label`, `django_content_type`.`model` FROM `django_content_type` WHERE (`django_content_type`.`app_label` = 'auth' AND `django_content_type`.`model` = 'user') LIMIT 21;
SHOW CREATE TABLE `auth_permission`;

-- script: Django introspection
CREATE TABLE `app_item` (`id` bigint AUTO_INCREMENT NOT NULL PRIMARY KEY, `title` varchar(200) NOT NULL, `price` numeric(10, 2) NOT NULL, `qty` integer UNSIGNED NOT NULL CHECK (`qty` >= 0), `data` json NOT NULL, `flag` bool NOT NULL, `created` datetime(6) NOT NULL);
CREATE INDEX `app_item_title_4a1c2b_idx` ON `app_item` (`title`);
SELECT table_name, table_type, table_comment FROM information_schema.tables WHERE table_schema = DATABASE();
SELECT column_name, data_type, character_maximum_length, numeric_precision, numeric_scale, extra, column_default, CASE WHEN collation_name = @@collation_database THEN NULL ELSE collation_name END AS collation_name, column_comment FROM information_schema.columns WHERE table_name = 'app_item' AND table_schema = DATABASE() ORDER BY ordinal_position;
SELECT column_name, referenced_column_name, referenced_table_name FROM information_schema.key_column_usage WHERE table_name = 'app_item' AND table_schema = DATABASE() AND referenced_table_name IS NOT NULL AND referenced_column_name IS NOT NULL;
SELECT engine FROM information_schema.tables WHERE table_name = 'app_item' AND table_schema = DATABASE();
SELECT kc.`constraint_name`, kc.`column_name`, kc.`referenced_table_name`, kc.`referenced_column_name`, c.`constraint_type` FROM information_schema.key_column_usage AS kc, information_schema.table_constraints AS c WHERE kc.table_schema = DATABASE() AND c.table_schema = kc.table_schema AND c.constraint_name = kc.constraint_name AND c.constraint_type != 'CHECK' AND c.table_name = kc.table_name AND kc.table_name = 'app_item' ORDER BY kc.`ordinal_position`;
SHOW INDEX FROM `app_item`;
INSERT INTO `app_item` (`title`, `price`, `qty`, `data`, `flag`, `created`) VALUES ('pen', '1.50', 3, '{"a": 1}', 1, '2024-05-01 10:00:00.000000');
INSERT INTO `app_item` (`title`, `price`, `qty`, `data`, `flag`, `created`) VALUES ('bad', '1.50', 3, '{not json', 1, '2024-05-01 10:00:00.000000');
SELECT `id`, `title`, `price`, `qty`, `data`, `flag`, `created` FROM `app_item`;

-- script: Rails migrations
SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci;
SET SQL_MODE = CONCAT(@@sql_mode, ',STRICT_ALL_TABLES'), @@SESSION.sql_auto_is_null = 0, @@SESSION.wait_timeout = 2147483;
SELECT @@sql_mode;
CREATE TABLE `schema_migrations` (`version` varchar(255) NOT NULL PRIMARY KEY);
CREATE TABLE `ar_internal_metadata` (`key` varchar(255) NOT NULL PRIMARY KEY, `value` varchar(255), `created_at` datetime(6) NOT NULL, `updated_at` datetime(6) NOT NULL);
CREATE TABLE `users` (`id` bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, `email` varchar(255) DEFAULT '' NOT NULL, `admin` tinyint(1) DEFAULT FALSE NOT NULL, `created_at` datetime(6) NOT NULL, `updated_at` datetime(6) NOT NULL);
CREATE UNIQUE INDEX `index_users_on_email` ON `users` (`email`);
CREATE TABLE `articles` (`id` bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, `title` varchar(255), `body` text, `user_id` bigint NOT NULL, `created_at` datetime(6) NOT NULL, `updated_at` datetime(6) NOT NULL, INDEX `index_articles_on_user_id` (`user_id`), CONSTRAINT `fk_rails_3d31dad1cc` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`));
ALTER TABLE `articles` ADD `published` tinyint(1) DEFAULT 0 NOT NULL;
ALTER TABLE `articles` CHANGE `title` `title` varchar(200) NOT NULL;
INSERT INTO `schema_migrations` (`version`) VALUES ('20240501100000'), ('20240501100001');
INSERT INTO `ar_internal_metadata` (`key`, `value`, `created_at`, `updated_at`) VALUES ('environment', 'development', '2024-05-01 10:00:00.5', '2024-05-01 10:00:00.5');
SELECT `schema_migrations`.`version` FROM `schema_migrations` ORDER BY `schema_migrations`.`version` ASC;
SHOW FULL FIELDS FROM `articles`;
SHOW KEYS FROM `articles`;
SHOW CREATE TABLE `articles`;
SELECT `ar_internal_metadata`.* FROM `ar_internal_metadata` WHERE `ar_internal_metadata`.`key` = 'environment' LIMIT 1;
SELECT table_name FROM information_schema.tables WHERE table_schema = database() AND table_name = 'users' AND table_type = 'BASE TABLE';
SELECT CONSTRAINT_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('articles', 'users') ORDER BY TABLE_NAME, CONSTRAINT_NAME;
SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, ORDINAL_POSITION, POSITION_IN_UNIQUE_CONSTRAINT, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION;
SELECT fk.referenced_table_name AS 'to_table', fk.referenced_column_name AS 'primary_key', fk.column_name AS 'column', fk.constraint_name AS 'name', rc.update_rule AS 'on_update', rc.delete_rule AS 'on_delete' FROM information_schema.referential_constraints rc JOIN information_schema.key_column_usage fk USING (constraint_schema, constraint_name) WHERE fk.referenced_column_name IS NOT NULL AND fk.table_schema = database() AND fk.table_name = 'articles' AND rc.constraint_schema = database() AND rc.table_name = 'articles';

-- script: Laravel migrations
set names 'utf8mb4' collate 'utf8mb4_unicode_ci';
set session sql_mode='ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';
select @@sql_mode;
create table `migrations` (`id` int unsigned not null auto_increment primary key, `migration` varchar(255) not null, `batch` int not null) default character set utf8mb4 collate 'utf8mb4_unicode_ci';
create table `users` (`id` bigint unsigned not null auto_increment primary key, `name` varchar(255) not null, `email` varchar(255) not null, `email_verified_at` timestamp null, `password` varchar(255) not null, `remember_token` varchar(100) null, `created_at` timestamp null, `updated_at` timestamp null) default character set utf8mb4 collate 'utf8mb4_unicode_ci';
alter table `users` add unique `users_email_unique`(`email`);
create table `posts` (`id` bigint unsigned not null auto_increment primary key, `user_id` bigint unsigned not null, `title` varchar(255) not null, `views` int unsigned not null default '0', `meta` json null, `is_published` tinyint(1) not null default '0', `created_at` timestamp null, `updated_at` timestamp null) default character set utf8mb4 collate 'utf8mb4_unicode_ci';
alter table `posts` add constraint `posts_user_id_foreign` foreign key (`user_id`) references `users` (`id`) on delete cascade;
alter table `posts` add index `posts_title_index`(`title`);
alter table `posts` add `slug` varchar(255) null after `title`;
alter table `posts` alter column `views` drop default;
insert into `migrations` (`migration`, `batch`) values ('2014_10_12_000000_create_users_table', 1);
select max(`batch`) as aggregate from `migrations`;
select * from information_schema.tables where table_schema = database() and table_name = 'posts' and table_type = 'BASE TABLE';
select column_name as `name`, data_type as `type_name`, column_type as `type`, collation_name as `collation`, is_nullable as `nullable`, column_default as `default`, column_comment as `comment`, extra as `extra` from information_schema.columns where table_schema = database() and table_name = 'posts' order by ordinal_position asc;
select index_name as `name`, group_concat(column_name order by seq_in_index) as `columns`, index_type as `type`, not non_unique as `unique` from information_schema.statistics where table_schema = database() and table_name = 'posts' group by index_name, index_type, non_unique;
show create table `posts`;
insert into `users` (`name`, `email`, `password`, `updated_at`, `created_at`) values ('Ann', 'ann@example.com', 'x', '2024-05-01 10:00:00', '2024-05-01 10:00:00');
insert into `posts` (`user_id`, `title`, `slug`, `views`, `created_at`) values (1, 'Hi', 'hi', 0, '2024-05-01 10:00:00');
insert into `posts` (`user_id`, `title`) values (1, 'No views');
delete from `users` where `id` = 1;
select count(*) as aggregate from `posts`;

-- script: a mysqldump restore
/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;
/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;
/*!40101 SET NAMES utf8mb4 */;
/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;
/*!40103 SET TIME_ZONE='+00:00' */;
/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;
/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;
DROP TABLE IF EXISTS `customers`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `customers` (  `id` int(11) NOT NULL AUTO_INCREMENT,  `name` varchar(100) NOT NULL,  `email` varchar(191) DEFAULT NULL,  `created_at` timestamp NOT NULL DEFAULT current_timestamp(),  PRIMARY KEY (`id`),  UNIQUE KEY `email` (`email`)) ENGINE=InnoDB AUTO_INCREMENT=3 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
/*!40101 SET character_set_client = @saved_cs_client */;
LOCK TABLES `customers` WRITE;
/*!40000 ALTER TABLE `customers` DISABLE KEYS */;
INSERT INTO `customers` VALUES (1,'Ann','ann@example.com','2024-01-02 03:04:05'),(2,'Bob O\'Neil',NULL,'2024-02-03 04:05:06');
/*!40000 ALTER TABLE `customers` ENABLE KEYS */;
UNLOCK TABLES;
DROP TABLE IF EXISTS `orders`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `orders` (  `id` bigint(20) unsigned NOT NULL AUTO_INCREMENT,  `customer_id` int(11) NOT NULL,  `total` decimal(10,2) NOT NULL DEFAULT 0.00,  `status` enum('new','paid','shipped') NOT NULL DEFAULT 'new',  `note` text DEFAULT NULL,  PRIMARY KEY (`id`),  KEY `customer_id` (`customer_id`),  CONSTRAINT `orders_ibfk_1` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`)) ENGINE=InnoDB AUTO_INCREMENT=4 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
/*!40101 SET character_set_client = @saved_cs_client */;
LOCK TABLES `orders` WRITE;
/*!40000 ALTER TABLE `orders` DISABLE KEYS */;
INSERT INTO `orders` VALUES (1,1,12.50,'paid','first\nline'),(2,2,0.00,'new',NULL),(3,1,99.99,'shipped','x'),(0,1,5.00,'new','zero id');
/*!40000 ALTER TABLE `orders` ENABLE KEYS */;
UNLOCK TABLES;
/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;
/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;
/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;
/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;
/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;
SELECT @@sql_mode, @@time_zone, @@foreign_key_checks, @@unique_checks, @@character_set_client;
SELECT id, customer_id, total, status, note FROM orders ORDER BY id;
SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'orders';
SHOW CREATE TABLE `orders`;

-- script: mysqldump reads before dumping
SELECT @@sql_mode;
SHOW VARIABLES LIKE 'gtid\_mode';
SELECT LOGFILE_GROUP_NAME, FILE_NAME, TOTAL_EXTENTS, INITIAL_SIZE, ENGINE, EXTRA FROM INFORMATION_SCHEMA.FILES WHERE FILE_TYPE = 'UNDO LOG' AND FILE_NAME IS NOT NULL LIMIT 0;
CREATE TABLE `t` (`id` int(11) NOT NULL, `v` varchar(10) DEFAULT NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
SHOW TABLES LIKE 't';
SHOW TABLE STATUS LIKE 't';
SET SQL_QUOTE_SHOW_CREATE=1;
SET SESSION character_set_results = 'binary';
SHOW CREATE TABLE `t`;
SET SESSION character_set_results = 'utf8mb4';
SHOW FIELDS FROM `t`;
SELECT /*!40001 SQL_NO_CACHE */ * FROM `t`;
SHOW TRIGGERS LIKE 't';

-- script: column types applications use
CREATE TABLE kinds (id int NOT NULL AUTO_INCREMENT PRIMARY KEY, y YEAR, y4 YEAR(4) NOT NULL DEFAULT 2000, b1 BIT(1) NOT NULL DEFAULT b'0', b8 BIT(8), flag BOOLEAN NOT NULL DEFAULT TRUE, t1 TINYINT(1) DEFAULT NULL, mt MEDIUMTEXT, vb VARBINARY(16), bl BLOB, d DOUBLE, f FLOAT(7,2), dec1 DECIMAL(20,6), big BIGINT UNSIGNED, j JSON, ts TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO kinds (y, b1, b8, flag, t1, mt, vb, bl, d, f, dec1, big, j, ts) VALUES (2024, b'1', b'10100101', FALSE, 1, 'medium', X'00FF', 'blob', 1.5, 3.14159, 12345.678901, 18446744073709551615, '{"k": [1, 2]}', '2024-05-01 10:00:00');
INSERT INTO kinds (y, big, ts) VALUES (69, 9223372036854775808, '2024-05-01 10:00:00');
INSERT INTO kinds (y, big, ts) VALUES ('05', 9223372036854775807, '2024-05-01 10:00:00');
SELECT id, y, y4, flag, t1, mt, HEX(vb), bl, d, f, dec1, big, j FROM kinds ORDER BY id;
SELECT id, b1 + 0, b8 + 0, HEX(b8), BIN(b8) FROM kinds ORDER BY id;
SELECT big FROM kinds WHERE big > 9223372036854775807 ORDER BY big;
SELECT MAX(big), MIN(big) FROM kinds;
SELECT id FROM kinds WHERE big = 18446744073709551615;
INSERT INTO kinds (y, ts) VALUES (1900, '2024-05-01 10:00:00');
INSERT INTO kinds (big, ts) VALUES (-1, '2024-05-01 10:00:00');
INSERT INTO kinds (j, ts) VALUES ('not json', '2024-05-01 10:00:00');
SHOW CREATE TABLE kinds;
DESCRIBE kinds;
SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'kinds' ORDER BY ORDINAL_POSITION;

-- script: generated columns
CREATE TABLE items (id int NOT NULL PRIMARY KEY, price decimal(10,2) NOT NULL, qty int NOT NULL, total decimal(12,2) AS (price * qty) STORED, label varchar(40) GENERATED ALWAYS AS (CONCAT('item-', id)) VIRTUAL);
INSERT INTO items (id, price, qty) VALUES (1, 2.50, 4), (2, 1.00, 3);
SELECT id, total, label FROM items ORDER BY id;
UPDATE items SET qty = 10 WHERE id = 1;
SELECT id, total FROM items WHERE id = 1;
INSERT INTO items (id, price, qty, total) VALUES (3, 1, 1, 5);
SHOW CREATE TABLE items;

-- script: variables tools read
SELECT @@autocommit;
SELECT @@GLOBAL.sql_mode;
SHOW VARIABLES LIKE 'sql_mode';
SHOW SESSION VARIABLES LIKE 'lower_case_table_names';
SHOW VARIABLES WHERE Variable_name = 'autocommit';
SET @@session.sql_mode = 'TRADITIONAL';
SELECT @@session.sql_mode;
SET sql_mode = '';
SELECT @@sql_mode;
SET SESSION sql_mode = 'no_engine_substitution,NO_AUTO_VALUE_ON_ZERO';
SELECT @@sql_mode;
SET sql_mode = DEFAULT;
SELECT @@sql_mode;
SET time_zone = '+00:00';
SELECT @@session.time_zone;
SELECT @@auto_increment_increment, @@auto_increment_offset;

-- script: views with a definer
CREATE TABLE accounts (id int PRIMARY KEY, name varchar(20), active tinyint(1) NOT NULL DEFAULT 1);
INSERT INTO accounts VALUES (1, 'a', 1), (2, 'b', 0);
CREATE ALGORITHM=UNDEFINED DEFINER=CURRENT_USER() SQL SECURITY DEFINER VIEW `active_accounts` AS SELECT id, name FROM accounts WHERE active = 1;
SELECT * FROM active_accounts;
CREATE OR REPLACE DEFINER=CURRENT_USER VIEW v2 AS SELECT COUNT(*) AS n FROM accounts;
SELECT n FROM v2;
SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME;

-- script: information_schema with reserved-looking aliases
CREATE TABLE people (id int NOT NULL PRIMARY KEY, nick varchar(20) NULL, age int NOT NULL DEFAULT 0);
SELECT COLUMN_NAME AS name, IS_NULLABLE = 'YES' AS isnull, IS_NULLABLE = 'NO' AS notnull FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'people' ORDER BY ORDINAL_POSITION;
SELECT c.COLUMN_NAME AS `column`, c.COLUMN_DEFAULT AS `default`, c.DATA_TYPE AS type, c.COLUMN_KEY AS `key` FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = DATABASE() AND c.TABLE_NAME = 'people' ORDER BY c.ORDINAL_POSITION;
SELECT COUNT(*) AS count FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE();

-- script: temporary tables described
CREATE TEMPORARY TABLE tmp_import (id int NOT NULL, name varchar(30) DEFAULT 'x', amount decimal(8,2), PRIMARY KEY (id));
INSERT INTO tmp_import (id, amount) VALUES (1, 2.5);
DESCRIBE tmp_import;
SHOW COLUMNS FROM tmp_import;
SELECT * FROM tmp_import;
SHOW FULL COLUMNS FROM tmp_import LIKE 'n%';
DROP TEMPORARY TABLE tmp_import;
SELECT * FROM tmp_import;
SHOW FULL COLUMNS FROM tmp_import LIKE 'n%';

-- script: ALTER TABLE forms migrations use
CREATE TABLE `products` (`id` int unsigned NOT NULL AUTO_INCREMENT, `sku` varchar(32) NOT NULL, `price` decimal(10,2) NOT NULL DEFAULT '0.00', PRIMARY KEY (`id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
INSERT INTO `products` (`sku`, `price`) VALUES ('A1', 1.00), ('B2', 2.50);
ALTER TABLE `products` ADD COLUMN `stock` int NOT NULL DEFAULT 5;
ALTER TABLE `products` ADD COLUMN `note` varchar(50) DEFAULT NULL AFTER `sku`;
ALTER TABLE `products` ALTER COLUMN `stock` SET DEFAULT 7;
INSERT INTO `products` (`sku`) VALUES ('C3');
SELECT `id`, `sku`, `note`, `price`, `stock` FROM `products` ORDER BY `id`;
ALTER TABLE `products` ALTER COLUMN `stock` DROP DEFAULT;
INSERT INTO `products` (`sku`) VALUES ('D4');
ALTER TABLE `products` ADD UNIQUE INDEX `products_sku_unique` (`sku`);
ALTER TABLE `products` RENAME COLUMN `note` TO `memo`;
ALTER TABLE `products` DROP INDEX `products_sku_unique`;
ALTER TABLE `products` MODIFY COLUMN `price` decimal(12,3) NOT NULL DEFAULT '0.000';
RENAME TABLE `products` TO `catalog_products`;
SHOW CREATE TABLE `catalog_products`;
SHOW COLUMNS FROM `catalog_products`;
DROP INDEX `nope` ON `catalog_products`;
TRUNCATE TABLE `catalog_products`;
INSERT INTO `catalog_products` (`sku`, `stock`) VALUES ('E5', 1);
SELECT `id`, `sku` FROM `catalog_products`;

-- script: a temporary table hiding a base table
CREATE TABLE `jobs` (`id` int NOT NULL PRIMARY KEY, `payload` text NOT NULL);
CREATE TEMPORARY TABLE `jobs` (`id` bigint unsigned NOT NULL, `state` varchar(10) NOT NULL DEFAULT 'new');
SHOW COLUMNS FROM `jobs`;
SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'jobs' ORDER BY ORDINAL_POSITION;
DROP TEMPORARY TABLE `jobs`;
DESCRIBE `jobs`;

-- script: names listed in MariaDB's orders
CREATE TABLE `articles` (`id` int NOT NULL PRIMARY KEY);
CREATE TABLE `ar_x` (`id` int NOT NULL PRIMARY KEY);
CREATE TABLE `Zed` (`id` int NOT NULL PRIMARY KEY);
CREATE TABLE `b_` (`id` int NOT NULL PRIMARY KEY);
SHOW TABLES;
SHOW FULL TABLES;
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME;
SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'zed';
SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'Zed';

-- script: a column added in place beside a CHECK and a JSON column
CREATE TABLE `settings` (`id` bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, `qty` int NOT NULL DEFAULT 1 CHECK (`qty` >= 0), `data` json NULL);
INSERT INTO `settings` (`qty`, `data`) VALUES (2, '{"a": 1}');
ALTER TABLE `settings` ADD `label` varchar(20) NOT NULL DEFAULT 'x' AFTER `id`;
SELECT `id`, `label`, `qty`, `data` FROM `settings`;
INSERT INTO `settings` (`qty`) VALUES (-1);
INSERT INTO `settings` (`data`) VALUES ('[1');
INSERT INTO `settings` (`label`, `data`) VALUES ('y', '[1, 2]');
SELECT `id`, `label`, `qty`, `data` FROM `settings` ORDER BY `id`;
SHOW COLUMNS FROM `settings`;

-- script: information_schema read whole
CREATE TABLE `pets` (`id` int NOT NULL AUTO_INCREMENT, `name` varchar(30) NOT NULL DEFAULT '', `kind` varchar(10) DEFAULT NULL, PRIMARY KEY (`id`), KEY `pets_name` (`name`(10))) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
SELECT COLUMN_NAME, ORDINAL_POSITION, COLUMN_DEFAULT, IS_NULLABLE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION, CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_TYPE, COLUMN_KEY, EXTRA, PRIVILEGES, COLUMN_COMMENT, IS_GENERATED, GENERATION_EXPRESSION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'pets' ORDER BY ORDINAL_POSITION;
SELECT NON_UNIQUE, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, COLLATION, SUB_PART, PACKED, NULLABLE, INDEX_TYPE, COMMENT, INDEX_COMMENT, IGNORED FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'pets' ORDER BY INDEX_NAME, SEQ_IN_INDEX;
SELECT TABLE_NAME, TABLE_TYPE, ENGINE, ROW_FORMAT, AUTO_INCREMENT, TABLE_COLLATION, CHECKSUM, CREATE_OPTIONS, TABLE_COMMENT, TEMPORARY FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE();
SHOW INDEX FROM `pets`;
SELECT * FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'pets';

-- script: a primary key added and dropped by ALTER TABLE, as migrations add a pivot table's
create table `role_user` (`role_id` bigint unsigned not null, `user_id` bigint unsigned not null) default character set utf8mb4 collate 'utf8mb4_unicode_ci';
alter table `role_user` add primary key (`role_id`, `user_id`);
insert into `role_user` values (1, 2), (1, 3);
insert into `role_user` values (1, 2);
show create table `role_user`;
show index from `role_user`;
alter table `role_user` drop primary key;
insert into `role_user` values (1, 2);
show create table `role_user`;

-- script: a primary key added after the foreign keys it serves
create table `roles` (`id` bigint unsigned not null auto_increment primary key, `name` varchar(20) not null);
create table `users` (`id` bigint unsigned not null auto_increment primary key, `name` varchar(20) not null);
create table `role_user` (`role_id` bigint unsigned not null, `user_id` bigint unsigned not null);
alter table `role_user` add constraint `role_user_role_id_foreign` foreign key (`role_id`) references `roles` (`id`) on delete cascade;
alter table `role_user` add constraint `role_user_user_id_foreign` foreign key (`user_id`) references `users` (`id`) on delete cascade;
alter table `role_user` add primary key (`role_id`, `user_id`);
insert into `roles` (`name`) values ('admin');
insert into `users` (`name`) values ('ann');
insert into `role_user` values (1, 1);
insert into `role_user` values (1, 2);
show create table `role_user`;
delete from `roles`;
select count(*) from `role_user`;

-- script: primary key changes MySQL refuses
create table `k` (`a` int, `b` int null, `c` int not null);
alter table `k` drop primary key;
alter table `k` add primary key (`zz`);
insert into `k` (`a`, `b`) values (1, NULL);
alter table `k` add primary key (`a`, `b`);

-- script: a second primary key is MySQL's 1068
CREATE TABLE mp (a int PRIMARY KEY, b int PRIMARY KEY);
CREATE TABLE mp (a int PRIMARY KEY, b int, PRIMARY KEY (b));
CREATE TABLE mp (a int PRIMARY KEY, b int);
ALTER TABLE mp ADD PRIMARY KEY (b);
SHOW CREATE TABLE mp;

-- script: a DEFAULT the column cannot hold is MySQL's 1067
CREATE TABLE d1 (a decimal(5,2) unsigned DEFAULT -1);
CREATE TABLE d2 (a decimal(5,2) unsigned DEFAULT '-1');
CREATE TABLE d3 (a int unsigned DEFAULT -1);
CREATE TABLE d4 (a tinyint DEFAULT 300);
CREATE TABLE d5 (a decimal(3,1) DEFAULT 123.4);
CREATE TABLE d6 (a int DEFAULT 'abc');
CREATE TABLE d7 (a char(2) DEFAULT 'abc');
CREATE TABLE d8 (a varchar(3) DEFAULT 'abcd');
CREATE TABLE d9 (a enum('x','y') DEFAULT 'z');
CREATE TABLE d10 (a set('x') DEFAULT 'z');
CREATE TABLE d11 (a decimal(5,2) DEFAULT 'abc');
CREATE TABLE d12 (a int NOT NULL, b decimal(5,2) unsigned DEFAULT '1.50', c int DEFAULT ' 12');
ALTER TABLE d12 ALTER COLUMN a SET DEFAULT NULL;
ALTER TABLE d12 ALTER COLUMN b SET DEFAULT -2;
SHOW CREATE TABLE d12;
SHOW TABLES;

-- script: a renamed table keeps its CHECK constraints, keys and rows
CREATE TABLE acct (id INT PRIMARY KEY, balance INT CHECK (balance >= 0), lo INT, hi INT, CONSTRAINT ordered CHECK (lo <= hi), KEY k_lo (lo));
INSERT INTO acct VALUES (1, 5, 1, 2);
RENAME TABLE acct TO ledger;
INSERT INTO ledger VALUES (2, -1, 1, 2);
UPDATE ledger SET lo = 3;
INSERT INTO ledger VALUES (2, 7, 0, 9);
SELECT * FROM ledger ORDER BY id;
SHOW CREATE TABLE ledger;
ALTER TABLE ledger RENAME TO books;
UPDATE books SET balance = -3 WHERE id = 2;
SHOW CREATE TABLE books;
SELECT * FROM books ORDER BY id;

-- script: DECIMAL UNSIGNED columns refuse negative values as strict mode does
CREATE TABLE ud (id int PRIMARY KEY, price decimal(8,2) unsigned DEFAULT '0.00', q decimal(5,0) UNSIGNED NOT NULL DEFAULT 0);
INSERT INTO ud (id, price) VALUES (1, 2.5);
INSERT INTO ud (id, price) VALUES (2, -1);
INSERT INTO ud (id, price) VALUES (3, -0.001);
INSERT IGNORE INTO ud (id, price, q) VALUES (4, -5, -3);
SHOW WARNINGS;
SELECT * FROM ud ORDER BY id;
UPDATE ud SET price = price - 10 WHERE id = 1;
SHOW CREATE TABLE ud;
SHOW COLUMNS FROM ud;
SELECT COLUMN_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE FROM information_schema.COLUMNS WHERE TABLE_NAME = 'ud' ORDER BY ORDINAL_POSITION;
SELECT SUM(price), MIN(price) FROM ud;

-- script: an online schema change swaps tables with one RENAME TABLE of several pairs
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO t VALUES (1, 'old');
CREATE TABLE _t_new (id INT PRIMARY KEY, v VARCHAR(10), extra INT DEFAULT 0);
INSERT INTO _t_new VALUES (1, 'new', 5);
RENAME TABLE t TO _t_old, _t_new TO t;
SELECT * FROM t;
SELECT * FROM _t_old;
RENAME TABLE t TO tmp, _t_old TO t, tmp TO _t_old;
SELECT * FROM t;
SELECT * FROM _t_old;
RENAME TABLE t TO a, a TO b, b TO c;
SELECT * FROM c;
RENAME TABLE c TO t, nope TO x;
SELECT * FROM c;
RENAME TABLE c TO d, _t_old TO d;
SHOW TABLES;
RENAME TABLE c TO e, c TO f;
SHOW TABLES;
SHOW CREATE TABLE _t_old;

-- script: table options written without '=', and the table's status
CREATE TABLE notes (id INT PRIMARY KEY, body TEXT, KEY by_body (body(20))) ENGINE InnoDB COMMENT 'my notes' DEFAULT CHARSET utf8mb4;
INSERT INTO notes VALUES (1, 'a'), (2, 'b');
SHOW CREATE TABLE notes;
SELECT TABLE_NAME, TABLE_COMMENT, ENGINE, TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_NAME = 'notes';
SHOW TABLE STATUS LIKE 'notes';
SHOW INDEX FROM notes;

-- script: defaults of characters of several bytes are shown whole
CREATE TABLE greet (id INT PRIMARY KEY, word VARCHAR(10) DEFAULT 'héllo', sign CHAR(2) DEFAULT '€');
SHOW COLUMNS FROM greet;
SELECT COLUMN_NAME, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_NAME = 'greet' ORDER BY ORDINAL_POSITION;
SHOW CREATE TABLE greet;
INSERT INTO greet (id) VALUES (1);
SELECT word, sign, LENGTH(sign), CHAR_LENGTH(word) FROM greet;
