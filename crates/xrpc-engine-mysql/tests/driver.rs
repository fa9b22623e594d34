//! The backend driver on the event loop against a real MariaDB (started by `xrpc-testkit`):
//! statements of many submitters pipelined on few connections get their own answers, an error
//! touches only its statement, cancels end only their target, and a backend that dies answers
//! every statement in flight and is reconnected.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use xrpc_engine_mysql::driver::{CancelOutcome, Completion, Driver, DriverOptions, Pinned};
use xrpc_mysql_proto::{ColumnSet, Config, OkInfo, StatementError, TextRow};
use xrpc_net::{NetConfig, NoClients, Server};

const WAIT: Duration = Duration::from_secs(30);

fn node() -> Server<NoClients> {
    let cfg = NetConfig {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        groups: 1,
        threads_per_group: 2,
        bind_cores: false,
        ..NetConfig::default()
    };
    Server::start(cfg, NoClients).unwrap()
}

/// Options for the database at `url` (`mysql://user:password@host:port/db`).
fn options(url: &str, connections: usize, max_depth: usize) -> DriverOptions {
    let rest = url.strip_prefix("mysql://").unwrap();
    let (credentials, rest) = rest.split_once('@').unwrap();
    let (user, password) = credentials.split_once(':').unwrap();
    let (address, database) = rest.split_once('/').unwrap();
    let mut config = Config::new(user, password);
    config.database = Some(database.to_owned());
    let mut opts = DriverOptions::new(address.parse().unwrap(), config);
    opts.connections = connections;
    opts.max_depth = max_depth;
    opts
}

/// One statement's answer: its rows as text, its outcome, and the worker thread that ended it.
#[derive(Debug)]
struct Answer {
    key: u64,
    rows: Vec<Vec<Option<String>>>,
    outcome: Result<OkInfo, StatementError>,
    thread: String,
}

impl Answer {
    fn code(&self) -> Option<u16> {
        self.outcome.as_ref().err().map(|e| e.code)
    }
}

struct Collect {
    key: u64,
    rows: Vec<Vec<Option<String>>>,
    done: Sender<Answer>,
}

fn collect(key: u64, done: &Sender<Answer>) -> Box<dyn Completion> {
    Box::new(Collect {
        key,
        rows: Vec::new(),
        done: done.clone(),
    })
}

impl Completion for Collect {
    fn on_columns(&mut self, _: &Arc<ColumnSet>) {}

    fn on_row(&mut self, row: &TextRow) {
        self.rows.push(
            row.values()
                .map(|v| v.map(|b| String::from_utf8_lossy(b).into_owned()))
                .collect(),
        );
    }

    fn on_done(self: Box<Self>, outcome: Result<OkInfo, StatementError>) {
        let _ = self.done.send(Answer {
            key: self.key,
            rows: self.rows,
            outcome,
            thread: std::thread::current().name().unwrap_or("").to_owned(),
        });
    }
}

fn answers(rx: &Receiver<Answer>, n: usize) -> Vec<Answer> {
    (0..n)
        .map(|i| {
            rx.recv_timeout(WAIT)
                .unwrap_or_else(|_| panic!("answer {i} of {n} within {WAIT:?}"))
        })
        .collect()
}

fn database() -> String {
    xrpc_testkit::shared_database().expect("MariaDB starts")
}

/// Waits until `n` connections have logged in and each has answered a statement, so that the
/// driver's own set-up statements are behind them and every connection starts empty.
fn wait_connected(driver: &Driver, n: usize) {
    let deadline = Instant::now() + WAIT;
    while driver.connected() < n {
        assert!(Instant::now() < deadline, "{n} backend connections log in");
        std::thread::sleep(Duration::from_millis(2));
    }
    let (tx, rx) = channel();
    for key in 0..n as u64 {
        driver.submit("SELECT 1", collect(key, &tx));
    }
    answers(&rx, n);
}

