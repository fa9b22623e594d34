//! Test helpers shared by the xrpc crates.
//!
//! [`MariaDb`] starts a private MariaDB server for one test (or one test binary): a fresh data
//! directory made by `mariadb-install-db` in a temporary directory, `mariadbd` on a free
//! 127.0.0.1 port with its own socket and temporary directory (so several start at once), a user `xrpc`/`xrpc` with every privilege and a database
//! `xrpc` (utf8mb4). It is ready when [`MariaDb::start`] returns, and dropping it stops the server (SIGTERM,
//! then SIGKILL after 20 s) and deletes the directory. Nothing else on the machine is touched:
//! the system's MariaDB service and its configuration files (`--no-defaults`) are ignored.
//!
//! A missing `mariadbd` is an error ([`MariaDbError::NotInstalled`]), never a silent skip:
//! tests that compare against MariaDB must fail loudly on a machine without it.
//! `scripts/test.sh` installs `mariadb-server` and `mariadb-client` when `mariadbd` is missing.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;

/// How long the server may take to accept connections after it starts.
const READY_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a stopping server may take before it is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(20);

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
    /// `mariadb-install-db` failed.
    #[error("mariadb-install-db failed ({status}); its output:\n{output}")]
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
    socket: PathBuf,
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
        let server = find("mariadbd").ok_or(MariaDbError::NotInstalled("mariadbd"))?;
        let install =
            find("mariadb-install-db").ok_or(MariaDbError::NotInstalled("mariadb-install-db"))?;
        let dir = tempfile::Builder::new().prefix("xrpc-mariadb-").tempdir()?;
        let data = dir.path().join("data");
        let socket = dir.path().join("mariadbd.sock");
        let error_log = dir.path().join("error.log");
        // Its own temporary directory: two servers bootstrapping at once in /tmp collide on their
        // temporary tables and mariadb-install-db fails.
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp)?;
        let user = if is_root() { Some("--user=root") } else { None };

        let output = Command::new(install)
            .env("TMPDIR", &tmp)
            .arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .args(user)
            .args([
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                "--skip-name-resolve",
            ])
            .stdin(Stdio::null())
            .output()?;
        if !output.status.success() {
            return Err(MariaDbError::InstallFailed {
                status: output.status,
                output: format!(
                    "{}{}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                ),
            });
        }

        let port = free_port()?;
        let child = Command::new(server)
            .env("TMPDIR", &tmp)
            .arg("--no-defaults")
            .args(user)
            .arg(format!("--tmpdir={}", tmp.display()))
            .arg(format!("--datadir={}", data.display()))
            .arg(format!("--socket={}", socket.display()))
            .arg(format!(
                "--pid-file={}",
                dir.path().join("mariadbd.pid").display()
            ))
            .arg(format!("--log-error={}", error_log.display()))
            .arg(format!("--port={port}"))
            .args([
                "--bind-address=127.0.0.1",
                "--skip-name-resolve",
                "--skip-log-bin",
                "--performance-schema=OFF",
                "--innodb-buffer-pool-size=32M",
                "--innodb-log-file-size=16M",
                "--max-connections=200",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let mut db = Self {
            child: Some(child),
            port,
            socket,
            dir,
        };
        let mut root = db.wait_ready(&error_log)?;
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

    /// Waits until root can log in over the socket, or the server exits, or time runs out.
    fn wait_ready(&mut self, error_log: &Path) -> Result<mysql::Conn, MariaDbError> {
        let started = Instant::now();
        let opts = mysql::OptsBuilder::new()
            .socket(Some(self.socket.to_string_lossy().into_owned()))
            .user(Some("root"))
            .prefer_socket(true);
        loop {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                return Err(MariaDbError::NotReady {
                    reason: format!("it exited with {status}"),
                    log: tail(error_log),
                });
            }
            if self.socket.exists() {
                match mysql::Conn::new(opts.clone()) {
                    Ok(conn) => return Ok(conn),
                    Err(err) if started.elapsed() > READY_TIMEOUT => {
                        return Err(MariaDbError::NotReady {
                            reason: err.to_string(),
                            log: tail(error_log),
                        });
                    }
                    Err(_) => {}
                }
            } else if started.elapsed() > READY_TIMEOUT {
                return Err(MariaDbError::NotReady {
                    reason: format!("no socket after {READY_TIMEOUT:?}"),
                    log: tail(error_log),
                });
            }
            // The server offers no readiness signal to block on; poll the socket briefly.
            std::thread::sleep(Duration::from_millis(50));
        }
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
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// `mysql://xrpc:xrpc@127.0.0.1:<port>/xrpc`.
    pub fn url(&self) -> String {
        format!("mysql://{USER}:{USER}@127.0.0.1:{}/{DATABASE}", self.port)
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
}
