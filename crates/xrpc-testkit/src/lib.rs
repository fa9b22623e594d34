//! Test helpers shared by the xrpc crates.
//!
//! [`client::Client`] is a blocking raw-frame client for tests of a node.
//!
//! [`rng::seeded_rng`] gives a test random inputs it prints the seed of, so a failure repeats.
//!
//! [`tls::TestPki`] makes the certificates of TLS tests (an authority, node, client and expired
//! certificates as PEM files).
//!
//! [`MariaDb`] starts a private MariaDB server for one test (or one test binary). What it
//! guarantees:
//!
//! - **Private.** A fresh data directory made by `mariadb-install-db` in a new temporary
//!   directory; `mariadbd` on a free 127.0.0.1 port with its own socket, pid file, error log and
//!   temporary directory. Nothing else on the machine is touched: the system's MariaDB service
//!   and its configuration files (`--no-defaults`) are ignored.
//! - **Ready and set up.** When [`MariaDb::start`] returns, the server accepts connections and
//!   has a user [`USER`] (password the same) with every privilege, reachable over TCP, and a
//!   database [`DATABASE`] (utf8mb4, binary collation). `root` has no password and logs in over
//!   the socket only ([`MariaDb::admin`]).
//! - **Several at once.** Each instance has its own `TMPDIR` (two bootstraps sharing /tmp collide
//!   on their temporary files and fail). As a further safety net, `mariadb-install-db` runs one
//!   at a time within a process (test binary), and a failed install is retried in a fresh data
//!   directory (up to [`INSTALL_ATTEMPTS`] times; the last failure is the error). Servers
//!   themselves start and run concurrently.
//! - **Cleaned up.** Dropping it stops the server (SIGTERM, then SIGKILL after 20 s) and deletes
//!   the directory.
//! - **Loud.** A missing `mariadbd` is an error ([`MariaDbError::NotInstalled`]), never a silent
//!   skip: tests that compare against MariaDB must fail on a machine without it.
//!   `scripts/test.sh` installs `mariadb-server` and `mariadb-client` when `mariadbd` is missing.
//!
//! [`differential`] is the differential corpus's harness: outcomes as text, MariaDB's
//! outcome, their comparison, and the comparison of whole scripts.
//!
//! [`shared_database`] gives a fresh database on one server per process instead, for suites that
//! run every test on both engines.
//!
//! For failure tests, [`MariaDb::stop`] kills the server as a crash would and
//! [`MariaDb::restart`] starts it again on the same port and data; [`MariaDb::start_with`]
//! passes extra `mariadbd` options, and [`MariaDb::log`] returns its error log.

pub mod client;
pub mod differential;
pub mod rng;
pub mod tls;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;

/// How long the server may take to accept connections after it starts.
const READY_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a stopping server may take before it is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(20);
/// Serialises `mariadb-install-db` runs within the process.
static INSTALL: Mutex<()> = Mutex::new(());
/// How many times `mariadb-install-db` is tried, each in a fresh data directory.
pub const INSTALL_ATTEMPTS: usize = 3;

/// Why a MariaDB server could not be started.
#[derive(Debug, thiserror::Error)]
pub enum MariaDbError {
    /// `mariadbd` (or `mariadb-install-db`) is not on the PATH or in /usr/sbin.
    #[error(
        "{0} not found: install the Debian packages mariadb-server and mariadb-client \
         (scripts/test.sh does), the differential tests need a real MariaDB"
    )]
    NotInstalled(&'static str),
    /// Creating the directory, the port or a process failed.
    #[error("cannot start MariaDB: {0}")]
    Io(#[from] std::io::Error),
    /// `mariadb-install-db` failed every attempt.
    #[error(
        "mariadb-install-db failed {INSTALL_ATTEMPTS} times, the last time ({status}); \
         its output:\n{output}"
    )]
    InstallFailed {
        /// Its exit status.
        status: std::process::ExitStatus,
        /// What it printed.
        output: String,
    },
    /// The server exited or did not accept connections in time.
    #[error("mariadbd did not become ready: {reason}; the end of its error log:\n{log}")]
    NotReady {
        /// What went wrong.
        reason: String,
        /// The last lines of its error log.
        log: String,
    },
    /// A statement of the set-up failed.
    #[error("setting up MariaDB failed: {0}")]
    Setup(#[from] mysql::Error),
}

/// A private MariaDB server; stopped and deleted on drop.
#[derive(Debug)]
pub struct MariaDb {
    child: Option<Child>,
    port: u16,
    server: PathBuf,
    as_root: bool,
    extra: Vec<String>,
    // Dropped last, after the server stopped.
    dir: tempfile::TempDir,
}