#[test]
fn statements_of_many_submitters_pipelined_on_one_connection_get_their_own_answers() {
    const THREADS: u64 = 8;
    const EACH: u64 = 100;
    let node = node();
    let driver = Driver::start(node.groups(), options(&database(), 1, 32));
    let (tx, rx) = channel();
    let submitters: Vec<_> = (0..THREADS)
        .map(|t| {
            let (driver, tx) = (driver.clone(), tx.clone());
            std::thread::spawn(move || {
                for i in 0..EACH {
                    let key = t * 1000 + i;
                    driver.submit(
                        format!("SELECT {key}, REPEAT('s', {})", key % 37),
                        collect(key, &tx),
                    );
                }
            })
        })
        .collect();
    for s in submitters {
        s.join().unwrap();
    }
    for answer in answers(&rx, (THREADS * EACH) as usize) {
        assert!(answer.outcome.is_ok(), "{answer:?}");
        assert_eq!(
            answer.rows,
            [[
                Some(answer.key.to_string()),
                Some("s".repeat((answer.key % 37) as usize))
            ]],
            "statement {} got its own row",
            answer.key
        );
    }
    let depths = driver.depth_distribution();
    assert_eq!(depths.iter().sum::<u64>(), THREADS * EACH);
    assert!(
        depths[1..].iter().sum::<u64>() > 0,
        "statements were pipelined behind others: {depths:?}"
    );
    driver.close();
    node.shutdown();
}

#[test]
fn answers_are_read_by_the_groups_workers_not_the_submitter() {
    let node = node();
    let driver = Driver::start(node.groups(), options(&database(), 1, 8));
    wait_connected(&driver, 1);
    let (tx, rx) = channel();
    driver.submit("SELECT SLEEP(0.05), 1", collect(1, &tx));
    let answer = &answers(&rx, 1)[0];
    assert!(
        answer.thread.starts_with("xrpc-g"),
        "the answer came on a worker, not {:?}",
        answer.thread
    );
    driver.close();
    node.shutdown();
}

#[test]
fn an_error_in_one_pipelined_statement_leaves_its_neighbours_intact() {
    let node = node();
    let driver = Driver::start(node.groups(), options(&database(), 1, 16));
    wait_connected(&driver, 1);
    let (tx, rx) = channel();
    let statements = [
        "SELECT 1",
        "SELECT * FROM no_such_table",
        "SELECT 3",
        "SELEKT 4",
        "SELECT 5",
    ];
    for (key, sql) in (0u64..).zip(statements) {
        driver.submit(sql, collect(key, &tx));
    }
    let mut got = answers(&rx, statements.len());
    got.sort_by_key(|a| a.key);
    assert_eq!(got[0].rows, [[Some("1".to_owned())]]);
    assert_eq!(got[1].code(), Some(1146));
    assert_eq!(got[2].rows, [[Some("3".to_owned())]]);
    assert_eq!(got[3].code(), Some(1064));
    assert_eq!(got[4].rows, [[Some("5".to_owned())]]);
    driver.close();
    node.shutdown();
}

/// How many statements found their connection at each depth so far (`depth_distribution`,
/// bucket by bucket: 1, 2, 3–4, 5–8, …).
fn depths(driver: &Driver) -> Vec<u64> {
    driver.depth_distribution().to_vec()
}

#[test]
fn statements_fill_one_connection_up_to_the_fill_depth_before_another_gets_any() {
    let node = node();
    let url = database();
    let mut opts = options(&url, 4, 16);
    opts.fill_depth = 4;
    opts.fill_stall = Duration::from_secs(60);
    let driver = Driver::start(node.groups(), opts);
    wait_connected(&driver, 4);
    let before = depths(&driver);
    let (tx, rx) = channel();
    // The head sleeps so that all six are in flight at once.
    driver.submit("SELECT SLEEP(0.3)", collect(0, &tx));
    for key in 1..6 {
        driver.submit(format!("SELECT {key}"), collect(key, &tx));
    }
    answers(&rx, 6);
    let placed: Vec<u64> = depths(&driver)
        .iter()
        .zip(&before)
        .map(|(a, b)| a - b)
        .collect();
    // Spread over the four, six statements would find depths 1, 1, 1, 1, 2, 2. Filled, they
    // reach 3 and 4 (a connection whose handler holds its state at that instant is skipped, so
    // the exact split varies), and never pass the fill depth while another has room.
    assert!(
        placed[2] >= 1 && placed[3..].iter().all(|&n| n == 0),
        "depths (1, 2, 3-4, 5-8, …): {placed:?}"
    );
    driver.close();
    node.shutdown();
}

