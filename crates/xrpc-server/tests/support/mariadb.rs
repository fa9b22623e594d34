//! A throwaway MariaDB server for tests: a fresh data directory made by `mariadb-install-db` in a
//! temporary directory, `mariadbd` on a free loopback port with its own socket, stopped (and the
//! directory removed) on drop. Never a mock.
//!
//! The binaries are found through `XRPC_TEST_MARIADBD` and `XRPC_TEST_MARIADB_INSTALL_DB`, then
//! the Debian paths. A missing server fails the test with a message saying how to install it.

#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Serialises `mariadb-install-db` runs within a test binary.
static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// How long the server may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// A running MariaDB server.
pub struct MariaDb {
    child: Option<Child>,
    dir: tempfile::TempDir,
    port: u16,
    mariadbd: PathBuf,
    root: bool,
    extra: Vec<String>,
}

fn find(env: &str, candidates: &[&str]) -> PathBuf {
    if let Ok(path) = std::env::var(env) {
        return PathBuf::from(path);
    }
    for candidate in candidates {
        if Path::new(candidate).exists() {
            return PathBuf::from(candidate);
        }
    }
    panic!(
        "MariaDB is not installed: none of {candidates:?} exists (set {env} to its path). \
         Install it with `apt-get install -y mariadb-server` (scripts/test.sh does when it is missing)."
    );
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl MariaDb {
    /// Installs a data directory and starts the server; panics with the server's log if it does
    /// not come up.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// [`MariaDb::start`] with extra `mariadbd` options (`--max-connections=5`).
    pub fn start_with(extra: &[&str]) -> Self {
        let mariadbd = find(
            "XRPC_TEST_MARIADBD",
            &["/usr/sbin/mariadbd", "/usr/sbin/mysqld"],
        );
        let install = find(
            "XRPC_TEST_MARIADB_INSTALL_DB",
            &["/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db"],
        );
        let root = is_root();
        // The bootstrap fails now and then when the machine is loaded; a fresh directory and a
        // second try settle it. The last failure's output goes into the panic.
        let mut failure = String::new();
        let mut installed = None;
        for _ in 0..3 {
            let dir = tempfile::tempdir().unwrap();
            let mut cmd = Command::new(&install);
            cmd.arg("--no-defaults")
                .arg(format!("--datadir={}", dir.path().join("data").display()))
                .arg("--auth-root-authentication-method=normal")
                .arg("--skip-test-db");
            if root {
                cmd.arg("--user=root");
            }
            cmd.arg("--innodb-use-native-aio=0")
                .arg("--innodb-log-file-size=8M")
                .arg("--innodb-buffer-pool-size=16M");
            // Installs run one at a time within a test binary.
            let out = {
                let _one_at_a_time = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
                cmd.stdin(Stdio::null()).output().unwrap_or_else(|err| {
                    panic!("cannot run {}: {err}", install.display());
                })
            };
            if out.status.success() {
                installed = Some(dir);
                break;
            }
            failure = format!(
                "{} failed ({}):\n{}\n{}",
                install.display(),
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            eprintln!("{failure}");
        }
        let dir = installed.unwrap_or_else(|| panic!("{failure}"));
        let mut server = Self {
            child: None,
            dir,
            port: free_port(),
            mariadbd,
            root,
            extra: extra.iter().map(|s| (*s).to_owned()).collect(),
        };
        server.launch();
        server
    }

    /// Starts the server again after [`MariaDb::stop`], on the same port and data.
    pub fn restart(&mut self) {
        self.stop();
        self.launch();
    }

    fn launch(&mut self) {
        let data = self.dir.path().join("data");
        let mut cmd = Command::new(&self.mariadbd);
        cmd.arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .arg(format!(
                "--socket={}",
                self.dir.path().join("mysqld.sock").display()
            ))
            .arg(format!("--port={}", self.port))
            .arg("--bind-address=127.0.0.1")
            .arg(format!(
                "--pid-file={}",
                self.dir.path().join("mysqld.pid").display()
            ))
            .arg(format!("--log-error={}", self.log_path().display()))
            .arg("--skip-log-bin")
            .arg("--innodb-buffer-pool-size=16M")
            .arg("--innodb-log-file-size=8M")
            .arg("--innodb-use-native-aio=0")
            .args(&self.extra);
        if self.root {
            cmd.arg("--user=root");
        }
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start {}: {err}", self.mariadbd.display()));
        self.child = Some(child);
        self.wait_ready();
    }

    fn log_path(&self) -> PathBuf {
        self.dir.path().join("mysqld.err")
    }

    /// The server's error log.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }

    fn wait_ready(&mut self) {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                panic!(
                    "mariadbd exited with {status} before accepting connections:\n{}",
                    self.log()
                );
            }
            if mysql::Conn::new(mysql::Opts::from_url(&self.url()).unwrap()).is_ok() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "mariadbd did not accept connections within {START_TIMEOUT:?}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `mysql://root@127.0.0.1:port`.
    pub fn url(&self) -> String {
        format!("mysql://root@127.0.0.1:{}", self.port)
    }

    /// `mysql://root@127.0.0.1:port/db`.
    pub fn url_db(&self, db: &str) -> String {
        format!("mysql://root@127.0.0.1:{}/{db}", self.port)
    }

    /// A direct connection as root, for setting up and checking.
    pub fn admin(&self) -> mysql::Conn {
        mysql::Conn::new(mysql::Opts::from_url(&self.url()).unwrap()).unwrap()
    }

    /// Stops the server (SIGKILL) and waits for it.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        self.stop();
    }
}