/// The user the server is set up with (password the same), with every privilege.
pub const USER: &str = "xrpc";
/// The database created for the tests.
pub const DATABASE: &str = "xrpc";

impl MariaDb {
    /// Installs a data directory, starts `mariadbd` and waits until it accepts connections.
    pub fn start() -> Result<Self, MariaDbError> {
        Self::start_with(&[])
    }

    /// [`MariaDb::start`] with extra `mariadbd` options (`--max-connections=20`); they come
    /// after the defaults, so they override them. They are kept for [`MariaDb::restart`].
    pub fn start_with(extra: &[&str]) -> Result<Self, MariaDbError> {
        let server = find("mariadbd").ok_or(MariaDbError::NotInstalled("mariadbd"))?;
        let install =
            find("mariadb-install-db").ok_or(MariaDbError::NotInstalled("mariadb-install-db"))?;
        let dir = tempfile::Builder::new().prefix("xrpc-mariadb-").tempdir()?;
        std::fs::create_dir(tmp_dir(dir.path()))?;
        let as_root = is_root();
        install_data(&install, dir.path(), as_root)?;

        let mut db = Self {
            child: None,
            port: free_port()?,
            server,
            as_root,
            extra: extra.iter().map(|arg| (*arg).to_owned()).collect(),
            dir,
        };
        // `free_port` only says the port was free a moment ago: another test's server may bind
        // it first, and then mariadbd exits at once. Such a start is retried on another port.
        let mut attempts = 0;
        let mut root = loop {
            match db.launch() {
                Err(MariaDbError::NotReady { log, .. })
                    if attempts < 3 && log.contains("Address already in use") =>
                {
                    attempts += 1;
                    db.port = free_port()?;
                }
                other => break other?,
            }
        };
        root.query_drop(format!(
            "CREATE USER '{USER}'@'%' IDENTIFIED BY '{USER}'; \
             GRANT ALL ON *.* TO '{USER}'@'%' WITH GRANT OPTION; \
             CREATE DATABASE {DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
        ))?;
        drop(root);
        // The TCP login works before anyone relies on it.
        db.conn()?;
        Ok(db)
    }

    /// Starts `mariadbd` on the installed data and waits until root can log in.
    fn launch(&mut self) -> Result<mysql::Conn, MariaDbError> {
        let dir = self.dir.path();
        let tmp = tmp_dir(dir);
        // A socket left by a killed server would look like a ready one.
        match std::fs::remove_file(self.socket()) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => return Err(err.into()),
            _ => {}
        }
        let child = Command::new(&self.server)
            .env("TMPDIR", &tmp)
            .arg("--no-defaults")
            .args(self.as_root.then_some("--user=root"))
            .arg(format!("--tmpdir={}", tmp.display()))
            .arg(format!("--datadir={}", dir.join("data").display()))
            .arg(format!("--socket={}", self.socket().display()))
            .arg(format!("--pid-file={}", dir.join("mariadbd.pid").display()))
            .arg(format!("--log-error={}", self.log_path().display()))
            .arg(format!("--port={}", self.port))
            .args([
                "--bind-address=127.0.0.1",
                "--skip-name-resolve",
                "--skip-log-bin",
                "--performance-schema=OFF",
                "--innodb-buffer-pool-size=32M",
                "--innodb-log-file-size=16M",
                // Native AIO reserves kernel AIO contexts per server; many servers at once
                // exhaust fs.aio-max-nr and InnoDB then fails to start.
                "--innodb-use-native-aio=0",
                "--max-connections=200",
            ])
            .args(&self.extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        self.child = Some(child);
        self.wait_ready()
    }