#[test]
fn a_statement_is_not_pipelined_behind_one_already_sent_while_another_connection_is_idle() {
    let node = node();
    let url = database();
    let driver = Driver::start(node.groups(), options(&url, 2, 16));
    wait_connected(&driver, 2);
    let (tx, rx) = channel();
    driver.submit("SELECT SLEEP(5)", collect(0, &tx));
    // Once it runs on the backend (until it is written, a statement placed beside it fills its
    // connection by design), the next statement must not queue behind it, however young it is.
    use mysql::prelude::Queryable;
    let mut side = mysql::Conn::new(mysql::Opts::from_url(&url).unwrap()).unwrap();
    wait_until("the sleep runs on the backend", || {
        side.query_first::<u64, _>(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%SLEEP(5)%' \
             AND INFO NOT LIKE '%PROCESSLIST%'",
        )
        .unwrap()
            == Some(1)
    });
    let started = Instant::now();
    driver.submit("SELECT 'beside'", collect(1, &tx));
    let first = answers(&rx, 1);
    assert_eq!(
        (first[0].key, started.elapsed() < Duration::from_secs(4)),
        (1, true),
        "answered on the other connection while the sleep runs: {first:?}"
    );
    answers(&rx, 1);
    driver.close();
    node.shutdown();
}

#[test]
fn a_statement_cancelled_while_queued_in_the_driver_ends_with_1317_and_never_runs() {
    let node = node();
    let driver = Driver::start(node.groups(), options(&database(), 1, 1));
    wait_connected(&driver, 1);
    let (tx, rx) = channel();
    driver.submit("SELECT SLEEP(0.5)", collect(0, &tx));
    let queued = driver.submit("CREATE TABLE never_created (id INT)", collect(1, &tx));
    assert_eq!(
        driver.queued(),
        1,
        "depth 1: the second waits in the driver"
    );
    assert_eq!(driver.cancel(queued), CancelOutcome::Removed);
    let mut got = answers(&rx, 2);
    got.sort_by_key(|a| a.key);
    assert!(got[0].outcome.is_ok(), "{:?}", got[0]);
    assert_eq!(got[1].code(), Some(1317));
    let (tx2, rx2) = channel();
    driver.submit(
        "SELECT COUNT(*) FROM information_schema.TABLES \
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'never_created'",
        collect(2, &tx2),
    );
    assert_eq!(answers(&rx2, 1)[0].rows, [[Some("0".to_owned())]]);
    driver.close();
    node.shutdown();
}

