-- What web applications send day to day, beyond an ORM's basic CRUD: a shop's catalogue and
-- orders, a forum's threads, a CMS's options and sessions, reports by day and by month, search
-- and tags, soft deletes and audit columns. Each script runs statement by statement on a fresh
-- node and a fresh MariaDB database, and the outcomes are compared (corpus_sqlite.rs).

-- script: a shop's catalogue with categories, prices and stock
CREATE TABLE `categories` (`id` int unsigned NOT NULL AUTO_INCREMENT, `parent_id` int unsigned DEFAULT NULL, `name` varchar(100) NOT NULL, `slug` varchar(120) NOT NULL, `position` smallint NOT NULL DEFAULT 0, PRIMARY KEY (`id`), UNIQUE KEY `categories_slug_unique` (`slug`), KEY `categories_parent_id_index` (`parent_id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
CREATE TABLE `products` (`id` bigint unsigned NOT NULL AUTO_INCREMENT, `category_id` int unsigned NOT NULL, `sku` varchar(32) NOT NULL, `title` varchar(255) NOT NULL, `price` decimal(10,2) NOT NULL, `sale_price` decimal(10,2) DEFAULT NULL, `stock` int NOT NULL DEFAULT 0, `is_active` tinyint(1) NOT NULL DEFAULT 1, `created_at` timestamp NULL DEFAULT NULL, `updated_at` timestamp NULL DEFAULT NULL, PRIMARY KEY (`id`), UNIQUE KEY `products_sku_unique` (`sku`), KEY `products_category_id_foreign` (`category_id`), CONSTRAINT `products_category_id_foreign` FOREIGN KEY (`category_id`) REFERENCES `categories` (`id`) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
INSERT INTO `categories` (`parent_id`, `name`, `slug`, `position`) VALUES (NULL, 'Books', 'books', 1), (NULL, 'Music', 'music', 2), (1, 'Science Fiction', 'sci-fi', 1), (1, 'History', 'history', 2);
INSERT INTO `products` (`category_id`, `sku`, `title`, `price`, `sale_price`, `stock`, `is_active`, `created_at`, `updated_at`) VALUES (3, 'BK-001', 'Dune', 9.99, NULL, 12, 1, '2024-03-01 10:00:00', '2024-03-01 10:00:00'), (3, 'BK-002', 'Foundation', 8.50, 7.25, 0, 1, '2024-03-02 11:00:00', '2024-03-02 11:00:00'), (4, 'BK-003', 'SPQR', 15.00, 12.00, 3, 1, '2024-03-03 12:00:00', '2024-03-05 09:30:00'), (2, 'MU-001', 'Kind of Blue', 11.99, NULL, 7, 0, '2024-03-04 13:00:00', '2024-03-04 13:00:00');
SELECT p.`id`, p.`title`, COALESCE(p.`sale_price`, p.`price`) AS `effective_price`, c.`name` AS `category` FROM `products` p INNER JOIN `categories` c ON c.`id` = p.`category_id` WHERE p.`is_active` = 1 AND p.`stock` > 0 ORDER BY `effective_price` ASC;
SELECT c.`name`, COUNT(p.`id`) AS `products_count`, MIN(p.`price`) AS `min_price`, MAX(p.`price`) AS `max_price`, SUM(p.`stock`) AS `stock` FROM `categories` c LEFT JOIN `products` p ON p.`category_id` = c.`id` GROUP BY c.`id`, c.`name` ORDER BY c.`position`, c.`name`;
SELECT `title`, `price`, `sale_price`, ROUND((`price` - `sale_price`) / `price` * 100, 1) AS `discount_pct` FROM `products` WHERE `sale_price` IS NOT NULL ORDER BY `discount_pct` DESC;
SELECT parent.`name` AS `parent`, child.`name` AS `child` FROM `categories` child LEFT JOIN `categories` parent ON parent.`id` = child.`parent_id` ORDER BY child.`id`;
SELECT `id`, `title` FROM `products` WHERE `title` LIKE '%o%' AND `category_id` IN (SELECT `id` FROM `categories` WHERE `parent_id` = 1) ORDER BY `title`;
UPDATE `products` SET `stock` = `stock` - 2, `updated_at` = '2024-03-06 08:00:00' WHERE `sku` = 'BK-001' AND `stock` >= 2;
UPDATE `products` SET `stock` = `stock` - 5 WHERE `sku` = 'BK-003' AND `stock` >= 5;
SELECT `sku`, `stock`, `updated_at` FROM `products` ORDER BY `sku`;
SELECT COUNT(*) AS aggregate FROM `products` WHERE `is_active` = 1;
SELECT * FROM `products` WHERE `is_active` = 1 ORDER BY `created_at` DESC LIMIT 2 OFFSET 0;
DELETE FROM `categories` WHERE `id` = 2;
SELECT COUNT(*) FROM `products`;

-- script: orders, line items and a monthly revenue report
CREATE TABLE customers (id INT AUTO_INCREMENT PRIMARY KEY, email VARCHAR(190) NOT NULL UNIQUE, name VARCHAR(100) NOT NULL, country CHAR(2) NOT NULL DEFAULT 'US', created_at DATETIME NOT NULL);
CREATE TABLE orders (id INT AUTO_INCREMENT PRIMARY KEY, customer_id INT NOT NULL, status ENUM('pending','paid','shipped','cancelled') NOT NULL DEFAULT 'pending', total DECIMAL(12,2) NOT NULL DEFAULT 0.00, placed_at DATETIME NOT NULL, INDEX idx_customer (customer_id), INDEX idx_placed (placed_at), FOREIGN KEY (customer_id) REFERENCES customers(id));
CREATE TABLE order_items (order_id INT NOT NULL, line_no SMALLINT NOT NULL, product VARCHAR(100) NOT NULL, qty INT NOT NULL, unit_price DECIMAL(10,2) NOT NULL, PRIMARY KEY (order_id, line_no), FOREIGN KEY (order_id) REFERENCES orders(id) ON DELETE CASCADE);
INSERT INTO customers (email, name, country, created_at) VALUES ('ann@example.com', 'Ann', 'DE', '2023-12-30 09:00:00'), ('bo@example.com', 'Bo', 'SE', '2024-01-15 10:00:00'), ('cy@example.com', 'Cy', 'US', '2024-02-20 11:00:00');
INSERT INTO orders (customer_id, status, placed_at) VALUES (1, 'paid', '2024-01-05 14:00:00'), (1, 'shipped', '2024-02-11 09:15:00'), (2, 'paid', '2024-02-14 18:30:00'), (3, 'cancelled', '2024-02-28 23:59:59'), (3, 'pending', '2024-03-01 00:00:00');
INSERT INTO order_items VALUES (1, 1, 'Dune', 2, 9.99), (1, 2, 'SPQR', 1, 15.00), (2, 1, 'Foundation', 3, 7.25), (3, 1, 'Kind of Blue', 1, 11.99), (3, 2, 'Dune', 1, 9.99), (4, 1, 'SPQR', 2, 15.00), (5, 1, 'Dune', 1, 9.99);
UPDATE orders o SET total = (SELECT SUM(qty * unit_price) FROM order_items i WHERE i.order_id = o.id);
SELECT id, status, total FROM orders ORDER BY id;
SELECT DATE_FORMAT(placed_at, '%Y-%m') AS month, COUNT(*) AS orders, SUM(total) AS revenue, AVG(total) AS avg_order FROM orders WHERE status IN ('paid', 'shipped') GROUP BY DATE_FORMAT(placed_at, '%Y-%m') ORDER BY month;
SELECT YEAR(placed_at) AS y, MONTH(placed_at) AS m, SUM(CASE WHEN status = 'cancelled' THEN 0 ELSE total END) AS net FROM orders GROUP BY YEAR(placed_at), MONTH(placed_at) ORDER BY y, m;
SELECT c.name, COUNT(o.id) AS orders, IFNULL(SUM(o.total), 0) AS spent FROM customers c LEFT JOIN orders o ON o.customer_id = c.id AND o.status <> 'cancelled' GROUP BY c.id, c.name HAVING spent > 10 ORDER BY spent DESC;
SELECT c.country, COUNT(DISTINCT c.id) AS customers, COUNT(o.id) AS orders FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.country ORDER BY c.country;
SELECT product, SUM(qty) AS units, SUM(qty * unit_price) AS sales FROM order_items GROUP BY product ORDER BY sales DESC, product LIMIT 3;
SELECT id, placed_at, DATEDIFF('2024-03-10', placed_at) AS age_days, DAYNAME(placed_at) AS weekday FROM orders ORDER BY id;
SELECT o.id FROM orders o WHERE NOT EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = o.id AND i.product = 'Dune') ORDER BY o.id;
SELECT id, status FROM orders WHERE placed_at BETWEEN '2024-02-01' AND '2024-02-29 23:59:59' ORDER BY placed_at;
SELECT id FROM orders WHERE placed_at >= DATE_SUB('2024-03-01', INTERVAL 30 DAY) ORDER BY id;
UPDATE orders SET status = 'shipped' WHERE status = 'paid' AND placed_at < '2024-02-01';
DELETE FROM orders WHERE status = 'cancelled';
SELECT COUNT(*) FROM order_items;
SELECT status, COUNT(*) FROM orders GROUP BY status ORDER BY status;

-- script: a forum's threads, replies and the latest post per thread
CREATE TABLE threads (id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, title VARCHAR(200) NOT NULL, author VARCHAR(50) NOT NULL, pinned TINYINT(1) NOT NULL DEFAULT 0, created_at DATETIME NOT NULL) ENGINE=InnoDB;
CREATE TABLE posts (id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, thread_id INT UNSIGNED NOT NULL, author VARCHAR(50) NOT NULL, body TEXT NOT NULL, created_at DATETIME NOT NULL, KEY thread_created (thread_id, created_at)) ENGINE=InnoDB;
INSERT INTO threads (title, author, pinned, created_at) VALUES ('Welcome', 'admin', 1, '2024-01-01 00:00:00'), ('Rust or Go?', 'kim', 0, '2024-02-01 12:00:00'), ('Off topic', 'lee', 0, '2024-02-02 08:00:00');
INSERT INTO posts (thread_id, author, body, created_at) VALUES (1, 'admin', 'Hello all', '2024-01-01 00:00:00'), (2, 'kim', 'Which one?', '2024-02-01 12:00:00'), (2, 'lee', 'Rust.', '2024-02-01 12:05:00'), (2, 'max', 'Go!', '2024-02-01 12:07:30'), (3, 'lee', 'Anyone?', '2024-02-02 08:00:00'), (1, 'kim', 'Hi admin', '2024-02-03 09:00:00');
SELECT t.id, t.title, COUNT(p.id) - 1 AS replies, MAX(p.created_at) AS last_post FROM threads t JOIN posts p ON p.thread_id = t.id GROUP BY t.id, t.title ORDER BY t.pinned DESC, last_post DESC;
SELECT p.thread_id, p.author, p.created_at FROM posts p WHERE p.created_at = (SELECT MAX(p2.created_at) FROM posts p2 WHERE p2.thread_id = p.thread_id) ORDER BY p.thread_id;
SELECT thread_id, author, created_at FROM (SELECT thread_id, author, created_at, ROW_NUMBER() OVER (PARTITION BY thread_id ORDER BY created_at DESC) AS rn FROM posts) latest WHERE rn = 1 ORDER BY thread_id;
SELECT author, COUNT(*) AS posts, GROUP_CONCAT(DISTINCT thread_id ORDER BY thread_id SEPARATOR ',') AS threads FROM posts GROUP BY author ORDER BY posts DESC, author;
SELECT id, LEFT(body, 5) AS preview, CHAR_LENGTH(body) AS len FROM posts WHERE body LIKE '%?%' ORDER BY id;
SELECT t.title FROM threads t WHERE t.id IN (SELECT thread_id FROM posts GROUP BY thread_id HAVING COUNT(*) >= 2) ORDER BY t.title;
SELECT SQL_CALC_FOUND_ROWS id, title FROM threads ORDER BY created_at DESC LIMIT 2;
SELECT FOUND_ROWS();
UPDATE threads SET pinned = NOT pinned WHERE id IN (1, 2);
SELECT id, pinned FROM threads ORDER BY id;

-- script: a CMS's options, autoloaded settings and transients
CREATE TABLE `wp_options` (`option_id` bigint(20) unsigned NOT NULL AUTO_INCREMENT, `option_name` varchar(191) NOT NULL DEFAULT '', `option_value` longtext NOT NULL, `autoload` varchar(20) NOT NULL DEFAULT 'yes', PRIMARY KEY (`option_id`), UNIQUE KEY `option_name` (`option_name`), KEY `autoload` (`autoload`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci;
INSERT INTO `wp_options` (`option_name`, `option_value`, `autoload`) VALUES ('siteurl', 'http://example.com', 'yes'), ('blogname', 'My Blog', 'yes'), ('_transient_timeout_feed', '1700000000', 'no'), ('_transient_feed', 'a:0:{}', 'no'), ('cron', 'a:1:{i:1;}', 'yes');
SELECT option_name, option_value FROM wp_options WHERE autoload = 'yes' ORDER BY option_id;
SELECT option_value FROM wp_options WHERE option_name = 'blogname' LIMIT 1;
INSERT INTO `wp_options` (`option_name`, `option_value`, `autoload`) VALUES ('blogname', 'New Name', 'yes') ON DUPLICATE KEY UPDATE `option_name` = VALUES(`option_name`), `option_value` = VALUES(`option_value`), `autoload` = VALUES(`autoload`);
UPDATE `wp_options` SET `option_value` = 'a:2:{i:1;i:2;}' WHERE `option_name` = 'cron';
DELETE a, b FROM wp_options a, wp_options b WHERE a.option_name LIKE '\_transient\_%' AND a.option_name NOT LIKE '\_transient\_timeout\_%' AND b.option_name = CONCAT('_transient_timeout_', SUBSTRING(a.option_name, 12)) AND b.option_value < 1710000000;
SELECT option_id, option_name, option_value, autoload FROM wp_options ORDER BY option_id;
SELECT SUM(LENGTH(option_value)) AS autoload_size FROM wp_options WHERE autoload = 'yes';

-- script: sessions with expiry, touched and garbage-collected
CREATE TABLE sessions (id VARCHAR(128) NOT NULL PRIMARY KEY, user_id BIGINT UNSIGNED NULL, ip_address VARCHAR(45) NULL, payload LONGTEXT NOT NULL, last_activity INT NOT NULL, INDEX sessions_user_id_index (user_id), INDEX sessions_last_activity_index (last_activity));
INSERT INTO sessions (id, user_id, ip_address, payload, last_activity) VALUES ('s1', 1, '10.0.0.1', 'YTowOnt9', 1710000000), ('s2', NULL, '10.0.0.2', 'YToxOnt9', 1710003600), ('s3', 2, '::1', 'YToyOnt9', 1709990000);
SELECT * FROM sessions WHERE id = 's1' LIMIT 1;
UPDATE sessions SET payload = 'YTozOnt9', last_activity = 1710007200, user_id = 1, ip_address = '10.0.0.1' WHERE id = 's1';
INSERT INTO sessions (id, payload, last_activity) VALUES ('s2', 'new', 1710009000) ON DUPLICATE KEY UPDATE payload = VALUES(payload), last_activity = VALUES(last_activity);
DELETE FROM sessions WHERE last_activity <= 1710000000;
SELECT id, user_id, payload, last_activity, FROM_UNIXTIME(last_activity) AS seen FROM sessions ORDER BY id;
SELECT COUNT(*) FROM sessions WHERE user_id IS NULL;

-- script: tags, taggings and a tag cloud
CREATE TABLE tags (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(50) NOT NULL, UNIQUE KEY uniq_name (name));
CREATE TABLE taggings (tag_id INT NOT NULL, item_id INT NOT NULL, PRIMARY KEY (tag_id, item_id), KEY item (item_id));
INSERT IGNORE INTO tags (name) VALUES ('rust'), ('sql'), ('Rust'), ('web');
SELECT id, name FROM tags ORDER BY id;
INSERT INTO taggings VALUES (1, 10), (1, 11), (2, 10), (4, 12), (2, 12), (1, 12);
INSERT IGNORE INTO taggings VALUES (1, 10), (2, 11);
SELECT t.name, COUNT(*) AS uses FROM tags t JOIN taggings g ON g.tag_id = t.id GROUP BY t.name ORDER BY uses DESC, t.name;
SELECT item_id FROM taggings WHERE tag_id IN (1, 2) GROUP BY item_id HAVING COUNT(DISTINCT tag_id) = 2 ORDER BY item_id;
SELECT i.item_id, GROUP_CONCAT(t.name ORDER BY t.name) AS tags FROM taggings i JOIN tags t ON t.id = i.tag_id GROUP BY i.item_id ORDER BY i.item_id;
SELECT name FROM tags WHERE name = 'RUST';
DELETE FROM taggings WHERE tag_id = (SELECT id FROM tags WHERE name = 'web');
SELECT COUNT(*) FROM taggings;

-- script: soft deletes, audit columns and restores
CREATE TABLE documents (id INT NOT NULL AUTO_INCREMENT, title VARCHAR(100) NOT NULL, body MEDIUMTEXT, version INT NOT NULL DEFAULT 1, created_by VARCHAR(50) NOT NULL, created_at DATETIME(3) NOT NULL, updated_at DATETIME(3) NULL, deleted_at DATETIME(3) NULL DEFAULT NULL, PRIMARY KEY (id), KEY deleted_at (deleted_at));
INSERT INTO documents (title, body, created_by, created_at) VALUES ('Plan', 'v1', 'ann', '2024-04-01 09:00:00.125'), ('Notes', NULL, 'bo', '2024-04-02 10:30:00.500'), ('Draft', 'x', 'ann', '2024-04-03 11:45:00.000');
UPDATE documents SET body = 'v2', version = version + 1, updated_at = '2024-04-04 08:00:00.250' WHERE id = 1 AND version = 1;
UPDATE documents SET body = 'v3', version = version + 1, updated_at = '2024-04-04 08:00:01.000' WHERE id = 1 AND version = 1;
UPDATE documents SET deleted_at = '2024-04-05 12:00:00.000' WHERE id IN (2, 3);
SELECT id, title, version FROM documents WHERE deleted_at IS NULL ORDER BY id;
SELECT COUNT(*) AS trashed FROM documents WHERE deleted_at IS NOT NULL;
UPDATE documents SET deleted_at = NULL WHERE id = 3;
SELECT id, title, body, version, created_by, created_at, updated_at, deleted_at FROM documents ORDER BY id;
SELECT created_by, COUNT(*) AS docs, MAX(created_at) AS newest FROM documents WHERE deleted_at IS NULL GROUP BY created_by ORDER BY created_by;

-- script: search by words, prefixes and case
CREATE TABLE articles (id INT PRIMARY KEY, title VARCHAR(200) NOT NULL, body TEXT NOT NULL, published TINYINT(1) NOT NULL DEFAULT 0, published_at DATE NULL);
INSERT INTO articles VALUES (1, 'Getting started with SQL', 'Tables, rows and columns.', 1, '2024-01-10'), (2, 'Advanced sql tricks', 'Window functions and CTEs.', 1, '2024-02-20'), (3, 'SQLite internals', 'B-trees everywhere.', 0, NULL), (4, 'Café culture', 'Coffee and croissants.', 1, '2024-03-05');
SELECT id, title FROM articles WHERE title LIKE '%sql%' ORDER BY id;
SELECT id FROM articles WHERE LOWER(title) LIKE 'sql%' OR body LIKE '%CTE%' ORDER BY id;
SELECT id, title FROM articles WHERE title LIKE 'cafe%' ORDER BY id;
SELECT id FROM articles WHERE title REGEXP '^(getting|advanced)' ORDER BY id;
SELECT id, LOCATE('sql', title) AS pos, INSTR(LOWER(body), 'and') AS body_pos FROM articles ORDER BY id;
SELECT id, title FROM articles WHERE published = 1 AND published_at >= '2024-02-01' ORDER BY published_at DESC;
SELECT id, UPPER(SUBSTRING(title, 1, 1)) AS initial, REPLACE(title, ' ', '-') AS slug FROM articles ORDER BY title;
SELECT COUNT(*) FROM articles WHERE body <> '' AND title NOT LIKE '%internals%';
SELECT id FROM articles ORDER BY published_at IS NULL, published_at DESC;

-- script: pagination by keyset and by offset
CREATE TABLE events (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, kind VARCHAR(20) NOT NULL, happened_at DATETIME NOT NULL, amount DECIMAL(8,2) NULL, INDEX kind_time (kind, happened_at));
INSERT INTO events (kind, happened_at, amount) VALUES ('click', '2024-05-01 10:00:00', NULL), ('buy', '2024-05-01 10:05:00', 20.00), ('click', '2024-05-01 10:06:00', NULL), ('buy', '2024-05-01 11:00:00', 5.50), ('refund', '2024-05-02 09:00:00', -5.50), ('click', '2024-05-02 09:30:00', NULL), ('buy', '2024-05-02 12:00:00', 42.42);
SELECT id, kind FROM events ORDER BY happened_at, id LIMIT 3;
SELECT id, kind FROM events WHERE (happened_at, id) > ('2024-05-01 10:06:00', 3) ORDER BY happened_at, id LIMIT 3;
SELECT id, kind FROM events WHERE happened_at > '2024-05-01 10:06:00' OR (happened_at = '2024-05-01 10:06:00' AND id > 3) ORDER BY happened_at, id LIMIT 3;
SELECT id FROM events ORDER BY id DESC LIMIT 2, 2;
SELECT kind, COUNT(*) AS n, SUM(amount) AS total, SUM(IF(amount > 0, amount, 0)) AS positive FROM events GROUP BY kind ORDER BY kind;
SELECT DATE(happened_at) AS day, COUNT(*) AS n, COALESCE(SUM(amount), 0) AS amount FROM events GROUP BY DATE(happened_at) ORDER BY day;
SELECT HOUR(happened_at) AS h, COUNT(*) FROM events GROUP BY h ORDER BY h;
SELECT id, amount, SUM(amount) OVER (ORDER BY id) AS running FROM events WHERE amount IS NOT NULL ORDER BY id;
SELECT MAX(id), MIN(happened_at), MAX(amount), AVG(amount) FROM events;

-- script: a job queue claimed with locking reads and status updates
CREATE TABLE jobs (id INT AUTO_INCREMENT PRIMARY KEY, queue VARCHAR(50) NOT NULL DEFAULT 'default', payload JSON NOT NULL, attempts TINYINT UNSIGNED NOT NULL DEFAULT 0, reserved_at INT UNSIGNED NULL, available_at INT UNSIGNED NOT NULL, created_at INT UNSIGNED NOT NULL, INDEX jobs_queue_index (queue));
INSERT INTO jobs (queue, payload, available_at, created_at) VALUES ('default', '{"job": "SendMail", "to": "a@x.io"}', 100, 100), ('default', '{"job": "Resize", "size": [640, 480]}', 200, 100), ('high', '{"job": "Charge", "cents": 1299}', 50, 50);
START TRANSACTION;
SELECT * FROM jobs WHERE queue = 'default' AND ((reserved_at IS NULL AND available_at <= 150) OR (reserved_at <= 90)) ORDER BY id ASC LIMIT 1 FOR UPDATE SKIP LOCKED;
UPDATE jobs SET reserved_at = 150, attempts = attempts + 1 WHERE id = 1;
COMMIT;
SELECT id, JSON_UNQUOTE(JSON_EXTRACT(payload, '$.job')) AS job, JSON_UNQUOTE(JSON_EXTRACT(payload, '$.to')) AS recipient, JSON_EXTRACT(payload, '$.size[1]') AS height, attempts, reserved_at FROM jobs ORDER BY id;
DELETE FROM jobs WHERE id = 1;
SELECT queue, COUNT(*) FROM jobs GROUP BY queue ORDER BY queue;
SELECT id FROM jobs WHERE JSON_EXTRACT(payload, '$.cents') > 1000;

-- script: implicit conversions and edge values applications run into
CREATE TABLE vals (id INT PRIMARY KEY, s VARCHAR(20), n INT, d DECIMAL(8,3), f DOUBLE);
INSERT INTO vals VALUES (1, '10', 3, 2.500, 0.1), (2, '7abc', -7, -2.500, 1e3), (3, 'a ', 0, 0.000, NULL), (4, NULL, NULL, NULL, -0.5);
SELECT id, s + 5, n DIV 2, n MOD 4, -n % 3, d * 2, ROUND(d), ROUND(d, 1), TRUNCATE(d, 1) FROM vals ORDER BY id;
SELECT id, s = 10, s = 'A', s = 'a', s LIKE 'a', n = '3', n IN (3, NULL), n NOT IN (3, NULL) FROM vals ORDER BY id;
SELECT id, n / 0, n DIV 0, MOD(n, 0), f * 3, ROUND(f, 0), CEIL(d), FLOOR(d), ABS(n), SIGN(d) FROM vals ORDER BY id;
SELECT id, CONCAT('#', id, '-', s), CONCAT_WS('/', s, n, d), LENGTH(s), CHAR_LENGTH(s), COALESCE(s, n, 'none') FROM vals ORDER BY id;
SELECT id, CAST(s AS SIGNED), CAST(d AS CHAR), CAST(n AS DECIMAL(6,2)), CAST('2024-02-30' AS DATE), CAST(f AS SIGNED) FROM vals ORDER BY id;
SELECT id, IF(n > 0, 'pos', IF(n < 0, 'neg', 'zero')) AS sign_word, CASE WHEN d IS NULL THEN 'n/a' WHEN d > 0 THEN d ELSE 0 END AS d_or_zero FROM vals ORDER BY id;
SELECT COUNT(*), COUNT(s), COUNT(DISTINCT n), SUM(n), AVG(n), SUM(d), AVG(d), MIN(s), MAX(s), SUM(f), MAX(f) FROM vals;
SELECT GREATEST(1, 2.5, '3'), LEAST('b', 'A', 'c'), NULLIF(5, 5), NULLIF(5, 6), IFNULL(NULL, 'x'), 0.1 + 0.2 = 0.3, 1e0 + 2e-1;
SELECT 9223372036854775807 + 1;
SELECT CAST(-1 AS UNSIGNED);
SELECT 1 / 3, 2 / 3 * 3, 10 DIV 3, -10 DIV 3, 10 % -3, POW(2, 10), SQRT(16), 7 / 2;
SELECT id FROM vals WHERE s = 'a' ORDER BY id;
SELECT id FROM vals WHERE n BETWEEN -10 AND 5 AND s IS NOT NULL ORDER BY n;
SELECT id, n FROM vals ORDER BY n DESC;
SELECT id, s FROM vals ORDER BY s;

-- script: dates and times as reports compute them
CREATE TABLE shifts (id INT PRIMARY KEY, starts DATETIME NOT NULL, ends DATETIME NULL, day DATE NOT NULL, dur TIME NULL);
INSERT INTO shifts VALUES (1, '2024-02-28 22:00:00', '2024-02-29 06:30:00', '2024-02-28', '08:30:00'), (2, '2024-12-31 23:15:00', '2025-01-01 07:45:15', '2024-12-31', '08:30:15'), (3, '2024-03-31 09:00:00', NULL, '2024-03-31', NULL);
SELECT id, TIMESTAMPDIFF(MINUTE, starts, ends), TIMEDIFF(ends, starts), DATEDIFF(ends, starts), TIMESTAMPDIFF(HOUR, starts, ends) FROM shifts ORDER BY id;
SELECT id, DATE_ADD(day, INTERVAL 1 MONTH), DATE_SUB(day, INTERVAL 1 YEAR), day + INTERVAL 2 DAY, LAST_DAY(day), DAYOFWEEK(day), WEEKDAY(day), DAYOFYEAR(day) FROM shifts ORDER BY id;
SELECT id, DATE_FORMAT(starts, '%d/%m/%Y %H:%i'), DATE_FORMAT(starts, '%W %M %e, %Y'), DATE_FORMAT(starts, '%a %b %D %l:%i %p'), TIME_FORMAT(dur, '%H:%i') FROM shifts ORDER BY id;
SELECT id, YEAR(day), QUARTER(day), MONTH(day), MONTHNAME(day), WEEK(day), WEEK(day, 1), YEARWEEK(day), DAY(day) FROM shifts ORDER BY id;
SELECT id, UNIX_TIMESTAMP(starts), FROM_UNIXTIME(1709164800), STR_TO_DATE('29/02/2024 06:30', '%d/%m/%Y %H:%i'), TIME_TO_SEC(dur), SEC_TO_TIME(30615) FROM shifts ORDER BY id;
SELECT id, DATE(starts), TIME(starts), HOUR(ends), MINUTE(ends), SECOND(ends), starts < ends FROM shifts ORDER BY id;
SELECT id FROM shifts WHERE starts >= '2024-03-01' ORDER BY id;
SELECT id FROM shifts WHERE YEAR(starts) = 2024 AND MONTH(starts) IN (2, 12) ORDER BY id;
SELECT DATE_FORMAT(day, '%Y-%m') AS m, COUNT(*) AS n, SEC_TO_TIME(SUM(TIME_TO_SEC(dur))) AS total FROM shifts GROUP BY m ORDER BY m;
SELECT DATE_ADD('2024-01-31', INTERVAL 1 MONTH), DATE_ADD('2024-02-29', INTERVAL 1 YEAR), '2024-03-01' - INTERVAL 1 DAY, DATE_ADD('2024-01-01 00:00:00', INTERVAL 90 MINUTE), ADDDATE('2024-01-01', 31), SUBDATE('2024-01-01', INTERVAL 1 WEEK);
SELECT MAKEDATE(2024, 60), MAKETIME(12, 30, 5), TO_DAYS('2024-01-01'), FROM_DAYS(739252), DAYNAME('2024-02-29'), PERIOD_DIFF(202403, 202312), EXTRACT(YEAR_MONTH FROM '2024-02-29 10:00:00');
SELECT id, ADDTIME(starts, '01:00:00'), SUBTIME(ends, '00:30:00') FROM shifts ORDER BY id;

-- script: INSERT … SELECT, UPDATE and DELETE with joins, REPLACE
CREATE TABLE staging (sku VARCHAR(20) PRIMARY KEY, qty INT NOT NULL, price DECIMAL(8,2) NOT NULL);
CREATE TABLE stock (sku VARCHAR(20) PRIMARY KEY, qty INT NOT NULL DEFAULT 0, price DECIMAL(8,2) NULL, note VARCHAR(30) NULL);
INSERT INTO staging VALUES ('A', 5, 1.50), ('B', 0, 2.00), ('C', 12, 0.99), ('D', 3, 10.00);
INSERT INTO stock (sku, qty, price) VALUES ('A', 1, 1.40), ('B', 4, 2.00), ('Z', 9, 9.99);
INSERT INTO stock (sku, qty, price) SELECT s.sku, s.qty, s.price FROM staging s LEFT JOIN stock t ON t.sku = s.sku WHERE t.sku IS NULL;
UPDATE stock t JOIN staging s ON s.sku = t.sku SET t.qty = t.qty + s.qty, t.price = s.price, t.note = 'restocked' WHERE s.qty > 0;
DELETE t FROM stock t LEFT JOIN staging s ON s.sku = t.sku WHERE s.sku IS NULL;
REPLACE INTO stock (sku, qty, price, note) VALUES ('B', 40, 2.10, 'replaced'), ('E', 1, 5.00, 'new');
SELECT sku, qty, price, note FROM stock ORDER BY sku;
INSERT INTO stock (sku, qty) SELECT CONCAT(sku, '2'), qty * 2 FROM staging WHERE qty > 4 ORDER BY sku;
SELECT sku, qty, price FROM stock WHERE sku LIKE '_2' ORDER BY sku;
UPDATE stock SET qty = qty - 1 ORDER BY qty DESC LIMIT 2;
SELECT sku, qty FROM stock ORDER BY qty DESC, sku;
DELETE FROM stock WHERE qty < 5 ORDER BY sku LIMIT 1;
SELECT COUNT(*), SUM(qty) FROM stock;

-- script: a multi-table UPDATE of several columns
CREATE TABLE accounts2 (id INT PRIMARY KEY, balance DECIMAL(10,2) NOT NULL, updated VARCHAR(10) NULL, touched INT NOT NULL DEFAULT 0);
CREATE TABLE payments (id INT PRIMARY KEY, account_id INT NOT NULL, amount DECIMAL(10,2) NOT NULL);
INSERT INTO accounts2 (id, balance) VALUES (1, 100.00), (2, 50.50), (3, 0);
INSERT INTO payments VALUES (10, 1, 25.25), (11, 2, 0.50), (12, 4, 1.00);
UPDATE accounts2 a INNER JOIN payments p ON p.account_id = a.id SET a.balance = a.balance - p.amount, a.updated = 'paid', a.touched = a.touched + 1 WHERE p.amount > 0;
SELECT id, balance, updated, touched FROM accounts2 ORDER BY id;
UPDATE accounts2 a JOIN payments p ON p.account_id = a.id SET a.balance = 0, a.updated = NULL WHERE p.id = 11;
SELECT id, balance, updated, touched FROM accounts2 ORDER BY id;

-- script: TIME columns read by the time functions
CREATE TABLE laps (id INT PRIMARY KEY, t TIME, t3 TIME(3));
INSERT INTO laps VALUES (1, '08:30:05', '00:01:02.345'), (2, '100:05:06', '12:00:00.000'), (3, '-01:02:03', '-00:00:01.500'), (4, NULL, NULL), (5, '838:59:59', '00:00:00');
SELECT id, HOUR(t), MINUTE(t), SECOND(t), TIME_TO_SEC(t), TIME_FORMAT(t, '%H:%i'), TIME_FORMAT(t, '%h:%i %p'), TIME_FORMAT(t, '%T %k %l %r') FROM laps ORDER BY id;
SELECT id, MICROSECOND(t3), HOUR(t3), TIME_FORMAT(t3, '%H:%i:%s.%f'), TIME_FORMAT(t, '%Y') FROM laps ORDER BY id;
SELECT SUM(TIME_TO_SEC(t)) FROM laps WHERE t > '00:00:00';
SELECT id, ADDTIME(t, '01:00:00'), SUBTIME(t, '00:00:10'), ADDTIME(t, '-02:00:00') FROM laps WHERE id IN (1, 4) ORDER BY id;
SELECT ADDTIME(CAST('2024-12-31 23:30:00' AS DATETIME), '01:00:00'), SUBTIME(CAST('2024-03-01 00:00:00' AS DATETIME), '24:00:01'), ADDTIME(CAST('10:00:00' AS TIME), '1 02:03:04');
SELECT TIME_FORMAT('25:00:00', '%H %h %p'), TIME_FORMAT('2024-01-01 10:11:12', '%H-%i'), TIME_FORMAT(NULL, '%H'), TIME_FORMAT('09:05:00', 'at %l:%i %p');

-- script: periods of months
SELECT PERIOD_ADD(202401, 2), PERIOD_ADD(2401, 1), PERIOD_ADD(6912, 1), PERIOD_ADD(7001, -1), PERIOD_DIFF(202403, 202312), PERIOD_DIFF(2403, 2312), PERIOD_ADD(0, 1), PERIOD_DIFF(0, 202401);
SELECT PERIOD_ADD(NULL, 1), PERIOD_ADD(202401, -30), PERIOD_ADD('202401', 1.6), PERIOD_ADD(101, 1), PERIOD_ADD(99901, 1), PERIOD_DIFF(DATE_FORMAT('2024-05-17', '%Y%m'), 202312);

-- script: Hibernate's table-backed id generator and entity writes
CREATE TABLE hibernate_sequence (next_val BIGINT) ENGINE=InnoDB;
INSERT INTO hibernate_sequence VALUES (1);
CREATE TABLE person (id BIGINT NOT NULL, version INTEGER NOT NULL, first_name VARCHAR(255), last_name VARCHAR(255), birth_date DATE, salary DECIMAL(19,2), active BIT NOT NULL, PRIMARY KEY (id)) ENGINE=InnoDB;
START TRANSACTION;
SELECT next_val AS id_val FROM hibernate_sequence FOR UPDATE;
UPDATE hibernate_sequence SET next_val = 2 WHERE next_val = 1;
COMMIT;
INSERT INTO person (version, first_name, last_name, birth_date, salary, active, id) VALUES (0, 'Ada', 'Lovelace', '1815-12-10', 1234.50, 1, 1);
UPDATE person SET version = 1, salary = 2000.00 WHERE id = 1 AND version = 0;
UPDATE person SET version = 1, salary = 9.99 WHERE id = 1 AND version = 0;
SELECT p1_0.id, p1_0.active, p1_0.birth_date, p1_0.first_name, p1_0.last_name, p1_0.salary, p1_0.version FROM person p1_0 WHERE p1_0.id = 1;
SELECT p1_0.id FROM person p1_0 WHERE p1_0.last_name LIKE 'love%' ESCAPE '' ORDER BY p1_0.id LIMIT 10;

-- script: Liquibase's lock and changelog tables
CREATE TABLE DATABASECHANGELOGLOCK (ID INT NOT NULL, `LOCKED` TINYINT(1) NOT NULL, LOCKGRANTED datetime NULL, LOCKEDBY VARCHAR(255) NULL, CONSTRAINT PK_DATABASECHANGELOGLOCK PRIMARY KEY (ID));
DELETE FROM DATABASECHANGELOGLOCK;
INSERT INTO DATABASECHANGELOGLOCK (ID, `LOCKED`) VALUES (1, 0);
SELECT `LOCKED` FROM DATABASECHANGELOGLOCK WHERE ID = 1;
UPDATE DATABASECHANGELOGLOCK SET `LOCKED` = 1, LOCKEDBY = 'host (10.0.0.1)', LOCKGRANTED = '2024-06-01 12:00:00.123' WHERE ID = 1 AND `LOCKED` = 0;
CREATE TABLE DATABASECHANGELOG (ID VARCHAR(255) NOT NULL, AUTHOR VARCHAR(255) NOT NULL, FILENAME VARCHAR(255) NOT NULL, DATEEXECUTED datetime NOT NULL, ORDEREXECUTED INT NOT NULL, EXECTYPE VARCHAR(10) NOT NULL, MD5SUM VARCHAR(35) NULL, `DESCRIPTION` VARCHAR(255) NULL, COMMENTS VARCHAR(255) NULL, TAG VARCHAR(255) NULL, LIQUIBASE VARCHAR(20) NULL, CONTEXTS VARCHAR(255) NULL, LABELS VARCHAR(255) NULL, DEPLOYMENT_ID VARCHAR(10) NULL);
SELECT MAX(ORDEREXECUTED) FROM DATABASECHANGELOG;
INSERT INTO DATABASECHANGELOG (ID, AUTHOR, FILENAME, DATEEXECUTED, ORDEREXECUTED, MD5SUM, `DESCRIPTION`, COMMENTS, EXECTYPE, CONTEXTS, LABELS, LIQUIBASE, DEPLOYMENT_ID) VALUES ('1', 'dev', 'db/changelog.xml', '2024-06-01 12:00:01', 1, '9:abc', 'createTable tableName=t', '', 'EXECUTED', NULL, NULL, '4.25.0', '7212345678');
SELECT FILENAME, AUTHOR, ID, MD5SUM, DATEEXECUTED, ORDEREXECUTED, TAG, EXECTYPE, DEPLOYMENT_ID FROM DATABASECHANGELOG ORDER BY DATEEXECUTED ASC, ORDEREXECUTED ASC;
UPDATE DATABASECHANGELOGLOCK SET `LOCKED` = 0, LOCKEDBY = NULL, LOCKGRANTED = NULL WHERE ID = 1;
SELECT ID, `LOCKED`, LOCKGRANTED, LOCKEDBY FROM DATABASECHANGELOGLOCK;

-- script: Prisma's migrations table and a model's queries
CREATE TABLE `_prisma_migrations` (`id` VARCHAR(36) NOT NULL, `checksum` VARCHAR(64) NOT NULL, `finished_at` DATETIME(3) NULL, `migration_name` VARCHAR(255) NOT NULL, `logs` TEXT NULL, `rolled_back_at` DATETIME(3) NULL, `started_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), `applied_steps_count` INTEGER UNSIGNED NOT NULL DEFAULT 0, PRIMARY KEY (`id`)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
INSERT INTO `_prisma_migrations` (`id`, `checksum`, `migration_name`, `started_at`) VALUES ('c0ffee00-0000-4000-8000-000000000001', 'abc123', '20240601_init', '2024-06-01 12:00:00.000');
UPDATE `_prisma_migrations` SET `finished_at` = '2024-06-01 12:00:01.250', `applied_steps_count` = `applied_steps_count` + 1 WHERE `id` = 'c0ffee00-0000-4000-8000-000000000001';
SELECT `id`, `checksum`, `finished_at`, `migration_name`, `logs`, `rolled_back_at`, `started_at`, `applied_steps_count` FROM `_prisma_migrations` ORDER BY `started_at` ASC;
CREATE TABLE `User` (`id` INTEGER NOT NULL AUTO_INCREMENT, `email` VARCHAR(191) NOT NULL, `name` VARCHAR(191) NULL, `createdAt` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), UNIQUE INDEX `User_email_key`(`email`), PRIMARY KEY (`id`)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
INSERT INTO `User` (`email`, `name`, `createdAt`) VALUES ('a@x.io', 'A', '2024-06-01 00:00:00.000'), ('b@x.io', NULL, '2024-06-02 00:00:00.500');
SELECT `t0`.`id`, `t0`.`email`, `t0`.`name`, `t0`.`createdAt` FROM `User` AS `t0` WHERE (`t0`.`email` = 'b@x.io' AND 1=1) LIMIT 1 OFFSET 0;
SELECT COUNT(*) AS `_count._all` FROM (SELECT `t0`.`id` FROM `User` AS `t0` WHERE 1=1) AS `sub`;
SELECT `t0`.`id`, `t0`.`email` FROM `User` AS `t0` WHERE `t0`.`name` IS NULL OR `t0`.`email` IN ('a@x.io') ORDER BY `t0`.`id` DESC;

-- script: a PHP application's session setup and counters
SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci;
SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';
SET time_zone = '+00:00';
SELECT @@session.time_zone, @@sql_mode;
CREATE TABLE hits (page VARCHAR(100) NOT NULL PRIMARY KEY, n INT UNSIGNED NOT NULL DEFAULT 0, last_at DATETIME NULL);
INSERT INTO hits (page, n, last_at) VALUES ('/', 1, '2024-06-01 10:00:00') ON DUPLICATE KEY UPDATE n = n + 1, last_at = VALUES(last_at);
INSERT INTO hits (page, n, last_at) VALUES ('/', 1, '2024-06-01 10:05:00') ON DUPLICATE KEY UPDATE n = n + 1, last_at = VALUES(last_at);
INSERT INTO hits (page, n) VALUES ('/about', 1) ON DUPLICATE KEY UPDATE n = n + 1;
SELECT page, n, last_at FROM hits ORDER BY n DESC, page;
SELECT CONCAT(ROUND(100 * n / (SELECT SUM(n) FROM hits), 1), '%') AS share, page FROM hits ORDER BY page;
UPDATE hits SET n = n - 5 WHERE page = '/about';
SELECT page, n FROM hits ORDER BY page;

-- script: columns defaulting to the current time with fraction digits
CREATE TABLE stamps (id INT PRIMARY KEY, a DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3), b TIMESTAMP(6) NULL DEFAULT NOW(6), c DATETIME DEFAULT CURRENT_TIMESTAMP, n INT);
INSERT INTO stamps (id, n) VALUES (1, 1);
SELECT id, LENGTH(a), LENGTH(b), LENGTH(c), a > '2020-01-01', a <= NOW(3), b IS NOT NULL FROM stamps;
SELECT LENGTH(NOW(3)), LENGTH(CURRENT_TIMESTAMP(6)), LENGTH(NOW(0)), LENGTH(NOW());
UPDATE stamps SET n = 2, a = '2001-01-01 00:00:00.123';
SELECT a FROM stamps;
UPDATE stamps SET n = 3;
SELECT a > '2020-01-01', LENGTH(a) FROM stamps;
SHOW CREATE TABLE stamps;
DESCRIBE stamps;
SELECT COLUMN_NAME, COLUMN_DEFAULT, EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'stamps' ORDER BY ORDINAL_POSITION;