    /// Waits until root can log in over the socket, or the server exits, or time runs out.
    fn wait_ready(&mut self) -> Result<mysql::Conn, MariaDbError> {
        let started = Instant::now();
        loop {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                self.child = None;
                return Err(MariaDbError::NotReady {
                    reason: format!("it exited with {status}"),
                    log: tail(&self.log_path()),
                });
            }
            if self.socket().exists() {
                match self.root_conn() {
                    Ok(conn) => return Ok(conn),
                    Err(err) if started.elapsed() > READY_TIMEOUT => {
                        return Err(MariaDbError::NotReady {
                            reason: err.to_string(),
                            log: tail(&self.log_path()),
                        });
                    }
                    Err(_) => {}
                }
            } else if started.elapsed() > READY_TIMEOUT {
                return Err(MariaDbError::NotReady {
                    reason: format!("no socket after {READY_TIMEOUT:?}"),
                    log: tail(&self.log_path()),
                });
            }
            // The server offers no readiness signal to block on; poll the socket briefly.
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn root_conn(&self) -> Result<mysql::Conn, mysql::Error> {
        mysql::Conn::new(
            mysql::OptsBuilder::new()
                .socket(Some(self.socket().to_string_lossy().into_owned()))
                .user(Some("root"))
                .prefer_socket(true),
        )
    }

    /// The TCP port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The directory holding the data directory, the socket and `error.log`.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The Unix socket.
    pub fn socket(&self) -> PathBuf {
        self.dir.path().join("mariadbd.sock")
    }

    fn log_path(&self) -> PathBuf {
        self.dir.path().join("error.log")
    }

    /// The server's error log so far (empty if it cannot be read).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }

    /// `mysql://xrpc:xrpc@127.0.0.1:<port>/xrpc`.
    pub fn url(&self) -> String {
        self.url_db(DATABASE)
    }

    /// `mysql://xrpc:xrpc@127.0.0.1:<port>/<db>`: as [`USER`] to database `db`.
    pub fn url_db(&self, db: &str) -> String {
        format!("mysql://{USER}:{USER}@127.0.0.1:{}/{db}", self.port)
    }

    /// A new connection over TCP as [`USER`] to [`DATABASE`].
    pub fn conn(&self) -> Result<mysql::Conn, mysql::Error> {
        mysql::Conn::new(
            mysql::OptsBuilder::new()
                .ip_or_hostname(Some("127.0.0.1"))
                .tcp_port(self.port)
                .user(Some(USER))
                .pass(Some(USER))
                .db_name(Some(DATABASE))
                .prefer_socket(false),
        )
    }

    /// A new connection as `root` over the socket, for setting up and checking from a test.
    ///
    /// # Panics
    ///
    /// If root cannot log in (the server is stopped, say): a test helper, it fails the test
    /// with the reason and the end of the error log.
    pub fn admin(&self) -> mysql::Conn {
        self.root_conn().unwrap_or_else(|err| {
            panic!(
                "root cannot log in to MariaDB: {err}; the end of its error log:\n{}",
                tail(&self.log_path())
            )
        })
    }

    /// Kills the server (SIGKILL, as a crash would) and waits for it to exit. Connections to
    /// it fail from then on; [`MariaDb::restart`] starts it again. Does nothing if stopped.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops the server if it runs, then starts it again on the same port and data with the
    /// same options (InnoDB recovers what a kill left), and waits until it accepts connections.
    pub fn restart(&mut self) -> Result<(), MariaDbError> {
        self.stop();
        self.launch().map(drop)
    }
}

/// The process's shared server ([`shared_database`]), stopped at exit.
static SHARED: Mutex<Option<MariaDb>> = Mutex::new(None);
/// Numbers the databases [`shared_database`] creates.
static SHARED_DATABASES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A fresh, empty database on a server shared by the whole process (one test binary), as a URL
/// `mysql://xrpc:xrpc@127.0.0.1:<port>/s<n>`: suites that run every test on both engines start
/// one MariaDB per binary, not per test. The server starts on the first call and is stopped and
/// deleted when the process exits (an `atexit` handler; a process killed by a signal leaves it
/// behind, as it leaves its other temporary files). Tests get separate databases, so they may
/// run in parallel; what they change beyond their database (global variables, users) is shared.
pub fn shared_database() -> Result<String, MariaDbError> {
    let mut shared = SHARED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if shared.is_none() {
        *shared = Some(MariaDb::start()?);
        // SAFETY: `stop_shared` is an `extern "C" fn()` with no arguments that never unwinds
        // (it only takes the server out of a mutex and drops it); registering it has no other
        // precondition.
        let registered = unsafe { libc::atexit(stop_shared) };
        if registered != 0 {
            eprintln!("xrpc-testkit: cannot register the shared MariaDB's stop at exit");
        }
    }
    let db = shared.as_ref().expect("started above");
    let name = format!(
        "s{}",
        SHARED_DATABASES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    db.admin().query_drop(format!(
        "CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
    ))?;
    Ok(db.url_db(&name))
}

/// Stops the shared server as the process exits.
extern "C" fn stop_shared() {
    let server = SHARED
        .lock()
        .map_or_else(|poisoned| poisoned.into_inner().take(), |mut s| s.take());
    drop(server);
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        // SIGTERM lets the server shut down cleanly; `Child::kill` would be SIGKILL.
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status();
        let deadline = Instant::now() + STOP_TIMEOUT;
        loop {
            match child.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if Instant::now() > deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break;
                }
                // The process offers nothing to block on with a deadline; poll its exit.
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }
}

/// The instance's own temporary directory, under its directory.
fn tmp_dir(dir: &Path) -> PathBuf {
    dir.join("tmp")
}

/// Runs `mariadb-install-db` into `dir/data`, one run at a time in the process, retrying in a
/// fresh data directory when it fails.
fn install_data(install: &Path, dir: &Path, as_root: bool) -> Result<(), MariaDbError> {
    let data = dir.join("data");
    let tmp = tmp_dir(dir);
    // Held until this function returns. A panic elsewhere while holding it leaves nothing half
    // done that matters here, so a poisoned lock is still used.
    let _one_at_a_time = INSTALL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut attempt = 1;
    loop {
        match std::fs::remove_dir_all(&data) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => return Err(err.into()),
            _ => {}
        }
        let output = Command::new(install)
            .env("TMPDIR", &tmp)
            .arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .args(as_root.then_some("--user=root"))
            .args([
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                "--skip-name-resolve",
            ])
            .stdin(Stdio::null())
            .output()?;
        if output.status.success() {
            return Ok(());
        }
        let output_text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        if attempt == INSTALL_ATTEMPTS {
            return Err(MariaDbError::InstallFailed {
                status: output.status,
                output: output_text,
            });
        }
        eprintln!(
            "mariadb-install-db failed ({}), attempt {attempt} of {INSTALL_ATTEMPTS}:\n{output_text}",
            output.status
        );
        attempt += 1;
    }
}