/// Waits until the backend runs a statement whose text contains `needle`.
fn wait_running(url: &str, needle: &str) {
    use mysql::prelude::Queryable;
    let mut side = mysql::Conn::new(mysql::Opts::from_url(url).unwrap()).unwrap();
    let deadline = Instant::now() + WAIT;
    loop {
        let running: Option<u64> = side
            .exec_first(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST \
                 WHERE INFO LIKE CONCAT('%', ?, '%') AND INFO NOT LIKE '%PROCESSLIST%'",
                (needle,),
            )
            .unwrap();
        if running == Some(1) {
            return;
        }
        assert!(Instant::now() < deadline, "{needle} runs on the backend");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_kill_ends_only_its_statement_and_not_the_one_pipelined_behind_it() {
    let node = node();
    let url = database();
    let mut opts = options(&url, 2, 16);
    // Statements fill one connection however long its head runs: the target, the filler and
    // the neighbour are pipelined there in that order; the kill's look-up uses the other.
    opts.fill_stall = Duration::from_secs(60);
    let driver = Driver::start(node.groups(), opts);
    wait_connected(&driver, 2);
    let (tx, rx) = channel();
    let target = driver.submit("SELECT SLEEP(20)", collect(0, &tx));
    driver.submit("SELECT SLEEP(0.2)", collect(9, &tx));
    driver.submit("SELECT 'after'", collect(1, &tx));
    wait_running(&url, "SLEEP(20)");
    let started = Instant::now();
    assert_eq!(driver.cancel(target), CancelOutcome::KillSent);
    let mut got = answers(&rx, 3);
    got.sort_by_key(|a| a.key);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "the sleep was killed"
    );
    assert_eq!(got[0].code(), Some(1317), "{:?}", got[0]);
    assert_eq!(got[1].rows, [[Some("after".to_owned())]], "{:?}", got[1]);
    assert!(got[2].outcome.is_ok(), "{:?}", got[2]);
    driver.close();
    node.shutdown();
}

#[test]
fn a_backend_that_dies_answers_every_statement_in_flight_with_2013_and_is_reconnected() {
    const IN_FLIGHT: u64 = 30;
    let mut db = xrpc_testkit::MariaDb::start().expect("MariaDB starts");
    let node = node();
    let mut opts = options(&db.url(), 1, 64);
    opts.reconnect_min = Duration::from_millis(20);
    opts.reconnect_max = Duration::from_millis(200);
    let driver = Driver::start(node.groups(), opts);
    wait_connected(&driver, 1);
    let (tx, rx) = channel();
    for key in 0..IN_FLIGHT {
        driver.submit("SELECT SLEEP(30)", collect(key, &tx));
    }
    // Every statement is on the wire before the server dies.
    std::thread::sleep(Duration::from_millis(200));
    db.stop();
    let got = answers(&rx, IN_FLIGHT as usize);
    assert!(
        got.iter().all(|a| a.code() == Some(2013)),
        "every statement in flight ended with 2013: {:?}",
        got.iter().map(Answer::code).collect::<Vec<_>>()
    );
    db.restart().expect("MariaDB restarts");
    let deadline = Instant::now() + WAIT;
    loop {
        let (tx, rx) = channel();
        driver.submit("SELECT 42", collect(0, &tx));
        let answer = &answers(&rx, 1)[0];
        if answer.outcome.is_ok() {
            assert_eq!(answer.rows, [[Some("42".to_owned())]]);
            break;
        }
        assert!(Instant::now() < deadline, "the driver reconnected");
        std::thread::sleep(Duration::from_millis(50));
    }
    driver.close();
    node.shutdown();
}

/// A database URL whose port refuses connections.
fn unreachable_url() -> String {
    let refused = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    format!("mysql://u:p@{refused}/db")
}

/// A database URL whose port accepts connections (into the listen backlog) and never answers
/// them: a backend that hangs. It does so while the listener lives.
fn silent_backend() -> (std::net::TcpListener, String) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("mysql://u:p@{}/db", listener.local_addr().unwrap());
    (listener, url)
}

#[test]
fn statements_for_an_unreachable_backend_end_with_2003_at_once() {
    let node = node();
    let mut opts = options(&unreachable_url(), 2, 4);
    opts.queue_timeout = WAIT * 2;
    let driver = Driver::start(node.groups(), opts);
    let started = Instant::now();
    let (tx, rx) = channel();
    for key in 0..3 {
        driver.submit("SELECT 1", collect(key, &tx));
    }
    let got = answers(&rx, 3);
    assert!(got.iter().all(|a| a.code() == Some(2003)), "{got:?}");
    let message = &got[0].outcome.as_ref().unwrap_err().message;
    assert!(message.contains("Can't connect"), "{message}");
    assert!(started.elapsed() < WAIT, "{:?}", started.elapsed());
    // Once a connect has failed, a statement fails without waiting for the next attempt.
    driver.submit("SELECT 1", collect(3, &tx));
    assert_eq!(answers(&rx, 1)[0].code(), Some(2003));
    assert_eq!(driver.queued(), 0);
    driver.close();
    node.shutdown();
}

#[test]
fn statements_queued_when_the_backend_dies_end_with_2003_when_it_cannot_be_reached() {
    let mut db = xrpc_testkit::MariaDb::start().expect("MariaDB starts");
    let node = node();
    let mut opts = options(&db.url(), 1, 1);
    opts.queue_timeout = WAIT * 2;
    let driver = Driver::start(node.groups(), opts);
    wait_connected(&driver, 1);
    let (tx, rx) = channel();
    driver.submit("SELECT SLEEP(30)", collect(0, &tx));
    for key in 1..=3 {
        driver.submit("SELECT 1", collect(key, &tx));
    }
    wait_until("three statements wait for room", || driver.queued() == 3);
    let stopped_at = Instant::now();
    db.stop();
    let got = answers(&rx, 4);
    let codes: Vec<(u64, Option<u16>)> = got.iter().map(|a| (a.key, a.code())).collect();
    assert_eq!(
        codes,
        [
            (0, Some(2013)),
            (1, Some(2003)),
            (2, Some(2003)),
            (3, Some(2003))
        ],
        "the statement in flight is lost, the queued ones find no backend"
    );
    assert!(
        stopped_at.elapsed() < WAIT,
        "not after the queue timeout: {:?}",
        stopped_at.elapsed()
    );
    db.restart().expect("MariaDB restarts");
    wait_until("the driver logs in again", || driver.connected() == 1);
    driver.submit("SELECT 42", collect(4, &tx));
    assert_eq!(answers(&rx, 1)[0].rows, [[Some("42".to_owned())]]);
    driver.close();
    node.shutdown();
}