-- script: statements a compute node pushes down to a shard
CREATE TABLE `orders_0001` (`id` bigint(20) NOT NULL, `user_id` bigint(20) NOT NULL, `amount` decimal(15,2) NOT NULL DEFAULT '0.00', `state` tinyint(4) NOT NULL DEFAULT '0', `gmt_create` datetime NOT NULL, PRIMARY KEY (`id`), KEY `idx_user` (`user_id`, `gmt_create`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO `orders_0001` (`id`, `user_id`, `amount`, `state`, `gmt_create`) VALUES (1, 100, '12.50', 1, '2024-07-01 10:00:00'), (2, 100, '7.25', 2, '2024-07-02 11:00:00'), (3, 200, '99.99', 1, '2024-07-02 12:00:00'), (4, 300, '0.01', 0, '2024-07-03 13:00:00');
/*DRDS /127.0.0.1/1a2b3c/0// */ SELECT `orders_0001`.`id`, `orders_0001`.`amount` FROM `orders_0001` WHERE (`orders_0001`.`user_id` = 100) ORDER BY `orders_0001`.`gmt_create` DESC LIMIT 0, 10;
SELECT COUNT(1) AS `cnt`, SUM(`amount`) AS `total`, MIN(`gmt_create`) AS `first`, MAX(`gmt_create`) AS `last` FROM `orders_0001` WHERE `state` IN (1, 2);
SELECT `user_id`, COUNT(*) AS `c`, SUM(`amount`) AS `s` FROM `orders_0001` FORCE INDEX(`idx_user`) GROUP BY `user_id` ORDER BY NULL;
SELECT `user_id`, SUM(`amount`) FROM `orders_0001` GROUP BY `user_id` HAVING SUM(`amount`) > 10 ORDER BY `user_id`;
SELECT `id` FROM `orders_0001` USE INDEX (PRIMARY) WHERE `id` IN (1, 3, 5) ORDER BY `id`;
SELECT `id`, `state` FROM `orders_0001` WHERE `id` = 2 LOCK IN SHARE MODE;
SELECT `id` FROM `orders_0001` WHERE `gmt_create` >= '2024-07-02 00:00:00' AND `gmt_create` < '2024-07-03 00:00:00' ORDER BY `id`;
SELECT `id`, CAST(`amount` AS SIGNED) AS `a`, CAST(`state` AS CHAR) AS `s`, `amount` * 100 AS `cents` FROM `orders_0001` ORDER BY `id`;
SELECT * FROM (SELECT `id`, `user_id` FROM `orders_0001` WHERE `state` = 1 UNION ALL SELECT `id`, `user_id` FROM `orders_0001` WHERE `state` = 2) AS `u` ORDER BY `id`;
SELECT `user_id`, GROUP_CONCAT(`id` ORDER BY `id` SEPARATOR ',') FROM `orders_0001` GROUP BY `user_id` ORDER BY `user_id`;
UPDATE `orders_0001` SET `state` = 3 WHERE `id` IN (1, 2) AND `state` <> 3;
DELETE FROM `orders_0001` WHERE `id` = 4 AND `user_id` = 300;
SELECT `id`, `state` FROM `orders_0001` ORDER BY `id`;

-- script: escapes, hex and binary literals in extended inserts
CREATE TABLE blobs (id INT PRIMARY KEY, txt VARCHAR(100), bin VARBINARY(16), blb BLOB);
INSERT INTO blobs VALUES (1, 'it\'s a \"test\"\\n', 0x00FF10, _binary 'ab\0c'), (2, 'line1\nline2\ttab', X'CAFE', NULL), (3, 'percent % and _', '', 'plain'), (4, 'Ünïcødé ✓', UNHEX('414243'), 0x41);
SELECT id, txt, HEX(bin), LENGTH(bin), HEX(blb), LENGTH(txt), CHAR_LENGTH(txt) FROM blobs ORDER BY id;
SELECT id FROM blobs WHERE txt LIKE '%\%%' ORDER BY id;
SELECT id FROM blobs WHERE bin = 0xCAFE;
SELECT id, REPLACE(txt, '\n', ' ') FROM blobs WHERE txt LIKE '%\n%';
SELECT QUOTE(txt), CONCAT('[', TRIM('  x  '), ']'), LTRIM('  a'), RTRIM('b  '), TRIM(LEADING '0' FROM '000120') FROM blobs WHERE id = 1;

-- script: reports with subqueries and derived tables
CREATE TABLE employees (id INT PRIMARY KEY, name VARCHAR(40), dept VARCHAR(20), salary DECIMAL(10,2), manager_id INT NULL, hired DATE);
INSERT INTO employees VALUES (1, 'Ann', 'eng', 9000.00, NULL, '2019-03-01'), (2, 'Bob', 'eng', 7000.00, 1, '2020-06-15'), (3, 'Cid', 'ops', 5000.00, 1, '2021-01-10'), (4, 'Dee', 'ops', 5500.00, 3, '2022-11-30'), (5, 'Eve', 'eng', 7000.00, 1, '2023-02-01'), (6, 'Fay', 'hr', 4000.00, NULL, '2018-08-08');
SELECT dept, COUNT(*) AS n, AVG(salary) AS avg_salary, MAX(salary) - MIN(salary) AS spread FROM employees GROUP BY dept ORDER BY avg_salary DESC;
SELECT e.name, e.salary FROM employees e WHERE e.salary > (SELECT AVG(salary) FROM employees WHERE dept = e.dept) ORDER BY e.name;
SELECT e.name, m.name AS manager FROM employees e LEFT JOIN employees m ON m.id = e.manager_id ORDER BY e.id;
SELECT d.dept, d.total, ROUND(d.total / t.grand * 100, 2) AS pct FROM (SELECT dept, SUM(salary) AS total FROM employees GROUP BY dept) d CROSS JOIN (SELECT SUM(salary) AS grand FROM employees) t ORDER BY d.dept;
SELECT name, salary, RANK() OVER (PARTITION BY dept ORDER BY salary DESC) AS r, DENSE_RANK() OVER (ORDER BY salary DESC) AS dr FROM employees ORDER BY dept, r, name;
SELECT name FROM employees WHERE id NOT IN (SELECT manager_id FROM employees WHERE manager_id IS NOT NULL) ORDER BY name;
SELECT name FROM employees WHERE salary = (SELECT MAX(salary) FROM employees WHERE dept = 'eng') AND dept = 'eng';
SELECT YEAR(hired) AS y, COUNT(*) FROM employees GROUP BY YEAR(hired) HAVING COUNT(*) >= 1 ORDER BY y DESC LIMIT 3;
SELECT name, TIMESTAMPDIFF(YEAR, hired, '2024-07-01') AS years, CASE WHEN TIMESTAMPDIFF(YEAR, hired, '2024-07-01') >= 5 THEN 'senior' ELSE 'junior' END AS band FROM employees ORDER BY hired;
WITH RECURSIVE chain (id, name, depth) AS (SELECT id, name, 0 FROM employees WHERE manager_id IS NULL AND dept = 'eng' UNION ALL SELECT e.id, e.name, c.depth + 1 FROM employees e JOIN chain c ON e.manager_id = c.id) SELECT id, name, depth FROM chain ORDER BY depth, id;
SELECT dept, SUM(CASE WHEN salary >= 6000 THEN 1 ELSE 0 END) AS high, SUM(salary >= 6000) AS high2, COUNT(IF(salary < 6000, 1, NULL)) AS low FROM employees GROUP BY dept ORDER BY dept;

-- script: BIT columns as flags and masks
CREATE TABLE flags (id INT PRIMARY KEY, b1 BIT(1) NOT NULL DEFAULT b'0', b8 BIT(8) NULL, active BIT NOT NULL DEFAULT 1);
INSERT INTO flags (id, b1, b8) VALUES (1, 1, 165), (2, b'0', b'101'), (3, TRUE, NULL), (4, 1.4, 0);
INSERT INTO flags (id) VALUES (5);
INSERT INTO flags (id, b1) VALUES (6, 2);
INSERT INTO flags (id, b1) VALUES (7, '1');
INSERT INTO flags (id, b1) VALUES (8, -1);
SELECT id, b1, b8, active FROM flags ORDER BY id;
SELECT id, b1 + 0, b8 + 0, HEX(b8), BIN(b8), b1 = 1, b8 > 100, b8 * 2 FROM flags ORDER BY id;
SELECT id FROM flags WHERE b1 = 1 AND active = 1 ORDER BY id;
SELECT id FROM flags WHERE b8 IS NULL;
SELECT SUM(b8), COUNT(b8), AVG(b8), COUNT(*) FROM flags;
SELECT b1, COUNT(*) FROM flags GROUP BY b1 ORDER BY b1;
UPDATE flags SET b1 = 0, b8 = b8 + 1 WHERE id = 1;
UPDATE flags SET active = b'0' WHERE id = 2;
SELECT id, b1 + 0, b8 + 0, active + 0 FROM flags ORDER BY b8 DESC, id;
DESCRIBE flags;
SHOW CREATE TABLE flags;
SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, COLUMN_DEFAULT, NUMERIC_PRECISION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'flags' ORDER BY ORDINAL_POSITION;

-- script: YEAR columns
CREATE TABLE yy (id INT PRIMARY KEY, y YEAR, y4 YEAR(4) NOT NULL DEFAULT 2000);
INSERT INTO yy (id, y) VALUES (1, 2024), (2, 69), (3, 70), (4, '05'), (5, '0'), (6, 1901), (7, 2155), (8, 1.5), (9, '2024'), (10, 99);
INSERT INTO yy (id, y) VALUES (11, 1900);
INSERT INTO yy (id, y) VALUES (13, 'abc');
INSERT INTO yy (id, y) VALUES (14, 2156);
INSERT INTO yy (id, y) VALUES (16, 100);
SELECT id, y, y4, y + 1, CONCAT(y, ''), y > 2000 FROM yy ORDER BY id;
SELECT MIN(y), MAX(y), COUNT(DISTINCT y) FROM yy;
UPDATE yy SET y = y + 1 WHERE id = 1;
SELECT y FROM yy WHERE id = 1;
DESCRIBE yy;
SHOW CREATE TABLE yy;
SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'yy' ORDER BY ORDINAL_POSITION;

-- script: string functions applications format with
SELECT LPAD('7', 3, '0'), RPAD('ab', 5, '-'), SUBSTRING_INDEX('a.b.c', '.', 2), SUBSTRING_INDEX('a.b.c', '.', -1), FIND_IN_SET('b', 'a,b,c'), FIELD('b', 'a', 'b'), ELT(2, 'x', 'y');
SELECT FORMAT(1234567.891, 2), FORMAT(0.5, 0), FORMAT(-1234.5, 1), FORMAT(1234, 0);
SELECT REPEAT('ab', 3), REVERSE('abc'), CONCAT('[', SPACE(3), ']'), ASCII('A'), CHAR(65, 66), STRCMP('a', 'b'), INSERT('abcdef', 2, 3, 'XY'), MID('abcdef', 2, 3), LCASE('AbC'), UCASE('aBc');
SELECT MD5('abc'), SHA1('abc'), SHA2('abc', 256), CRC32('abc'), TO_BASE64('abc'), FROM_BASE64('YWJj');

-- script: subqueries with LIMIT, scalar subqueries and EXISTS
CREATE TABLE s (id INT PRIMARY KEY, v INT);
INSERT INTO s VALUES (1, 10), (2, 20), (3, 30);
SELECT id FROM s WHERE id IN (SELECT id FROM s ORDER BY v DESC LIMIT 2);
SELECT id FROM s WHERE id IN (SELECT * FROM (SELECT id FROM s ORDER BY v DESC LIMIT 2) x) ORDER BY id;
SELECT (SELECT v FROM s WHERE id = 2), (SELECT MAX(v) FROM s), EXISTS(SELECT 1 FROM s WHERE v > 25);

-- script: INSERT … SELECT … ON DUPLICATE KEY UPDATE
CREATE TABLE src (k VARCHAR(5) PRIMARY KEY, n INT);
CREATE TABLE dst (k VARCHAR(5) PRIMARY KEY, n INT);
INSERT INTO src VALUES ('a', 1), ('b', 2);
INSERT INTO dst VALUES ('a', 10);
INSERT INTO dst (k, n) SELECT k, n FROM src ON DUPLICATE KEY UPDATE n = dst.n + VALUES(n);
SELECT k, n FROM dst ORDER BY k;

-- script: collations of columns
CREATE TABLE ci (id INT PRIMARY KEY, name VARCHAR(20) COLLATE utf8mb4_unicode_ci, code VARCHAR(10) COLLATE utf8mb4_bin);
INSERT INTO ci VALUES (1, 'Zoë', 'a'), (2, 'zoe', 'A'), (3, 'ZOE ', 'b');
SELECT id FROM ci WHERE name = 'zoe' ORDER BY id;
SELECT id FROM ci WHERE code = 'a';
SELECT id, name FROM ci ORDER BY name, id;
SELECT COUNT(DISTINCT name), COUNT(DISTINCT code) FROM ci;
SELECT id FROM ci WHERE name LIKE 'zo%' ORDER BY id;

-- script: every row past an offset, as ORMs page without a limit
CREATE TABLE l (id INT PRIMARY KEY);
INSERT INTO l VALUES (1), (2), (3), (4), (5);
SELECT id FROM l ORDER BY id LIMIT 2 OFFSET 3;
SELECT id FROM l ORDER BY id DESC LIMIT 18446744073709551615 OFFSET 2;
SELECT id FROM l ORDER BY id LIMIT 1, 18446744073709551615;
(SELECT id FROM l WHERE id < 3) UNION (SELECT id FROM l WHERE id > 3) ORDER BY id DESC LIMIT 3;

-- script: bit operators on permission masks
CREATE TABLE perms (id INT PRIMARY KEY, mask INT UNSIGNED NOT NULL, b BIT(8));
INSERT INTO perms VALUES (1, 5, b'00000110'), (2, 12, NULL), (3, 0, 255);
SELECT id, mask & 4, mask | 2, mask ^ 1, mask << 2, mask >> 1, b & 2, b | mask FROM perms ORDER BY id;
SELECT id FROM perms WHERE mask & 4 = 4 ORDER BY id;
SELECT -1 & 255, 1 << 64, 5 & NULL, BIT_COUNT(5), ~0 & 255, 5 & 3, 5 | 3, 5 ^ 3, 1 << 4, 256 >> 2;
UPDATE perms SET mask = mask | 16 WHERE id = 2;
SELECT mask FROM perms WHERE id = 2;

-- script: NULL tests as functions
SELECT ISNULL(NULL), ISNULL(1), ISNULL(''), IFNULL(NULL, NULL), COALESCE(NULL, NULL, 3);

-- script: a JSON document column read and changed
CREATE TABLE people (id INT PRIMARY KEY, info JSON);
INSERT INTO people VALUES (1, '{"name": "Ann", "age": 31, "tags": ["x", "y"]}'), (2, '{"name": "Bob", "age": 25}');
SELECT id, JSON_UNQUOTE(JSON_EXTRACT(info, '$.name')), JSON_EXTRACT(info, '$.age') + 1, JSON_LENGTH(info, '$.tags') FROM people ORDER BY id;
SELECT id FROM people WHERE JSON_EXTRACT(info, '$.age') >= 30;
SELECT id FROM people WHERE JSON_UNQUOTE(JSON_EXTRACT(info, '$.name')) = 'Bob';
SELECT id FROM people WHERE JSON_CONTAINS(info, '"x"', '$.tags');
UPDATE people SET info = JSON_SET(info, '$.age', 26) WHERE id = 2;
SELECT info FROM people WHERE id = 2;
SELECT SUM(JSON_EXTRACT(info, '$.age') * 2) FROM people;
SELECT JSON_OBJECT('a', 1, 'b', 'x'), JSON_ARRAY(1, 'two', NULL), JSON_LENGTH('[1,2,3]'), JSON_VALID('{"a":1}'), JSON_KEYS('{"a":1,"b":2}'), JSON_REMOVE('{"a":1,"b":2}', '$.a');

-- script: CREATE IF NOT EXISTS, DROP IF EXISTS and their notes
CREATE TABLE IF NOT EXISTS t1 (id INT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS t1 (id INT PRIMARY KEY);
SHOW WARNINGS;
SELECT @@warning_count;
CREATE VIEW v1 AS SELECT id FROM t1;
DROP TABLE IF EXISTS v1;
SHOW COUNT(*) WARNINGS;
DROP VIEW IF EXISTS v_missing;
SELECT @@warning_count;
DROP VIEW v1;
DROP TABLE IF EXISTS t1, t_missing, t_gone;
SHOW COUNT(*) WARNINGS;
CREATE TABLE t2 (id INT AUTO_INCREMENT PRIMARY KEY, v INT);
INSERT INTO t2 (v) VALUES (1), (2);
TRUNCATE TABLE t2;
INSERT INTO t2 (v) VALUES (3);
SELECT id, v FROM t2;
RENAME TABLE t2 TO t3;
SELECT COUNT(*) FROM t3;
DROP TABLE t3;

-- script: several changes in one ALTER TABLE
CREATE TABLE m (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, a VARCHAR(10), b INT) ENGINE=InnoDB;
INSERT INTO m (a, b) VALUES ('x', 1), ('y', 2), ('y', 3);
ALTER TABLE m ADD INDEX idx_b (b), ADD UNIQUE KEY uq_a (a);
SELECT COUNT(*) FROM m;
ALTER TABLE m ADD COLUMN c INT NOT NULL DEFAULT 0, ADD INDEX idx_c (c), MODIFY b BIGINT;
UPDATE m SET a = 'z' WHERE id = 3;
ALTER TABLE m ADD COLUMN d VARCHAR(5) NULL, ADD UNIQUE KEY uq_a (a);
SELECT id, a, b, c, d FROM m ORDER BY id;
SHOW INDEX FROM m;

-- script: a foreign key dropped and added again by migrations
CREATE TABLE pa (id INT PRIMARY KEY);
CREATE TABLE ch (id INT PRIMARY KEY, pa_id INT, CONSTRAINT fk_ch_pa FOREIGN KEY (pa_id) REFERENCES pa (id));
INSERT INTO pa VALUES (1);
INSERT INTO ch VALUES (1, 1);
ALTER TABLE ch DROP FOREIGN KEY fk_ch_pa;
INSERT INTO ch VALUES (2, 99);
ALTER TABLE ch DROP FOREIGN KEY fk_ch_pa;
DELETE FROM ch WHERE id = 2;
SHOW CREATE TABLE ch;
ALTER TABLE ch ADD CONSTRAINT fk_ch_pa2 FOREIGN KEY (pa_id) REFERENCES pa (id) ON DELETE CASCADE;
DELETE FROM pa WHERE id = 1;
SELECT COUNT(*) FROM ch;
SHOW CREATE TABLE ch;

-- script: a foreign key's generated index dropped when another index serves the key
CREATE TABLE p2 (id INT PRIMARY KEY);
CREATE TABLE c2 (id INT PRIMARY KEY, pa INT, x INT, CONSTRAINT fkx FOREIGN KEY (pa) REFERENCES p2 (id));
CREATE INDEX idx_pa_x ON c2 (pa, x);
SHOW CREATE TABLE c2;
ALTER TABLE c2 ADD INDEX idx_pa2 (pa);
SHOW CREATE TABLE c2;
CREATE TABLE c3 (id INT PRIMARY KEY, pa INT, KEY idx_pa (pa));
ALTER TABLE c3 ADD CONSTRAINT fk3 FOREIGN KEY (pa) REFERENCES p2 (id);
SHOW CREATE TABLE c3;
CREATE TABLE c4 (id INT PRIMARY KEY, pa INT, CONSTRAINT fk4 FOREIGN KEY (pa) REFERENCES p2 (id));
ALTER TABLE c4 DROP FOREIGN KEY fk4;
ALTER TABLE c4 ADD CONSTRAINT fk4 FOREIGN KEY (pa) REFERENCES p2 (id);
SHOW CREATE TABLE c4;
SHOW INDEX FROM c4;

-- script: a lock name that is not a string is MariaDB's 4079
SELECT GET_LOCK(1, 0);
SELECT RELEASE_LOCK(1.5);
SELECT IS_FREE_LOCK(1e0);
SELECT IS_USED_LOCK(12345678901);
SELECT IS_FREE_LOCK(DATE '2020-01-01');
SELECT GET_LOCK('fine', 0), RELEASE_LOCK('fine');

-- script: named locks as migrations take and release them
SELECT GET_LOCK('8453928351', 0);
SELECT GET_LOCK('8453928351', 0), IS_FREE_LOCK('8453928351'), IS_USED_LOCK('8453928351') = CONNECTION_ID();
SELECT RELEASE_LOCK('8453928351'), RELEASE_LOCK('8453928351'), RELEASE_LOCK('8453928351');
SELECT IS_FREE_LOCK('8453928351'), IS_USED_LOCK('8453928351'), RELEASE_LOCK(NULL), GET_LOCK(NULL, 0);
SELECT GET_LOCK('a', 1), GET_LOCK('B', 0.5), GET_LOCK('b', '2');
SELECT RELEASE_ALL_LOCKS();
SELECT IS_FREE_LOCK('a'), IS_FREE_LOCK('b');
SELECT GET_LOCK('x', -1), RELEASE_LOCK('X');
BEGIN;
SELECT GET_LOCK('t', 0);
ROLLBACK;
SELECT IS_FREE_LOCK('t'), RELEASE_LOCK('t');
SELECT GET_LOCK('12', 0), RELEASE_LOCK('12');
SELECT GET_LOCK('y', -0.5), GET_LOCK('z', 'abc'), GET_LOCK('', 0), GET_LOCK('q', NULL);
SHOW WARNINGS;
SELECT GET_LOCK('w', -5);
SHOW WARNINGS;
SELECT RELEASE_ALL_LOCKS();

-- script: Django's migrations table and a model's queries
CREATE TABLE `django_migrations` (`id` bigint AUTO_INCREMENT NOT NULL PRIMARY KEY, `app` varchar(255) NOT NULL, `name` varchar(255) NOT NULL, `applied` datetime(6) NOT NULL);
CREATE TABLE `auth_user` (`id` integer AUTO_INCREMENT NOT NULL PRIMARY KEY, `password` varchar(128) NOT NULL, `last_login` datetime(6) NULL, `is_superuser` bool NOT NULL, `username` varchar(150) NOT NULL UNIQUE, `email` varchar(254) NOT NULL, `date_joined` datetime(6) NOT NULL);
CREATE TABLE `blog_post` (`id` bigint AUTO_INCREMENT NOT NULL PRIMARY KEY, `title` varchar(200) NOT NULL, `body` longtext NOT NULL, `author_id` integer NOT NULL, `created` datetime(6) NOT NULL);
ALTER TABLE `blog_post` ADD CONSTRAINT `blog_post_author_id_dd7a8485_fk_auth_user_id` FOREIGN KEY (`author_id`) REFERENCES `auth_user` (`id`);
CREATE INDEX `blog_post_title_idx` ON `blog_post` (`title`);
INSERT INTO `django_migrations` (`app`, `name`, `applied`) VALUES ('blog', '0001_initial', '2024-01-02 03:04:05.123456');
SELECT `django_migrations`.`id`, `django_migrations`.`app`, `django_migrations`.`name`, `django_migrations`.`applied` FROM `django_migrations`;
INSERT INTO `auth_user` (`password`, `last_login`, `is_superuser`, `username`, `email`, `date_joined`) VALUES ('x', NULL, 1, 'admin', 'a@b.c', '2024-01-02 03:04:05.000000');
SELECT `auth_user`.`id`, `auth_user`.`username` FROM `auth_user` WHERE `auth_user`.`username` = 'admin' LIMIT 21;
INSERT INTO `blog_post` (`title`, `body`, `author_id`, `created`) VALUES ('Hello', 'World', 1, '2024-01-02 03:04:05.5');
SELECT `blog_post`.`id`, `blog_post`.`title`, `auth_user`.`username` FROM `blog_post` INNER JOIN `auth_user` ON (`blog_post`.`author_id` = `auth_user`.`id`) ORDER BY `blog_post`.`created` DESC LIMIT 10;
SELECT COUNT(*) AS `__count` FROM `blog_post` WHERE `blog_post`.`title` LIKE BINARY '%ell%';
SELECT (1) AS `a` FROM `auth_user` WHERE `auth_user`.`email` LIKE 'a@%' LIMIT 1;
UPDATE `auth_user` SET `last_login` = '2024-02-02 00:00:00.000000' WHERE `auth_user`.`id` = 1;
SELECT `auth_user`.`last_login` FROM `auth_user`;
SELECT DATE_FORMAT(`blog_post`.`created`, '%Y-%m') AS `month`, COUNT(`blog_post`.`id`) AS `n` FROM `blog_post` GROUP BY 1 ORDER BY NULL;
SELECT CAST(`blog_post`.`created` AS date) AS `d` FROM `blog_post`;
SELECT `blog_post`.`id` FROM `blog_post` WHERE EXTRACT(YEAR FROM `blog_post`.`created`) = 2024;

-- script: Rails' schema tables, migration lock and a model's queries
CREATE TABLE `schema_migrations` (`version` varchar(255) NOT NULL PRIMARY KEY);
CREATE TABLE `ar_internal_metadata` (`key` varchar(255) NOT NULL PRIMARY KEY, `value` varchar(255), `created_at` datetime(6) NOT NULL, `updated_at` datetime(6) NOT NULL);
SELECT GET_LOCK('8453928351', 0);
CREATE TABLE `users` (`id` bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, `email` varchar(255) DEFAULT '' NOT NULL, `admin` boolean DEFAULT FALSE, `created_at` datetime(6) NOT NULL, `updated_at` datetime(6) NOT NULL,  INDEX `index_users_on_email`  (`email`));
INSERT INTO `schema_migrations` (`version`) VALUES ('20240101000000');
SELECT `schema_migrations`.`version` FROM `schema_migrations` ORDER BY `schema_migrations`.`version` ASC;
INSERT INTO `ar_internal_metadata` (`key`, `value`, `created_at`, `updated_at`) VALUES ('environment', 'development', '2024-01-01 00:00:00.000000', '2024-01-01 00:00:00.000000');
SELECT RELEASE_LOCK('8453928351');
SHOW FULL FIELDS FROM `users`;
SHOW KEYS FROM `users`;
SHOW CREATE TABLE `users`;
INSERT INTO `users` (`email`, `created_at`, `updated_at`) VALUES ('a@b.c', '2024-01-01 00:00:00.123456', '2024-01-01 00:00:00.123456');
SELECT `users`.* FROM `users` WHERE `users`.`email` = 'a@b.c' LIMIT 1;
SELECT 1 AS one FROM `users` WHERE `users`.`email` = BINARY 'a@b.c' LIMIT 1;
UPDATE `users` SET `users`.`admin` = TRUE, `users`.`updated_at` = '2024-01-02 00:00:00' WHERE `users`.`id` = 1;
SELECT `users`.`admin`, `users`.`updated_at` FROM `users`;
SELECT COUNT(*) FROM `users` WHERE `users`.`admin` = TRUE;

-- script: TypeORM's and Sequelize's schema reads and writes
CREATE TABLE `photo` (`id` int NOT NULL AUTO_INCREMENT, `name` varchar(100) NOT NULL, `views` int NOT NULL DEFAULT 0, `isPublished` tinyint NOT NULL, `createdAt` datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), PRIMARY KEY (`id`)) ENGINE=InnoDB;
SELECT `TABLE_NAME`, `TABLE_TYPE` FROM `INFORMATION_SCHEMA`.`TABLES` WHERE `TABLE_SCHEMA` = DATABASE() AND `TABLE_NAME` = 'photo';
SHOW INDEX FROM `photo`;
SELECT CONSTRAINT_NAME, TABLE_NAME, COLUMN_NAME, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME FROM INFORMATION_SCHEMA.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'photo' AND REFERENCED_TABLE_NAME IS NOT NULL;
INSERT INTO `photo`(`id`, `name`, `views`, `isPublished`, `createdAt`) VALUES (DEFAULT, 'a', DEFAULT, 1, DEFAULT);
SELECT `Photo`.`id` AS `Photo_id`, `Photo`.`name` AS `Photo_name` FROM `photo` `Photo` WHERE `Photo`.`id` IN (1);
SELECT COUNT(DISTINCT(`Photo`.`id`)) AS `cnt` FROM `photo` `Photo`;
UPDATE `photo` SET `views` = `views` + 1 WHERE `id` IN (1);
SELECT `views` FROM `photo`;
START TRANSACTION;
DELETE FROM `photo` WHERE `id` = 1;
COMMIT;
SELECT COUNT(*) FROM `photo`;

-- script: ENUM columns in string functions, CASE, COALESCE and FIELD
CREATE TABLE tk (id int PRIMARY KEY, status enum('new','open','closed') NOT NULL DEFAULT 'new', prio enum('low','high') NULL);
INSERT INTO tk VALUES (1, 'open', 'high'), (2, 'closed', NULL), (3, 'new', 'low'), (4, 'open', 'low');
SELECT status, COUNT(*) FROM tk GROUP BY status ORDER BY status;
SELECT COUNT(DISTINCT status) FROM tk;
SELECT CONCAT(status, '!') FROM tk ORDER BY id;
SELECT UPPER(status), LENGTH(status) FROM tk ORDER BY id;
SELECT GROUP_CONCAT(status ORDER BY id) FROM tk;
SELECT GROUP_CONCAT(DISTINCT status ORDER BY status) FROM tk;
SELECT MAX(status), MIN(status) FROM tk;
SELECT id FROM tk WHERE status = 'open' OR status IN ('closed') ORDER BY id;
SELECT id FROM tk WHERE status LIKE 'o%' ORDER BY id;
SELECT id, IF(status = 'open', 1, 0), CASE status WHEN 'new' THEN 'N' ELSE 'O' END FROM tk ORDER BY id;
SELECT id, COALESCE(prio, 'none') FROM tk ORDER BY id;
SELECT id FROM tk ORDER BY status, id;
SELECT id FROM tk ORDER BY FIELD(status, 'closed', 'open', 'new'), id;
UPDATE tk SET status = 'closed' WHERE status = 'open' AND prio = 'low';
SELECT status, prio FROM tk ORDER BY id;
SELECT id, IFNULL(prio, 0), COALESCE(prio, status), IF(id > 2, prio, status), COALESCE(prio, 'x') = 'low' FROM tk ORDER BY id;
SELECT COALESCE(prio, 'none') AS p, COUNT(*) FROM tk GROUP BY p ORDER BY p;
SELECT CONCAT_WS('/', status, prio), REPLACE(status, 'o', '0'), LEFT(status, 2), LOCATE('e', status), INSTR(status, 'e') FROM tk ORDER BY id;
SELECT id, CONCAT(status, '') AS s FROM tk ORDER BY s, id;
SELECT id, CONCAT(status, '') FROM tk ORDER BY 2, 1;
SELECT GROUP_CONCAT(status ORDER BY id) AS g FROM tk GROUP BY prio ORDER BY g;

-- script: SHOW WARNINGS and SHOW ERRORS with LIMIT keep the rows it asks for
SELECT 1 / 0, 2 / 0, 3 / 0;
SHOW WARNINGS LIMIT 1, 1;
SHOW WARNINGS LIMIT 2;
SHOW WARNINGS LIMIT 2 OFFSET 1;
SHOW WARNINGS LIMIT 5, 2;
SHOW COUNT(*) WARNINGS;
CREATE TABLE t1 (a INT);
CREATE TABLE t1 (a INT);
SHOW ERRORS LIMIT 1;
SHOW ERRORS LIMIT 1 OFFSET 1;

-- script: strings read as numbers warn as MySQL warns: 1292, a Note for trailing spaces only
SELECT CAST('12abc' AS SIGNED), CAST(' 12 ' AS SIGNED), CAST('12.5' AS SIGNED), CAST('' AS SIGNED);
SHOW WARNINGS;
SELECT CAST('abc' AS SIGNED), CAST('-' AS UNSIGNED), CAST('7' AS UNSIGNED);
SHOW WARNINGS;
SELECT '12abc' + 1, '1e2x' + 1, ' 5' + 1, '5 ' + 1, '' + 1;
SHOW WARNINGS;
SELECT CAST('3.5x' AS DOUBLE), CAST('3.5x' AS DECIMAL(5,2)), CAST('2.25' AS DECIMAL(5,2));
SHOW WARNINGS;
CREATE TABLE nums (s VARCHAR(10));
INSERT INTO nums VALUES ('1'), ('2x'), ('3 ');
SELECT s + 0 FROM nums ORDER BY s;
SHOW WARNINGS;

-- script: an empty string is no number in a strict write
CREATE TABLE e (i TINYINT, d DECIMAL(5,2), f DOUBLE);
INSERT INTO e VALUES ('', 1, 1);
INSERT INTO e VALUES (1, '', 1);
INSERT INTO e VALUES (1, 1, '');
INSERT INTO e VALUES (' 7 ', ' 2.5 ', ' 1e1 ');
UPDATE e SET f = '' + 0;
SELECT * FROM e;

-- script: a CAST's truncation is an error in a strict write, a warning elsewhere
CREATE TABLE w (k INT, v TEXT, d DECIMAL(5,2));
INSERT INTO w (k, v) VALUES (1, 'a'), (4, 'b');
INSERT INTO w (k, v) VALUES (2, CAST('12abc' AS SIGNED));
INSERT INTO w (k, v) SELECT CAST('2x' AS SIGNED), 'c';
INSERT INTO w (k, d) VALUES (3, CAST('3.5x' AS DECIMAL(5,2)));
INSERT INTO w (k, d) VALUES (3, CAST(' 3.5 ' AS DECIMAL(5,2)));
SHOW WARNINGS;
INSERT INTO w (k, v) VALUES (5, CAST('5x' AS DOUBLE));
INSERT IGNORE INTO w (k, v) VALUES (CAST('6x' AS SIGNED), 'd');
SHOW WARNINGS;
REPLACE INTO w (k, v) VALUES (CAST('8x' AS SIGNED), 'r');
UPDATE w SET v = CAST('7x' AS SIGNED) WHERE k = 4;
UPDATE w SET k = '9x' + 0 WHERE k = 4;
DELETE FROM w WHERE CAST(CONCAT(k, 'x') AS SIGNED) = 1;
SHOW WARNINGS;
SELECT k, v, d FROM w ORDER BY k;

-- script: a CAST to a DECIMAL too narrow gives its largest value with 1264, an error in a strict write
CREATE TABLE w (k INT, v TEXT, d DECIMAL(5,2));
INSERT INTO w (k, v) VALUES (1, CAST(1234.5 AS DECIMAL(4,1)));
INSERT INTO w (k, d) VALUES (2, CAST(-99.5 AS DECIMAL(3,1)));
SELECT CAST(1234.5 AS DECIMAL(4,1));
SHOW WARNINGS;
SELECT CAST(-1234.5 AS DECIMAL(4,1)) FROM w;
SHOW WARNINGS;
SELECT CAST(99.94 AS DECIMAL(3,1)) FROM w;
SHOW WARNINGS;
SELECT CAST(99.95 AS DECIMAL(3,1));
SHOW WARNINGS;
SELECT * FROM w;

-- script: values that are no date are NULL with 1292, an error in a strict write; numbers read as MySQL reads them
SELECT CAST('garbage' AS DATE);
SHOW WARNINGS;
SELECT CAST('2024-02-30' AS DATETIME);
SHOW WARNINGS;
SELECT DATE('garbage');
SHOW WARNINGS;
SELECT CAST(123 AS DATE), CAST(691231 AS DATE), CAST(700101 AS DATE), CAST(101 AS DATE), CAST(1231 AS DATE), CAST(10000101 AS DATE);
SELECT CAST(101000000 AS DATETIME), CAST(691231235959 AS DATETIME), CAST(20240229 AS DATETIME);
SELECT CAST(99 AS DATE);
SHOW WARNINGS;
CREATE TABLE dw (k INT, d DATE, v TEXT);
INSERT INTO dw (k, v) VALUES (1, CAST('garbage' AS DATE));
INSERT INTO dw (k, d) VALUES (2, CAST(240229 AS DATE));
SELECT * FROM dw;

-- script: || and && are OR and AND with their precedence
CREATE TABLE t (a INT, b INT);
INSERT INTO t VALUES (7, 2), (1, 5), (3, 0);
SELECT a FROM t WHERE a = 1 || b = 2 ORDER BY a;
SELECT a FROM t WHERE a > 1 && b > 1 || a = 3 ORDER BY a;
SELECT a FROM t WHERE a = 3 || a = 1 && b = 0 ORDER BY a;
SELECT a = 1 || b = 2, a > 1 && b >= 0, 1 || 0 && 0, 1 XOR 1 || 1, NOT 0 || 0, a FROM t ORDER BY a;
SELECT 2 + 3 || 0, 'a' || 'b', 1 = 2 || 3 = 3 && 0;

-- script: a negative DECIMAL or DOUBLE cast AS UNSIGNED is 0 with 1916
SELECT CAST(-0.4 AS UNSIGNED);
SHOW WARNINGS;
SELECT CAST(-0.5 AS UNSIGNED);
SHOW WARNINGS;
SELECT CAST(-2.5 AS UNSIGNED);
SHOW WARNINGS;
SELECT CAST(-1.5e0 AS UNSIGNED);
SHOW WARNINGS;
CREATE TABLE un (k INT, v INT);
INSERT INTO un VALUES (1, CAST(-1.5 AS UNSIGNED));
INSERT INTO un VALUES (2, CAST(-1.5e0 AS UNSIGNED));
SELECT * FROM un;

-- script: a string's integer past BIGINT cast AS SIGNED
SELECT CAST('18446744073709551615' AS SIGNED);
SHOW WARNINGS;
SELECT CAST('9223372036854775808' AS SIGNED);
SHOW WARNINGS;
SELECT CAST('99999999999999999999' AS SIGNED);
SHOW WARNINGS;
SELECT CAST('-9223372036854775809' AS SIGNED);
SHOW WARNINGS;

-- script: CAST AS CHAR(n) cuts with a warning
SELECT CAST('abcdef' AS CHAR(2));
SHOW WARNINGS;
SELECT CAST(12345 AS CHAR(3)), CAST('éèà' AS CHAR(2)), CAST(1.5 AS CHAR(1)), CAST('ab' AS CHAR(5));
CREATE TABLE cc (k INT, v TEXT);
INSERT INTO cc VALUES (1, CAST('abcdef' AS CHAR(2)));
SHOW WARNINGS;
SELECT * FROM cc;

-- script: binary columns hold their length, BINARY pads; FLOAT's range; bytes that are no text
CREATE TABLE bin (k INT PRIMARY KEY, b BINARY(3), vb VARBINARY(2), tb TINYBLOB, f FLOAT, d DOUBLE, c CHAR(3));
INSERT INTO bin (k, b, vb) VALUES (1, x'01', 'ab');
SELECT k, HEX(b), LENGTH(b), HEX(vb) FROM bin;
SELECT k FROM bin WHERE b = x'01';
SELECT k FROM bin WHERE b = x'010000';
INSERT INTO bin (k, b) VALUES (2, x'01020304');
INSERT INTO bin (k, vb) VALUES (3, 'abc');
INSERT INTO bin (k, tb) VALUES (4, REPEAT('x', 256));
INSERT INTO bin (k, tb) VALUES (5, REPEAT('x', 255));
INSERT INTO bin (k, f) VALUES (6, 1e39);
INSERT INTO bin (k, f) VALUES (7, -1e39);
INSERT INTO bin (k, d) VALUES (8, x'00');
INSERT INTO bin (k, d) VALUES (9, x'31');
INSERT INTO bin (k, c) VALUES (10, x'ff');
INSERT INTO bin (k, c) VALUES (11, x'c328');
INSERT INTO bin (k, c) VALUES (12, x'c3a9');
SELECT k, HEX(b), HEX(vb), LENGTH(tb), f, d, c FROM bin ORDER BY k;

-- script: TIMESTAMP holds 1970-01-01 00:00:01 to 2038-01-19 03:14:07
SET time_zone = '+00:00';
CREATE TABLE ts (k INT PRIMARY KEY, t TIMESTAMP NULL);
INSERT INTO ts VALUES (1, '2038-01-19 03:14:07'), (2, '1970-01-01 00:00:01'), (3, '0000-00-00 00:00:00');
INSERT INTO ts VALUES (4, '2038-01-19 03:14:08');
INSERT INTO ts VALUES (5, '1970-01-01 00:00:00');
INSERT INTO ts VALUES (6, '1969-12-31 23:59:59');
SELECT k, t FROM ts ORDER BY k;

-- script: a string that is no datetime compares as the zero date, with a warning
SELECT CAST('2024-02-29' AS DATE) > '';
SHOW WARNINGS;
SELECT CAST('2024-02-29' AS DATE) > 'x', CAST('2024-02-29' AS DATE) = '';
CREATE TABLE dz (k INT, d DATE);
INSERT INTO dz VALUES (1, '2024-02-29'), (2, '0000-00-00');
SELECT k FROM dz WHERE d = 'garbage' ORDER BY k;
SELECT k FROM dz WHERE d > '' ORDER BY k;

-- script: a cut CAST AS CHAR(n) of a number is an error in a strict write, of a string a warning
CREATE TABLE cc2 (k INT, v TEXT);
INSERT INTO cc2 VALUES (1, CAST('abcdef' AS CHAR(2)));
INSERT INTO cc2 VALUES (2, CAST(1000 AS CHAR(3)));
INSERT INTO cc2 VALUES (3, CAST('1000' AS CHAR(3)));
CREATE TABLE big (d DOUBLE);
INSERT INTO big VALUES ('1e400');
INSERT INTO big VALUES ('-1e400');
SELECT * FROM cc2 ORDER BY k;

-- script: NO_ZERO_DATE and NO_ZERO_IN_DATE refuse zero dates in strict writes
SET sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE';
CREATE TABLE zd (k INT, d DATE, t DATETIME);
INSERT INTO zd VALUES (1, '0000-00-00', NULL);
INSERT INTO zd VALUES (2, '2024-00-10', NULL);
INSERT INTO zd VALUES (3, NULL, '0000-00-00 00:00:00');
INSERT INTO zd VALUES (4, '2024-01-10', '2024-01-10 10:00:00');
SET sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_DATE';
INSERT INTO zd VALUES (5, '2024-00-10', NULL);
SET sql_mode = 'STRICT_TRANS_TABLES';
INSERT INTO zd VALUES (6, '0000-00-00', NULL);
SELECT * FROM zd ORDER BY k;

-- script: MAKETIME and TIMEDIFF edge forms, TIMESTAMP(), a NOT NULL column's message
SELECT MAKETIME(1, 2, 3), TIMEDIFF('2000-01-02 00:00:00', '1999-12-31 00:00:00'), TIMEDIFF('10:00:00', '08:30:00');
SELECT MAKETIME(0, 0, 1.5);
SELECT TIMEDIFF('2000-01-02', '1999-12-31');
SELECT TIMESTAMP('2024-01-01');

-- script: FROM DUAL is a FROM of no table
SELECT 2 FROM DUAL;
SELECT 1 + 1, 'x' FROM DUAL WHERE 1 = 1;
SELECT 1 FROM (SELECT 1) d;