/// A program on the PATH or in /usr/sbin, where Debian puts mariadbd.
fn find(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")])
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}

/// Whether this process runs as root (mariadbd then needs `--user=root`).
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|euid| euid == "0"))
        })
        .unwrap_or(false)
}

/// A loopback port that was free a moment ago.
fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// The last 30 lines of a file.
fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_answers_and_cleans_up() {
        let db = MariaDb::start().unwrap_or_else(|err| panic!("{err}"));
        let dir = db.dir.path().to_owned();
        let mut conn = db.conn().unwrap();
        let one: Option<i64> = conn.query_first("SELECT 1").unwrap();
        assert_eq!(one, Some(1));
        let database: Option<String> = conn.query_first("SELECT DATABASE()").unwrap();
        assert_eq!(database.as_deref(), Some(DATABASE));
        drop(conn);
        drop(db);
        assert!(!dir.exists(), "the data directory is deleted");
    }

    #[test]
    fn extra_options_apply_and_survive_a_kill_and_restart() {
        let mut db =
            MariaDb::start_with(&["--max-connections=17"]).unwrap_or_else(|e| panic!("{e}"));
        let max: Option<u64> = db.admin().query_first("SELECT @@max_connections").unwrap();
        assert_eq!(max, Some(17), "the extra option overrides the default");
        let mut admin = db.admin();
        admin
            .query_drop("CREATE DATABASE kept; CREATE TABLE kept.t (x INT) ENGINE=InnoDB; INSERT INTO kept.t VALUES (7)")
            .unwrap();
        drop(admin);
        let user: Option<String> = db.admin().query_first("SELECT CURRENT_USER()").unwrap();
        assert_eq!(user.as_deref(), Some("root@localhost"));

        db.stop();
        assert!(db.conn().is_err(), "a stopped server refuses connections");
        db.restart().unwrap_or_else(|e| panic!("{e}"));
        let mut conn =
            mysql::Conn::new(mysql::Opts::from_url(&db.url_db("kept")).unwrap()).unwrap();
        let x: Option<i64> = conn.query_first("SELECT x FROM t").unwrap();
        assert_eq!(x, Some(7), "the committed row survived the kill");
        let max: Option<u64> = conn.query_first("SELECT @@max_connections").unwrap();
        assert_eq!(max, Some(17), "the extra option is kept across the restart");
        assert!(db.log().contains("ready for connections"), "{}", db.log());
    }

    #[test]
    fn several_start_at_once() {
        let handles: Vec<_> = (0..3)
            .map(|_| std::thread::spawn(|| MariaDb::start().unwrap_or_else(|e| panic!("{e}"))))
            .collect();
        let dbs: Vec<MariaDb> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        for db in &dbs {
            let one: Option<i64> = db.conn().unwrap().query_first("SELECT 1").unwrap();
            assert_eq!(one, Some(1));
        }
    }
}