#[test]
fn statements_waiting_for_a_backend_that_does_not_answer_end_with_2013_when_the_driver_closes() {
    let node = node();
    let (_listener, url) = silent_backend();
    let mut opts = options(&url, 2, 4);
    opts.reconnect_min = Duration::from_millis(5);
    let driver = Driver::start(node.groups(), opts);
    let (tx, rx) = channel();
    for key in 0..5 {
        driver.submit("SELECT 1", collect(key, &tx));
    }
    assert_eq!(driver.queued(), 5, "no connection logs in: all wait");
    driver.close();
    let got = answers(&rx, 5);
    assert!(got.iter().all(|a| a.code() == Some(2013)), "{got:?}");
    driver.submit("SELECT 1", collect(5, &tx));
    assert_eq!(answers(&rx, 1)[0].code(), Some(2013), "after close too");
    node.shutdown();
}

/// The value of the `SHOW STATUS` row `name` of the driver.
fn status(driver: &Driver, name: &str) -> u64 {
    driver
        .status_rows()
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("status row {name}"))
        .1
        .parse()
        .unwrap()
}

/// Waits until `done` holds, checking every few milliseconds.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !done() {
        assert!(Instant::now() < deadline, "{what} within {WAIT:?}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_statement_queued_longer_than_the_queue_timeout_ends_with_7009_and_never_runs() {
    let node = node();
    let mut opts = options(&database(), 1, 1);
    opts.queue_timeout = Duration::from_millis(100);
    let driver = Driver::start(node.groups(), opts);
    wait_connected(&driver, 1);
    let (tx, rx) = channel();
    driver.submit("SELECT SLEEP(2)", collect(0, &tx));
    driver.submit("CREATE TABLE never_created_late (id INT)", collect(1, &tx));
    let first = rx.recv_timeout(WAIT).expect("an answer");
    assert_eq!(first.key, 1, "the queued statement ends first: {first:?}");
    assert_eq!(first.code(), Some(7009), "{first:?}");
    let message = &first.outcome.as_ref().unwrap_err().message;
    assert!(message.contains("within 100 ms"), "{message}");
    assert_eq!(status(&driver, "xrpc_backend_queue_timeouts"), 1);
    assert!(answers(&rx, 1)[0].outcome.is_ok(), "the sleep finished");
    let (tx2, rx2) = channel();
    driver.submit(
        "SELECT COUNT(*) FROM information_schema.TABLES \
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'never_created_late'",
        collect(2, &tx2),
    );
    assert_eq!(answers(&rx2, 1)[0].rows, [[Some("0".to_owned())]]);
    driver.close();
    node.shutdown();
}

#[test]
fn statements_queued_for_a_backend_that_does_not_answer_end_with_7009_at_the_queue_timeout() {
    let node = node();
    let (_listener, url) = silent_backend();
    let mut opts = options(&url, 2, 4);
    opts.queue_timeout = Duration::from_millis(50);
    let driver = Driver::start(node.groups(), opts);
    let (tx, rx) = channel();
    for key in 0..3 {
        driver.submit("SELECT 1", collect(key, &tx));
    }
    let got = answers(&rx, 3);
    assert!(got.iter().all(|a| a.code() == Some(7009)), "{got:?}");
    assert_eq!(driver.queued(), 0);
    driver.close();
    node.shutdown();
}

#[test]
fn the_queue_timeout_is_checked_at_the_time_given_to_tick() {
    let node = node();
    let (_listener, url) = silent_backend();
    let mut opts = options(&url, 1, 4);
    opts.queue_timeout = Duration::from_secs(3600);
    let driver = Driver::start(node.groups(), opts);
    let (tx, rx) = channel();
    driver.submit("SELECT 1", collect(0, &tx));
    driver.tick(Instant::now() + Duration::from_secs(1800));
    assert_eq!(driver.queued(), 1, "half the timeout: still waiting");
    driver.tick(Instant::now() + Duration::from_secs(3601));
    assert_eq!(driver.queued(), 0);
    assert_eq!(answers(&rx, 1)[0].code(), Some(7009));
    driver.close();
    node.shutdown();
}

/// The backend connection id a statement of the shared rotation runs on.
fn shared_connection_id(driver: &Driver) -> String {
    let (tx, rx) = channel();
    driver.submit("SELECT CONNECTION_ID()", collect(0, &tx));
    let answer = answers(&rx, 1).remove(0);
    answer.rows[0][0].clone().expect("an id")
}

fn pinned_rows(pinned: &Pinned, sql: &str) -> Vec<Vec<Option<String>>> {
    let (tx, rx) = channel();
    pinned.submit(sql, collect(0, &tx));
    let answer = answers(&rx, 1).remove(0);
    assert!(answer.outcome.is_ok(), "{sql}: {answer:?}");
    answer.rows
}

#[test]
fn a_pinned_connection_keeps_its_sessions_state_and_gets_no_other_statement() {
    let node = node();
    let driver = Driver::start(node.groups(), options(&database(), 2, 8));
    wait_connected(&driver, 2);
    let pinned = driver.pin().expect("a connection to pin");
    let pinned_id = pinned.thread_id().expect("logged in").to_string();
    pinned_rows(&pinned, "SET @owner = 'pinned'");
    for _ in 0..20 {
        assert_ne!(
            shared_connection_id(&driver),
            pinned_id,
            "the shared rotation skips the pinned connection"
        );
    }
    assert_eq!(
        pinned_rows(&pinned, "SELECT @owner, CONNECTION_ID()"),
        [[Some("pinned".to_owned()), Some(pinned_id.clone())]]
    );
    assert_eq!(status(&driver, "xrpc_backend_connections_pinned"), 1);
    driver.close();
    node.shutdown();
}

#[test]
fn an_unpinned_connection_rejoins_the_rotation_reset_and_with_the_trackers_set_up() {
    let node = node();
    let driver = Driver::start(node.groups(), options(&database(), 1, 8));
    wait_connected(&driver, 1);
    let pinned = driver.pin().expect("a connection to pin");
    let pinned_id = pinned.thread_id().unwrap().to_string();
    assert!(driver.pin().is_none(), "the only connection is pinned");
    pinned_rows(
        &pinned,
        "SET @owner = 'pinned', SESSION session_track_system_variables = ''",
    );
    // Waits in the driver's queue: the only connection is pinned.
    let (tx, rx) = channel();
    driver.submit(
        "SELECT @owner, CONNECTION_ID(), @@session_track_system_variables",
        collect(1, &tx),
    );
    assert_eq!(driver.queued(), 1);
    pinned.unpin();
    assert_eq!(
        answers(&rx, 1)[0].rows,
        [[None, Some(pinned_id), Some("*".to_owned())]],
        "the same connection, its variable gone, the trackers on again"
    );
    assert_eq!(status(&driver, "xrpc_backend_connections_pinned"), 0);
    driver.close();
    node.shutdown();
}

#[test]
fn a_pinned_sessions_statements_beyond_the_depth_wait_in_order_and_all_get_answers() {
    let node = node();
    let driver = Driver::start(node.groups(), options(&database(), 1, 2));
    wait_connected(&driver, 1);
    let pinned = driver.pin().expect("a connection to pin");
    let (tx, rx) = channel();
    pinned.submit("SET @n = 0", collect(0, &tx));
    for key in 1..=20 {
        pinned.submit("SELECT @n := @n + 1", collect(key, &tx));
    }
    let got = answers(&rx, 21);
    for answer in &got[1..] {
        assert_eq!(
            answer.rows,
            [[Some(answer.key.to_string())]],
            "in submission order"
        );
    }
    drop(pinned);
    assert!(
        !shared_connection_id(&driver).is_empty(),
        "given back on drop"
    );
    driver.close();
    node.shutdown();
}

#[test]
fn a_pinned_connection_that_is_lost_ends_its_statements_with_2013() {
    use mysql::prelude::Queryable;
    let node = node();
    let url = database();
    let driver = Driver::start(node.groups(), options(&url, 2, 8));
    wait_connected(&driver, 2);
    let pinned = driver.pin().expect("a connection to pin");
    let id = pinned.thread_id().unwrap();
    let mut side = mysql::Conn::new(mysql::Opts::from_url(&url).unwrap()).unwrap();
    side.query_drop(format!("KILL {id}")).unwrap();
    let (tx, rx) = channel();
    wait_until("the pinned connection is seen closed", || {
        pinned.submit("SELECT 1", collect(0, &tx));
        let answer = answers(&rx, 1).remove(0);
        answer.code() == Some(2013)
    });
    assert!(!pinned.is_open());
    pinned.unpin();
    wait_until("the slot is reconnected", || driver.connected() == 2);
    driver.close();
    node.shutdown();
}

#[test]
fn statements_that_queue_open_connections_up_to_the_size() {
    let node = node();
    let mut opts = options(&database(), 3, 1);
    opts.min_connections = Some(1);
    let driver = Driver::start(node.groups(), opts);
    // No probe statement: one submitted while the first connection still sets itself up after
    // its login would queue, and open a second connection before the test asks for any.
    wait_until("the first connection", || driver.connected() >= 1);
    assert_eq!(driver.connected(), 1, "the minimum at start");
    let (tx, rx) = channel();
    for key in 0..4 {
        driver.submit("SELECT SLEEP(1)", collect(key, &tx));
    }
    wait_until("three connections", || driver.connected() == 3);
    let got = answers(&rx, 4);
    assert!(got.iter().all(|a| a.outcome.is_ok()), "{got:?}");
    assert_eq!(driver.connected(), 3, "never more than the size");
    driver.close();
    node.shutdown();
}

/// A driver of one connection that grows to two when the average depth passes 2, logged in,
/// with the depths placed so far counted by a tick.
fn growing_by_depth(node: &Server<NoClients>) -> Driver {
    let mut opts = options(&database(), 2, 16);
    opts.min_connections = Some(1);
    opts.grow_at_depth = 2;
    opts.queue_timeout = Duration::from_secs(3600);
    let driver = Driver::start(node.groups(), opts);
    wait_connected(&driver, 1);
    driver.tick(Instant::now());
    driver
}

#[test]
fn a_deep_average_pipeline_opens_another_connection_at_the_tick() {
    let node = node();
    let driver = growing_by_depth(&node);
    let (tx, rx) = channel();
    for key in 0..8 {
        driver.submit("SELECT SLEEP(0.05)", collect(key, &tx));
    }
    assert_eq!(driver.queued(), 0, "depth 16: nothing queues");
    driver.tick(Instant::now());
    wait_until("a second connection", || driver.connected() == 2);
    answers(&rx, 8);
    driver.close();
    node.shutdown();
}

#[test]
fn statements_one_at_a_time_do_not_open_another_connection() {
    let node = node();
    let driver = growing_by_depth(&node);
    let opened = status(&driver, "xrpc_backend_connections_opened");
    for _ in 0..8 {
        shared_connection_id(&driver);
    }
    driver.tick(Instant::now());
    assert_eq!(status(&driver, "xrpc_backend_connections_opened"), opened);
    driver.close();
    node.shutdown();
}

#[test]
fn connections_idle_beyond_the_minimum_are_closed_at_the_tick() {
    let node = node();
    let mut opts = options(&database(), 3, 4);
    opts.min_connections = Some(1);
    opts.idle_close_after = Duration::from_secs(600);
    opts.queue_timeout = Duration::from_secs(3600);
    let driver = Driver::start(node.groups(), opts);
    wait_connected(&driver, 1);
    let (tx, rx) = channel();
    for key in 0..12 {
        driver.submit("SELECT SLEEP(0.3)", collect(key, &tx));
    }
    wait_until("three connections", || driver.connected() == 3);
    answers(&rx, 12);
    driver.tick(Instant::now() + Duration::from_secs(60));
    assert_eq!(driver.connected(), 3, "not idle long enough yet");
    driver.tick(Instant::now() + Duration::from_secs(601));
    assert_eq!(driver.connected(), 1, "down to the minimum");
    assert_eq!(status(&driver, "xrpc_backend_connections_closed_idle"), 2);
    assert!(
        !shared_connection_id(&driver).is_empty(),
        "the one left serves"
    );
    driver.close();
    node.shutdown();
}

#[test]
fn status_rows_count_connections_queue_and_depths() {
    let node = node();
    let driver = Driver::start(node.groups(), options(&database(), 1, 4));
    wait_connected(&driver, 1);
    let rows = driver.status_rows();
    let names: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "xrpc_backend_connections",
            "xrpc_backend_connections_pinned",
            "xrpc_backend_connections_parked",
            "xrpc_backend_connections_opened",
            "xrpc_backend_connections_closed_idle",
            "xrpc_backend_connections_expired",
            "xrpc_backend_connect_errors",
            "xrpc_backend_lost",
            "xrpc_backend_queued",
            "xrpc_backend_pin_queued",
            "xrpc_backend_queue_timeouts",
            "xrpc_backend_helps",
            "xrpc_backend_pipeline_depth_1",
            "xrpc_backend_pipeline_depth_2",
            "xrpc_backend_pipeline_depth_4",
            "xrpc_backend_pipeline_depth_8",
            "xrpc_backend_pipeline_depth_16",
            "xrpc_backend_pipeline_depth_32",
            "xrpc_backend_pipeline_depth_64",
            "xrpc_backend_pipeline_depth_over_64",
        ]
    );
    assert_eq!(status(&driver, "xrpc_backend_connections"), 1);
    assert_eq!(status(&driver, "xrpc_backend_connections_opened"), 1);
    let depths: u64 = rows[12..]
        .iter()
        .map(|(_, v)| v.parse::<u64>().unwrap())
        .sum();
    assert_eq!(depths, 1, "the statement of wait_connected");
    driver.close();
    node.shutdown();
}

#[test]
fn a_pin_that_finds_every_connection_taken_opens_another_for_the_next_pin() {
    let node = node();
    let mut opts = options(&database(), 2, 4);
    opts.min_connections = Some(1);
    let driver = Driver::start(node.groups(), opts);
    wait_connected(&driver, 1);
    let first = driver.pin().expect("a connection to pin");
    assert!(driver.pin().is_none(), "the only connection is pinned");
    wait_until("a second connection", || driver.connected() == 2);
    let second = driver.pin().expect("the new connection");
    assert_ne!(first.thread_id(), second.thread_id());
    driver.close();
    node.shutdown();
}

#[test]
fn a_connection_lost_while_given_back_is_replaced_by_a_fresh_one() {
    use mysql::prelude::Queryable;
    let node = node();
    let url = database();
    let driver = Driver::start(node.groups(), options(&url, 1, 8));
    wait_connected(&driver, 1);
    let pinned = driver.pin().expect("a connection to pin");
    let pinned_id = pinned.thread_id().unwrap();
    let (tx, rx) = channel();
    pinned.submit("SET @owner = 'pinned'", collect(0, &tx));
    pinned.submit("SELECT SLEEP(20)", collect(1, &tx));
    // The reset and the trackers wait behind the sleep.
    pinned.unpin();
    wait_running(&url, "SLEEP(20)");
    let mut side = mysql::Conn::new(mysql::Opts::from_url(&url).unwrap()).unwrap();
    side.query_drop(format!("KILL {pinned_id}")).unwrap();
    let mut got = answers(&rx, 2);
    got.sort_by_key(|a| a.key);
    assert_eq!(got[1].code(), Some(2013), "{:?}", got[1]);
    let (tx, rx) = channel();
    driver.submit("SELECT @owner, CONNECTION_ID()", collect(2, &tx));
    let answer = answers(&rx, 1).remove(0);
    assert_eq!(answer.rows[0][0], None, "no state of the pinned session");
    assert_ne!(
        answer.rows[0][1],
        Some(pinned_id.to_string()),
        "a new connection"
    );
    driver.close();
    node.shutdown();
}
