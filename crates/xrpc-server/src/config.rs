//! The node's start-up configuration: flags, `XRPC_*` environment variables, a TOML file, defaults.
//!
//! # Settings
//!
//! A setting is either one of the node's own (`listen`, `data_dir`, `metrics`, `log`, `engine`,
//! `tls_cert`, `tls_key`, `tls_ca`, and the file-only `users`), or a tunable: an `xrpc_` system variable that is not read-only (see
//! [`crate::vars`]), whose key is its name without the prefix. Every setting has the same key in
//! the file, the flag (`--max-queued-messages`, `_` becoming `-`) and the environment
//! (`XRPC_MAX_QUEUED_MESSAGES`); `--config PATH` / `XRPC_CONFIG` names the file.
//!
//! # Precedence
//!
//! For each setting separately, the first source that sets it wins: flag, then environment, then
//! file, then default. The layering is done here, in [`ServerConfig::load_from`], rather than by
//! clap's `env` support, because clap captures the process environment when the command is built:
//! taking the environment as a function keeps one code path for production and tests, and lets the
//! tests inject an environment instead of mutating the process's, which would race between test
//! threads. The help text still names each setting's variable. Flags take values as text and every
//! value, whatever its source, goes through the same parser, so an invalid one gets the same
//! single line (`max_queued_messages must be between 16 and 4096, got 5`) from any source.
//!
//! # Invariants
//!
//! A [`ServerConfig`] holds a value for every variable, each of its kind and in its range
//! ([`ServerConfig::set_setting`] and [`ServerConfig::set`] check before storing), and at least
//! one user. The file is only read, never written; password hashes never reach `Debug` output
//! or error messages, since a MYSQL41 hash is password-equivalent.

use std::ffi::OsString;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Arg, ArgAction, CommandFactory, FromArgMatches, Parser};
use serde::Deserialize;
use xrpc_net::NetConfig;
use xrpc_proto::auth::PasswordHash;

use crate::settings::{self, Settings};
use crate::users::{HostRule, UserConfig};
use crate::var_store::Variables;
use crate::vars::{self, VarId, VarKind, VarValue};

/// The default listen address.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:33660";
/// The default data directory.
pub const DEFAULT_DATA_DIR: &str = "./xrpc-data";
/// The database file inside the data directory.
pub const DB_FILE: &str = "xrpc.db";
/// The default log filter.
pub const DEFAULT_LOG: &str = "info";

/// The node's own settings (not variables), in resolution order.
const OWN_KEYS: &[&str] = &[
    "listen", "data_dir", "metrics", "log", "engine", "tls_cert", "tls_key", "tls_ca",
];

/// Printed after the flag list by `--help`.
const AFTER_HELP: &str = "\
Precedence, per setting: flag, then XRPC_* environment variable, then the --config file, then the \
default. File keys are the flag names with '_' for '-' (max_queued_messages = 256). Integers take \
K, M or G suffixes (64M). Users are file-only [[users]] tables with name, password_hash \
(mysql_native_password: '*' and 40 hex digits, empty for no password) and hosts (\"%\", \
\"localhost\", addresses, CIDR blocks; default [\"localhost\"]) and connection_admin (true \
lets SQL KILL name other users' sessions; default true for root only). Without [[users]] the only \
account is root with an empty password, from loopback. At runtime, SHOW VARIABLES lists every \
tunable as xrpc_<name>, and SET GLOBAL changes those marked dynamic.";

/// The node's own flags; [`command`] adds one flag per tunable from the variable table.
#[derive(Debug, Parser)]
#[command(name = "xrpc-server", version, about, after_help = AFTER_HELP)]
struct Cli {
    /// TOML file of settings and [[users]]; flags and the environment override it
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Address the RPC protocol listens on [default: 127.0.0.1:33660]
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// Directory of the SQLite files: xrpc.db (database main) and databases/<name>.db (CREATE DATABASE) [default: ./xrpc-data]
    #[arg(long, value_name = "DIR")]
    data_dir: Option<String>,
    /// Address of the Prometheus endpoint GET /metrics, or "off" [default: off]
    #[arg(long, value_name = "ADDR")]
    metrics: Option<String>,
    /// Log filter in tracing's EnvFilter syntax [default: info]
    #[arg(long, value_name = "FILTER")]
    log: Option<String>,
    /// Where SQL runs: sqlite (embedded, in --data-dir) or mysql://user:password@host:port[/database]
    /// to front a MariaDB/MySQL server; keep the password out of the process list by setting it
    /// in the --config file or XRPC_ENGINE [default: sqlite]
    #[arg(long, value_name = "sqlite|URL")]
    engine: Option<String>,
    /// PEM certificate chain of the node (its own certificate first); with --tls-key, clients may
    /// switch to TLS with CapabilitiesSet tls. Reloaded with the key and CA on SIGHUP or
    /// ALTER INSTANCE RELOAD TLS [default: no TLS]
    #[arg(long, value_name = "PATH")]
    tls_cert: Option<String>,
    /// PEM private key of --tls-cert
    #[arg(long, value_name = "PATH")]
    tls_key: Option<String>,
    /// PEM certificates of the authorities that sign client certificates; when set, every TLS
    /// client must present one [default: no client certificates]
    #[arg(long, value_name = "PATH")]
    tls_ca: Option<String>,
}

/// The command line: the node's own flags, then one flag per tunable, each help line ending with
/// its environment variable.
pub fn command() -> clap::Command {
    let mut cmd =
        Cli::command().next_help_heading("Tunables (SHOW VARIABLES lists each as xrpc_<name>)");
    for &id in VarId::ALL {
        let def = id.def();
        let Some(key) = def.config_key() else {
            continue;
        };
        let value_name = match def.kind {
            VarKind::Bool => "ON|OFF".to_owned(),
            VarKind::Int { .. } => "N".to_owned(),
            VarKind::Choice(list) => list.join("|"),
            VarKind::Text => "TEXT".to_owned(),
        };
        let runtime = if def.access == vars::Access::Dynamic {
            "; SET GLOBAL at runtime"
        } else {
            ""
        };
        cmd = cmd.arg(
            Arg::new(key)
                .long(key.replace('_', "-"))
                .value_name(value_name)
                .action(ArgAction::Set)
                .help(format!(
                    "{} [{}; default {}{runtime}]",
                    def.help,
                    def.kind.allowed(),
                    def.default
                )),
        );
    }
    cmd.mut_args(|arg| {
        let id = arg.get_id().as_str().to_owned();
        if id == "help" || id == "version" {
            return arg;
        }
        let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
        arg.help(format!("{help} [env: {}]", env_name(&id)))
    })
}

/// The environment variable of a setting: `XRPC_` and the key in upper case.
pub fn env_name(key: &str) -> String {
    format!("XRPC_{}", key.to_ascii_uppercase())
}

/// The MySQL account hash (`mysql_native_password`, `*` and 40 upper-case hex digits) of a
/// clear-text password, for `[[users]]` entries; empty for an empty password.
pub fn password_hash_for(plain: &str) -> String {
    PasswordHash::from_password(plain.as_bytes()).to_mysql_string()
}

/// Everything the node is started with. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Address the RPC protocol listens on.
    pub listen: SocketAddr,
    /// Directory of the database.
    pub data_dir: PathBuf,
    /// The accounts; never empty.
    pub users: Vec<UserConfig>,
    /// Address of the Prometheus endpoint, if enabled.
    pub metrics: Option<SocketAddr>,
    /// Log filter in `tracing_subscriber::EnvFilter` syntax.
    pub log: String,
    /// Where SQL runs.
    pub engine: EngineChoice,
    /// The file the configuration was read from, if any.
    pub config_file: Option<PathBuf>,
    /// The node's certificate chain, for TLS (with `tls_key`).
    pub tls_cert: Option<PathBuf>,
    /// The private key of `tls_cert`.
    pub tls_key: Option<PathBuf>,
    /// The authorities of client certificates; set, clients must present one.
    pub tls_ca: Option<PathBuf>,
    /// One value per [`VarId`], indexed by `id as usize`.
    values: Box<[VarValue]>,
}

impl ServerConfig {
    /// Loads the configuration from the process's arguments and environment.
    pub fn load() -> Result<Self, ConfigError> {
        Self::load_from(std::env::args_os(), &|name| {
            std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
        })
    }

    /// Loads the configuration from `args` (the program name first) and the environment `env`,
    /// with the precedence flag > environment > file > default for each setting.
    pub fn load_from<I, T>(
        args: I,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let matches = command()
            .try_get_matches_from(args)
            .map_err(ConfigError::Cli)?;
        let cli = Cli::from_arg_matches(&matches).map_err(ConfigError::Cli)?;

        let config_file = cli
            .config
            .or_else(|| env(&env_name("config")).map(PathBuf::from));
        let file = match &config_file {
            Some(path) => FileConfig::read(path)?,
            None => FileConfig::default(),
        };

        let mut config = ServerConfig {
            config_file,
            ..ServerConfig::default()
        };
        let own_flags = [
            cli.listen,
            cli.data_dir,
            cli.metrics,
            cli.log,
            cli.engine,
            cli.tls_cert,
            cli.tls_key,
            cli.tls_ca,
        ];
        for (key, flag) in OWN_KEYS.iter().zip(own_flags) {
            if let Some(text) = flag
                .or_else(|| env(&env_name(key)))
                .or_else(|| file.get(key))
            {
                config.set_setting(key, &text)?;
            }
        }
        for &id in VarId::ALL {
            let Some(key) = id.def().config_key() else {
                continue;
            };
            let flag = matches.get_one::<String>(key).cloned();
            if let Some(text) = flag
                .or_else(|| env(&env_name(key)))
                .or_else(|| file.get(key))
            {
                config.set_setting(key, &text)?;
            }
        }
        if let Some(users) = file.users {
            config.users = users;
        }
        config.validate()?;
        Ok(config)
    }

    /// Sets one setting from text, as a flag, the environment or the file would: `key` is an own
    /// setting (`listen`, `data_dir`, `metrics`, `log`) or a tunable's key (`max_sessions`).
    pub fn set_setting(&mut self, key: &str, text: &str) -> Result<(), ConfigError> {
        match key {
            "listen" => {
                self.listen = text.trim().parse().map_err(|_| {
                    ConfigError::invalid(key, "an address and port like 127.0.0.1:33660", text)
                })?;
            }
            "data_dir" => {
                if text.trim().is_empty() {
                    return Err(ConfigError::invalid(key, "a directory", text));
                }
                self.data_dir = PathBuf::from(text);
            }
            "metrics" => {
                let t = text.trim();
                self.metrics = if t.is_empty() || t.eq_ignore_ascii_case("off") {
                    None
                } else {
                    Some(t.parse().map_err(|_| {
                        ConfigError::invalid(
                            key,
                            "\"off\" or an address and port like 127.0.0.1:9633",
                            text,
                        )
                    })?)
                };
            }
            "log" => {
                if tracing_subscriber::EnvFilter::try_new(text).is_err() || text.trim().is_empty() {
                    return Err(ConfigError::invalid(
                        key,
                        "a tracing filter like info or xrpc_server=debug,info",
                        text,
                    ));
                }
                self.log = text.trim().to_owned();
            }
            "engine" => self.engine = EngineChoice::parse(text)?,
            "tls_cert" | "tls_key" | "tls_ca" => {
                let path = text.trim();
                let path = (!path.is_empty()).then(|| PathBuf::from(path));
                match key {
                    "tls_cert" => self.tls_cert = path,
                    "tls_key" => self.tls_key = path,
                    _ => self.tls_ca = path,
                }
            }
            _ => {
                let id = VarId::by_config_key(key).ok_or_else(|| ConfigError::UnknownSetting {
                    key: key.to_owned(),
                    origin: "the settings".to_owned(),
                })?;
                let def = id.def();
                if let Some(validate) = def.validate {
                    validate(text.trim()).map_err(|reason| {
                        ConfigError::invalid(
                            key,
                            &format!("a valid {key} setting ({reason})"),
                            text,
                        )
                    })?;
                }
                let value = def.parse_setting(text).ok_or_else(|| {
                    let expected = match def.kind {
                        VarKind::Int { min, max }
                            if vars::parse_int_with_suffix(text.trim()).is_none() =>
                        {
                            format!("an integer between {min} and {max}")
                        }
                        kind => kind.expected(),
                    };
                    ConfigError::invalid(key, &expected, text)
                })?;
                self.values[id as usize] = value;
            }
        }
        Ok(())
    }

    /// Sets a tunable to a typed value, checked against its kind and range.
    pub fn set(&mut self, id: VarId, value: VarValue) -> Result<(), ConfigError> {
        let def = id.target().def();
        let key = def.config_key().unwrap_or(def.name);
        if !def.check(&value) {
            return Err(ConfigError::invalid(
                key,
                &def.kind.expected(),
                &value.to_string(),
            ));
        }
        self.values[id.target() as usize] = value;
        Ok(())
    }

    /// The start-up value of a variable (for read-only ones, their default).
    pub fn get(&self, id: VarId) -> &VarValue {
        &self.values[id.target() as usize]
    }

    /// The variables a node started with this configuration has: every start-up setting,
    /// `rpc_port` from the listen address and `datadir`.
    pub fn variables(&self) -> Variables {
        let vars = Variables::new();
        for &id in VarId::ALL {
            if id.def().config_key().is_some() {
                vars.store(id, self.get(id));
            }
        }
        vars.store(VarId::RpcPort, &VarValue::Int(self.listen.port().into()));
        vars.store(
            VarId::Datadir,
            &VarValue::Str(self.data_dir.display().to_string().into()),
        );
        vars
    }

    /// The TLS files, when `tls_cert` and `tls_key` are set.
    pub fn tls_files(&self) -> Option<crate::tls::TlsFiles> {
        Some(crate::tls::TlsFiles {
            cert: self.tls_cert.clone()?,
            key: self.tls_key.clone()?,
            ca: self.tls_ca.clone(),
        })
    }

    /// The SQLite database file: `data_dir/xrpc.db`.
    pub fn db_path(&self) -> PathBuf {
        self.data_dir.join(DB_FILE)
    }

    /// The account named `name`, if any.
    pub fn find_user(&self, name: &str) -> Option<&UserConfig> {
        self.users.iter().find(|u| u.name == name)
    }

    /// The framework's configuration: every `xrpc_epoll_*`, `xrpc_tcp_*` and thread-pool tunable,
    /// the frame format, `xrpc_net_write_timeout`, and `xrpc_drain_timeout` as the shutdown grace.
    ///
    /// When `xrpc_epoll_extra_groups` or `xrpc_max_epoll_wait_total_threads` is set, the group
    /// count is computed here (as `xrpc-net` would from the allowed cores) so that the extra
    /// groups can be added and the waiter total divided among the groups.
    pub fn net_config(&self) -> NetConfig {
        let groups = self.effective_groups();
        let waiters_total = self.read_int(VarId::MaxEpollWaitTotalThreads) as usize;
        let max_epoll_waiters = if waiters_total > 0 && groups > 0 {
            waiters_total.div_ceil(groups)
        } else {
            0
        };
        NetConfig {
            listen: self.listen,
            frame: self.frame_config(),
            groups,
            min_auto_groups: self.read_int(VarId::MinAutoEpollGroups) as usize,
            threads_per_group: self.read_int(VarId::EpollThreadsPerGroup) as usize,
            events_per_thread: self.read_int(VarId::EpollEventsPerThread) as usize,
            epoll_timeout: settings::millis(self.read_int(VarId::EpollTimeout)),
            max_epoll_waiters,
            work_queue_capacity: self.read_int(VarId::EpollWorkQueueCapacity) as usize,
            enable_tasker: self.read_bool(VarId::EnableTasker),
            scale_thresh: self.read_int(VarId::ScaleThresh) as usize,
            deadlock_check_interval: settings::millis(self.read_int(VarId::DeadlockCheckInterval)),
            tasker_extend_step: self.read_int(VarId::TaskerExtendStep) as usize,
            tasker_multiply: self.read_int(VarId::TaskerMultiply) as usize,
            shrink_time: settings::millis(self.read_int(VarId::ShrinkTime)),
            max_threads_per_group: self.read_int(VarId::EpollGroupMaxThreads) as usize,
            fixed_recv_buf: self.read_int(VarId::TcpFixedDealingBuf) as usize,
            net_write_timeout: self.net_write_timeout(),
            tcp_keepalive: Some(Duration::from_secs(
                self.read_int(VarId::TcpKeepAlive) as u64
            )),
            listen_backlog: self.read_int(VarId::TcpListenQueue) as u32,
            tcp_send_buf: self.read_int(VarId::TcpSendBuf) as usize,
            tcp_recv_buf: self.read_int(VarId::TcpRecvBuf) as usize,
            cached_output_pages: self.read_int(VarId::MaxCachedOutputBufferPages) as usize,
            bind_cores: self.read_bool(VarId::BindCores),
            multi_affinity_in_group: self.read_bool(VarId::MultiAffinityInGroup),
            force_all_cores: self.read_bool(VarId::ForceAllCores),
            shutdown_grace: self.drain_timeout(),
            perf_hist: self.perf_hist_enabled(),
            ..NetConfig::default()
        }
    }

    /// The group count to hand the framework: 0 (derive) unless extra groups or a waiter total
    /// need the real number.
    fn effective_groups(&self) -> usize {
        let groups = self.read_int(VarId::EpollGroups) as usize;
        let extra = self.read_int(VarId::EpollExtraGroups) as usize;
        if extra == 0 && self.read_int(VarId::MaxEpollWaitTotalThreads) == 0 {
            return groups;
        }
        let base = if groups > 0 {
            groups
        } else {
            let cpus = if self.read_bool(VarId::ForceAllCores) {
                xrpc_net::affinity::CpuTopology::detect_online().map(|t| t.len())
            } else {
                xrpc_net::affinity::allowed_cpus().map(|c| c.len())
            }
            .unwrap_or(1)
            .max(1);
            let per_group = self.read_int(VarId::EpollThreadsPerGroup) as usize;
            cpus.div_ceil(per_group)
                .max(self.read_int(VarId::MinAutoEpollGroups) as usize)
                .max(1)
        };
        base + extra
    }

    /// Checks what single settings cannot: the total group count, the framework's own ranges,
    /// and that some account exists.
    fn validate(&self) -> Result<(), ConfigError> {
        let groups = self.effective_groups();
        if groups > 128 {
            return Err(ConfigError::Invalid {
                setting: "epoll_extra_groups".to_owned(),
                expected: "such that there are at most 128 epoll groups".to_owned(),
                got: format!("{} ({groups} groups)", self.get(VarId::EpollExtraGroups)),
            });
        }
        self.net_config().validate().map_err(ConfigError::Net)?;
        if self.tls_cert.is_some() != self.tls_key.is_some() {
            let (setting, missing) = if self.tls_cert.is_some() {
                ("tls_key", "tls_cert is")
            } else {
                ("tls_cert", "tls_key is")
            };
            return Err(ConfigError::Invalid {
                setting: setting.to_owned(),
                expected: format!("set too, since {missing} set"),
                got: "nothing".to_owned(),
            });
        }
        if self.tls_ca.is_some() && self.tls_cert.is_none() {
            return Err(ConfigError::Invalid {
                setting: "tls_cert".to_owned(),
                expected: "set (with tls_key), since tls_ca is set".to_owned(),
                got: "nothing".to_owned(),
            });
        }
        if self.users.is_empty() {
            return Err(ConfigError::User {
                index: 0,
                name: String::new(),
                problem: "[[users]] must list at least one user".to_owned(),
            });
        }
        Ok(())
    }
}

impl Settings for ServerConfig {
    fn read_bool(&self, id: VarId) -> bool {
        self.get(id).as_bool().unwrap_or(false)
    }

    fn read_int(&self, id: VarId) -> i64 {
        self.get(id).as_int().unwrap_or(0)
    }

    fn read_choice(&self, id: VarId) -> &'static str {
        let VarKind::Choice(list) = id.target().def().kind else {
            return "";
        };
        let value = self.get(id).as_str().unwrap_or_default();
        list.iter().find(|c| **c == value).copied().unwrap_or("")
    }

    fn read_text(&self, id: VarId) -> String {
        match id.target().def().kind {
            VarKind::Text => self.get(id).as_str().unwrap_or_default().to_owned(),
            _ => String::new(),
        }
    }
}

impl Default for ServerConfig {
    /// The configuration of `xrpc-server` with no arguments: 127.0.0.1:33660, `./xrpc-data`,
    /// root with an empty password from loopback, every tunable at its default.
    fn default() -> Self {
        Self {
            listen: DEFAULT_LISTEN.parse().expect("valid default address"),
            data_dir: PathBuf::from(DEFAULT_DATA_DIR),
            users: vec![UserConfig::builtin_root()],
            metrics: None,
            log: DEFAULT_LOG.to_owned(),
            engine: EngineChoice::Sqlite,
            config_file: None,
            tls_cert: None,
            tls_key: None,
            tls_ca: None,
            values: VarId::ALL
                .iter()
                .map(|id| id.target().def().default.clone())
                .collect(),
        }
    }
}

/// The `engine` setting: embedded SQLite, or a MariaDB/MySQL server to front.
#[derive(Clone, PartialEq, Eq, Default)]
pub enum EngineChoice {
    /// Embedded SQLite in the data directory (the default).
    #[default]
    Sqlite,
    /// A `mysql://user:password@host:port[/database]` URL.
    Mysql(String),
}

impl EngineChoice {
    /// Parses `sqlite` or a `mysql://` URL (checked here, so a bad one stops start-up with one
    /// line that does not show the password).
    pub fn parse(text: &str) -> Result<Self, ConfigError> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("sqlite") {
            return Ok(Self::Sqlite);
        }
        let redacted = crate::engine::mysql::redact_url(text);
        if !text.starts_with("mysql://") {
            return Err(ConfigError::invalid(
                "engine",
                "sqlite or mysql://user:password@host:port[/database]",
                &redacted,
            ));
        }
        crate::engine::mysql::parse_url(text).map_err(|err| {
            ConfigError::invalid(
                "engine",
                &format!(
                    "mysql://user:password@host:port[/database] ({})",
                    err.reason
                ),
                &redacted,
            )
        })?;
        Ok(Self::Mysql(text.to_owned()))
    }

    /// What SHOW VARIABLES shows as `xrpc_engine`: `sqlite`, or the URL without its password.
    pub fn describe(&self) -> String {
        match self {
            Self::Sqlite => "sqlite".to_owned(),
            Self::Mysql(url) => crate::engine::mysql::redact_url(url),
        }
    }
}

impl std::fmt::Debug for EngineChoice {
    // Never the password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

/// Why the configuration cannot be used. Every variant but [`ConfigError::Cli`] renders as one
/// line; `main` prints it after `error: ` and exits with status 2 ([`ConfigError::exit`]).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The command line asked for help or the version, or could not be parsed; clap renders it.
    #[error("{0}")]
    Cli(clap::Error),
    /// A setting's value is not valid.
    #[error("{setting} must be {expected}, got {got}")]
    Invalid {
        /// The setting's key.
        setting: String,
        /// What it must be, with its range.
        expected: String,
        /// The value given, as given.
        got: String,
    },
    /// A key that names no setting.
    #[error("unknown setting '{key}' in {origin}")]
    UnknownSetting {
        /// The key.
        key: String,
        /// Where it was found.
        origin: String,
    },
    /// The configuration file cannot be read.
    #[error("cannot read config file {}: {source}", path.display())]
    ReadFile {
        /// The file.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// The configuration file is not valid TOML.
    #[error("config file {}, line {line}: {message}", path.display())]
    FileSyntax {
        /// The file.
        path: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// A `[[users]]` entry is not valid.
    #[error("users[{index}]{}: {problem}", if name.is_empty() { String::new() } else { format!(" ({name})") })]
    User {
        /// Position in the file.
        index: usize,
        /// The user's name, when known.
        name: String,
        /// What is wrong (never the hash itself).
        problem: String,
    },
    /// The framework refused the combined settings.
    #[error("invalid framework setting: {0}")]
    Net(xrpc_net::ConfigError),
}

impl ConfigError {
    /// An [`ConfigError::Invalid`] showing `got` on one line.
    fn invalid(setting: &str, expected: &str, got: &str) -> Self {
        let got = if got.is_empty() {
            "an empty value".to_owned()
        } else if got.chars().any(char::is_control) {
            format!("{got:?}")
        } else {
            got.to_owned()
        };
        ConfigError::Invalid {
            setting: setting.to_owned(),
            expected: expected.to_owned(),
            got,
        }
    }

    /// Ends the process: clap's own output and status for [`ConfigError::Cli`] (help and version
    /// exit 0), otherwise `error: <the line>` on stderr and status 2.
    pub fn exit(&self) -> ! {
        match self {
            ConfigError::Cli(err) => err.exit(),
            other => {
                eprintln!("error: {other}");
                std::process::exit(2)
            }
        }
    }
}

/// What the TOML file holds.
#[derive(Debug, Default)]
struct FileConfig {
    /// Setting keys with their values rendered as text.
    values: Vec<(String, String)>,
    /// The `[[users]]` entries, if the file has the key.
    users: Option<Vec<UserConfig>>,
}

/// One `[[users]]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UserEntry {
    name: String,
    #[serde(default)]
    password_hash: String,
    hosts: Option<Vec<String>>,
    connection_admin: Option<bool>,
}

impl FileConfig {
    /// Reads and checks a file: TOML, known keys only, valid users.
    fn read(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::ReadFile {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text, path)
    }

    fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let table: toml::Table = toml::from_str(text).map_err(|err| {
            let line = err.span().map_or(1, |span| {
                text[..span.start.min(text.len())].matches('\n').count() + 1
            });
            ConfigError::FileSyntax {
                path: path.to_owned(),
                line,
                message: err
                    .message()
                    .lines()
                    .next()
                    .unwrap_or("invalid TOML")
                    .to_owned(),
            }
        })?;
        let mut file = FileConfig::default();
        for (key, value) in table {
            if key == "users" {
                file.users = Some(parse_users(value)?);
                continue;
            }
            if !OWN_KEYS.contains(&key.as_str()) && VarId::by_config_key(&key).is_none() {
                return Err(ConfigError::UnknownSetting {
                    key,
                    origin: format!("config file {}", path.display()),
                });
            }
            let text = match value {
                toml::Value::String(s) => s,
                toml::Value::Boolean(true) => "ON".to_owned(),
                toml::Value::Boolean(false) => "OFF".to_owned(),
                other => other.to_string(),
            };
            file.values.push((key, text));
        }
        Ok(file)
    }

    fn get(&self, key: &str) -> Option<String> {
        self.values
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }
}

/// Parses and checks the `users` array.
fn parse_users(value: toml::Value) -> Result<Vec<UserConfig>, ConfigError> {
    let toml::Value::Array(entries) = value else {
        return Err(ConfigError::User {
            index: 0,
            name: String::new(),
            problem: "users must be an array of [[users]] tables".to_owned(),
        });
    };
    let mut users: Vec<UserConfig> = Vec::with_capacity(entries.len());
    for (index, entry) in entries.into_iter().enumerate() {
        let fail = |name: &str, problem: String| ConfigError::User {
            index,
            name: name.to_owned(),
            problem,
        };
        let entry: UserEntry = entry.try_into().map_err(|e: toml::de::Error| {
            fail(
                "",
                e.message()
                    .lines()
                    .next()
                    .unwrap_or("invalid entry")
                    .to_owned(),
            )
        })?;
        if entry.name.is_empty() {
            return Err(fail("", "name must not be empty".to_owned()));
        }
        if users.iter().any(|u| u.name == entry.name) {
            return Err(fail(&entry.name, "the name is listed twice".to_owned()));
        }
        let password = PasswordHash::parse(entry.password_hash.trim()).map_err(|_| {
            fail(
                &entry.name,
                "password_hash must be '*' and 40 hex digits (mysql_native_password), or empty for no password".to_owned(),
            )
        })?;
        let hosts = match entry.hosts {
            None => vec![HostRule::Localhost],
            Some(list) if list.is_empty() => {
                return Err(fail(&entry.name, "hosts must not be empty".to_owned()));
            }
            Some(list) => list
                .iter()
                .map(|h| {
                    HostRule::parse(h).ok_or_else(|| {
                        fail(
                            &entry.name,
                            format!("host '{h}' must be %, localhost, an IP address or a CIDR block like 10.0.0.0/8"),
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        let connection_admin = entry.connection_admin.unwrap_or(entry.name == "root");
        users.push(UserConfig {
            name: entry.name,
            password,
            hosts,
            connection_admin,
        });
    }
    if users.is_empty() {
        return Err(ConfigError::User {
            index: 0,
            name: String::new(),
            problem: "[[users]] must list at least one user".to_owned(),
        });
    }
    Ok(users)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::io::Write as _;

    use clap::error::ErrorKind;

    use super::*;

    /// Loads with `args` after the program name and an environment of `env` pairs only.
    fn load(args: &[&str], env: &[(&str, &str)]) -> Result<ServerConfig, ConfigError> {
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let argv = std::iter::once("xrpc-server").chain(args.iter().copied());
        ServerConfig::load_from(argv, &|name| env.get(name).cloned())
    }

    fn temp_file(text: &str) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(text.as_bytes()).unwrap();
        file
    }

    fn error_line(err: ConfigError) -> String {
        format!("error: {err}")
    }

    /// The binary log's default directory is `binlog/` in the default data directory.
    #[test]
    fn binlog_default_dir_is_in_the_default_data_dir() {
        assert_eq!(
            PathBuf::from(DEFAULT_DATA_DIR).join("binlog"),
            PathBuf::from(crate::binlog::DEFAULT_DIR)
        );
    }

    #[test]
    fn no_arguments_gives_the_defaults() {
        let c = load(&[], &[]).unwrap();
        assert_eq!(c.listen, "127.0.0.1:33660".parse().unwrap());
        assert_eq!(c.data_dir, PathBuf::from("./xrpc-data"));
        assert_eq!(c.db_path(), PathBuf::from("./xrpc-data/xrpc.db"));
        assert_eq!(c.metrics, None);
        assert_eq!(c.log, "info");
        assert_eq!(c.users, vec![UserConfig::builtin_root()]);
        assert_eq!(c.max_sessions(), 100_000);
        assert_eq!(c.max_queued_messages(), 128);
        assert_eq!(c.max_allowed_packet(), 64 << 20);
        assert_eq!(c.net_write_timeout(), Duration::from_secs(10));
        assert_eq!(c.auth_max_failures(), 10);
        assert_eq!(c.shared_session_lifetime(), Duration::from_secs(60));
        assert_eq!(c.sqlite_synchronous(), "FULL");
        assert_eq!(c.request_cache_instances(), 16);
        assert_eq!(c.request_cache_number(), 1024);
        assert_eq!(c.request_cache_max_length(), 1 << 20);
        assert!(!c.chunk_result_default());
        let root = c.find_user("root").unwrap();
        assert!(root.password.is_empty());
        assert!(root.allows("127.0.0.1".parse().unwrap()));
        assert!(root.allows("::1".parse().unwrap()));
        assert!(!root.allows("10.1.2.3".parse().unwrap()));
    }

    #[test]
    fn net_config_mirrors_the_framework_defaults() {
        let net = ServerConfig::default().net_config();
        let reference = NetConfig::default();
        net.validate().unwrap();
        assert_eq!(net.listen, reference.listen);
        assert_eq!(net.frame, reference.frame);
        assert_eq!(net.groups, reference.groups);
        assert_eq!(net.threads_per_group, reference.threads_per_group);
        assert_eq!(net.events_per_thread, reference.events_per_thread);
        assert_eq!(net.epoll_timeout, reference.epoll_timeout);
        assert_eq!(net.work_queue_capacity, reference.work_queue_capacity);
        assert_eq!(net.enable_tasker, reference.enable_tasker);
        assert_eq!(net.scale_thresh, reference.scale_thresh);
        assert_eq!(
            net.deadlock_check_interval,
            reference.deadlock_check_interval
        );
        assert_eq!(net.tasker_extend_step, reference.tasker_extend_step);
        assert_eq!(net.tasker_multiply, reference.tasker_multiply);
        assert_eq!(net.shrink_time, reference.shrink_time);
        assert_eq!(net.fixed_recv_buf, reference.fixed_recv_buf);
        assert_eq!(net.net_write_timeout, reference.net_write_timeout);
        assert_eq!(net.tcp_keepalive, reference.tcp_keepalive);
        assert_eq!(net.listen_backlog, reference.listen_backlog);
        assert_eq!(net.cached_output_pages, reference.cached_output_pages);
        assert_eq!(net.bind_cores, reference.bind_cores);
        assert_eq!(net.perf_hist, reference.perf_hist);
        assert_eq!(net.shutdown_grace, Duration::from_secs(10));
    }

    #[test]
    fn net_config_applies_settings() {
        let c = load(
            &[
                "--epoll-groups=3",
                "--epoll-extra-groups=2",
                "--max-epoll-wait-total-threads=10",
                "--galaxy-protocol=on",
                "--galaxy-version=7",
                "--max-allowed-packet=1M",
                "--tcp-keep-alive=60",
                "--enable-perf-hist=ON",
            ],
            &[],
        )
        .unwrap();
        let net = c.net_config();
        assert_eq!(net.groups, 5);
        assert_eq!(net.max_epoll_waiters, 2);
        assert_eq!(
            net.frame,
            xrpc_proto::FrameConfig::new(xrpc_proto::HeaderFormat::Galaxy { version: 7 }, 1 << 20)
                .unwrap()
        );
        assert_eq!(net.tcp_keepalive, Some(Duration::from_secs(60)));
        assert!(net.perf_hist);
    }

    #[test]
    fn precedence_is_flag_then_env_then_file_then_default() {
        let file = temp_file(
            "max_sessions = 10\nmax_queued_messages = 20\nauth_max_failures = 30\nlisten = \"127.0.0.1:1001\"\n",
        );
        let path = file.path().to_str().unwrap();
        let env = [
            ("XRPC_MAX_SESSIONS", "11"),
            ("XRPC_MAX_QUEUED_MESSAGES", "21"),
            ("XRPC_LISTEN", "127.0.0.1:1002"),
        ];
        let c = load(
            &[
                "--config",
                path,
                "--max-sessions",
                "12",
                "--listen=127.0.0.1:1003",
            ],
            &env,
        )
        .unwrap();
        assert_eq!(c.max_sessions(), 12, "flag beats env and file");
        assert_eq!(c.listen.port(), 1003, "flag beats env and file");
        assert_eq!(c.max_queued_messages(), 21, "env beats file");
        assert_eq!(c.auth_max_failures(), 30, "file beats default");
        assert_eq!(c.net_write_timeout(), Duration::from_secs(10), "default");
        assert_eq!(c.config_file.as_deref(), Some(file.path()));

        let c = load(&["--config", path], &env).unwrap();
        assert_eq!(c.max_sessions(), 11);
        assert_eq!(c.listen.port(), 1002);

        // The file can come from the environment too.
        let c = load(&[], &[("XRPC_CONFIG", path)]).unwrap();
        assert_eq!(c.max_sessions(), 10);
        assert_eq!(c.listen.port(), 1001);

        // A flag wins even when the lower layers hold an invalid value.
        let c = load(&["--max-sessions=5"], &[("XRPC_MAX_SESSIONS", "bogus")]).unwrap();
        assert_eq!(c.max_sessions(), 5);
    }

    #[test]
    fn invalid_settings_give_one_exact_line() {
        /// Arguments, environment, expected line.
        type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
        let cases: &[Case<'_>] = &[
            (
                &["--max-queued-messages", "5"],
                &[],
                "error: max_queued_messages must be between 16 and 4096, got 5",
            ),
            (
                &[],
                &[("XRPC_MAX_QUEUED_MESSAGES", "5000")],
                "error: max_queued_messages must be between 16 and 4096, got 5000",
            ),
            (
                &["--binlog", "*,EXEC_SQL{m:0}"],
                &[],
                "error: binlog must be a valid binlog setting (item 2 `EXEC_SQL{m:0}` (at byte 2): {m:0} keeps nothing; write {h} for headers only), got *,EXEC_SQL{m:0}",
            ),
            (
                &[],
                &[("XRPC_BINLOG", "-*")],
                "error: binlog must be a valid binlog setting (item 1 `-*` (at byte 0): `-*` excludes everything; use the empty string to switch the log off), got -*",
            ),
            (
                &["--max-sessions=abc"],
                &[],
                "error: max_sessions must be an integer between 1 and 10000000, got abc",
            ),
            (
                &["--max-allowed-packet=1K"],
                &[],
                "error: max_allowed_packet must be between 4096 and 1073741824, got 1K",
            ),
            (
                &["--galaxy-protocol=maybe"],
                &[],
                "error: galaxy_protocol must be ON or OFF, got maybe",
            ),
            (
                &["--sqlite-synchronous=sometimes"],
                &[],
                "error: sqlite_synchronous must be one of OFF, NORMAL, FULL, EXTRA, got sometimes",
            ),
            (
                &["--listen=localhost"],
                &[],
                "error: listen must be an address and port like 127.0.0.1:33660, got localhost",
            ),
            (
                &["--metrics=9633"],
                &[],
                "error: metrics must be \"off\" or an address and port like 127.0.0.1:9633, got 9633",
            ),
            (
                &[],
                &[("XRPC_NET_WRITE_TIMEOUT", "")],
                "error: net_write_timeout must be an integer between 1 and 7200000, got an empty value",
            ),
            (
                &["--epoll-groups=128", "--epoll-extra-groups=1"],
                &[],
                "error: epoll_extra_groups must be such that there are at most 128 epoll groups, got 1 (129 groups)",
            ),
        ];
        for (args, env, expected) in cases {
            let err = load(args, env).unwrap_err();
            let line = error_line(err);
            assert_eq!(&line, expected);
            assert!(!line.contains('\n'));
        }
    }

    #[test]
    fn file_values_are_checked_like_flags() {
        let file = temp_file("max_queued_messages = 5\n");
        let err = load(&["--config", file.path().to_str().unwrap()], &[]).unwrap_err();
        assert_eq!(
            error_line(err),
            "error: max_queued_messages must be between 16 and 4096, got 5"
        );

        let file = temp_file(
            "galaxy_protocol = true\nmax_allowed_packet = \"16M\"\nsqlite_synchronous = \"normal\"\n",
        );
        let c = load(&["--config", file.path().to_str().unwrap()], &[]).unwrap();
        assert!(c.frame_config().format != xrpc_proto::HeaderFormat::Standard);
        assert_eq!(c.max_allowed_packet(), 16 << 20);
        assert_eq!(c.sqlite_synchronous(), "NORMAL");
    }

    #[test]
    fn file_errors_name_the_file_and_line() {
        let file = temp_file("max_sessions = 10\nmax_queue_messages = 20\n");
        let path = file.path().display().to_string();
        let err = load(&["--config", &path], &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("unknown setting 'max_queue_messages' in config file {path}")
        );

        let file = temp_file("max_sessions = 10\nlisten = \n");
        let path = file.path().display().to_string();
        let err = load(&["--config", &path], &[]).unwrap_err();
        let line = err.to_string();
        assert!(
            line.starts_with(&format!("config file {path}, line 2: ")),
            "{line}"
        );
        assert!(!line.contains('\n'));

        let err = load(&["--config", "/nonexistent/xrpc.toml"], &[]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("cannot read config file /nonexistent/xrpc.toml: "),
            "{err}"
        );
    }

    #[test]
    fn users_are_read_from_the_file() {
        let file = temp_file(
            r#"
[[users]]
name = "app"
password_hash = "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19"
hosts = ["127.0.0.1", "10.0.0.0/8", "fd00::/8"]

[[users]]
name = "ops"
hosts = ["%"]
connection_admin = true

[[users]]
name = "local"
password_hash = ""
"#,
        );
        let c = load(&["--config", file.path().to_str().unwrap()], &[]).unwrap();
        assert_eq!(c.users.len(), 3);
        assert!(c.find_user("root").is_none(), "listing users replaces root");
        // SQL KILL of other users' sessions: only when the file says so (and root by default).
        let admins: Vec<&str> = c
            .users
            .iter()
            .filter(|u| u.connection_admin)
            .map(|u| u.name.as_str())
            .collect();
        assert_eq!(admins, ["ops"]);
        let roots = temp_file(
            "[[users]]\nname = \"root\"\n[[users]]\nname = \"r2\"\nconnection_admin = false\n",
        );
        let with_root = load(&["--config", roots.path().to_str().unwrap()], &[]).unwrap();
        assert!(with_root.find_user("root").unwrap().connection_admin);
        assert!(!with_root.find_user("r2").unwrap().connection_admin);
        let app = c.find_user("app").unwrap();
        assert_eq!(
            app.password,
            PasswordHash::parse("*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19").unwrap()
        );
        assert!(app.allows("127.0.0.1".parse().unwrap()));
        assert!(app.allows("10.200.3.4".parse().unwrap()));
        assert!(app.allows("::ffff:10.1.1.1".parse().unwrap()), "v4-mapped");
        assert!(app.allows("fd12::1".parse().unwrap()));
        assert!(!app.allows("127.0.0.2".parse().unwrap()));
        assert!(!app.allows("11.0.0.1".parse().unwrap()));
        let ops = c.find_user("ops").unwrap();
        assert!(ops.password.is_empty());
        assert!(ops.allows("192.0.2.1".parse().unwrap()));
        let local = c.find_user("local").unwrap();
        assert_eq!(
            local.hosts,
            vec![HostRule::Localhost],
            "hosts default to localhost"
        );
    }

    #[test]
    fn bad_users_are_refused_without_echoing_hashes() {
        let cases = [
            (
                "[[users]]\nname = \"app\"\npassword_hash = \"2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19\"\n",
                "users[0] (app): password_hash must be '*' and 40 hex digits (mysql_native_password), or empty for no password",
            ),
            (
                "[[users]]\nname = \"app\"\npassword_hash = \"*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E1\"\n",
                "users[0] (app): password_hash must be '*' and 40 hex digits (mysql_native_password), or empty for no password",
            ),
            (
                "[[users]]\nname = \"a\"\n[[users]]\nname = \"b\"\nhosts = [\"10.0.0.0/33\"]\n",
                "users[1] (b): host '10.0.0.0/33' must be %, localhost, an IP address or a CIDR block like 10.0.0.0/8",
            ),
            (
                "[[users]]\nname = \"a\"\n[[users]]\nname = \"a\"\n",
                "users[1] (a): the name is listed twice",
            ),
            (
                "[[users]]\nname = \"a\"\npassword = \"secret\"\n",
                "users[0]: unknown field `password`, expected one of `name`, `password_hash`, `hosts`, `connection_admin`",
            ),
            (
                "users = []\n",
                "users[0]: [[users]] must list at least one user",
            ),
            (
                "[[users]]\nname = \"a\"\nhosts = []\n",
                "users[0] (a): hosts must not be empty",
            ),
        ];
        for (text, expected) in cases {
            let file = temp_file(text);
            let err = load(&["--config", file.path().to_str().unwrap()], &[]).unwrap_err();
            assert_eq!(err.to_string(), expected);
        }
    }

    #[test]
    fn password_hash_helper_matches_mysql() {
        assert_eq!(
            password_hash_for("password"),
            "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19"
        );
        assert_eq!(password_hash_for(""), "");
        let debug = format!(
            "{:?}",
            UserConfig {
                name: "x".into(),
                password: PasswordHash::from_password(b"password"),
                hosts: vec![HostRule::Any],
                connection_admin: false,
            }
        );
        assert!(!debug.contains("2470C0"), "{debug}");
    }

    #[test]
    fn help_names_every_setting_with_range_default_and_env() {
        let err = load(&["--help"], &[]).unwrap_err();
        let ConfigError::Cli(clap_err) = err else {
            panic!("help is a clap outcome");
        };
        assert_eq!(clap_err.kind(), ErrorKind::DisplayHelp);
        let help = clap_err.to_string();
        for key in OWN_KEYS.iter().chain(["config"].iter()) {
            assert!(
                help.contains(&format!("--{}", key.replace('_', "-"))),
                "{key}"
            );
            assert!(help.contains(&env_name(key)), "{key}");
        }
        for &id in VarId::ALL {
            let def = id.def();
            if let Some(key) = def.config_key() {
                assert!(
                    help.contains(&format!("--{}", key.replace('_', "-"))),
                    "{key}"
                );
                assert!(help.contains(&env_name(key)), "{key}");
            }
        }
        assert!(
            help.contains("[16..=4096; default 128; SET GLOBAL at runtime]"),
            "{help}"
        );
        assert!(help.contains("Precedence, per setting: flag"));
        command().debug_assert();

        let err = load(&["--version"], &[]).unwrap_err();
        assert!(matches!(err, ConfigError::Cli(e) if e.kind() == ErrorKind::DisplayVersion));
        let err = load(&["--no-such-flag"], &[]).unwrap_err();
        assert!(matches!(err, ConfigError::Cli(e) if e.kind() == ErrorKind::UnknownArgument));
    }

    #[test]
    fn set_setting_and_set_check_values() {
        let mut c = ServerConfig::default();
        c.set_setting("max_sessions", "42").unwrap();
        assert_eq!(c.max_sessions(), 42);
        c.set(VarId::MaxQueuedMessages, VarValue::Int(16)).unwrap();
        assert_eq!(c.max_queued_messages(), 16);
        let err = c
            .set(VarId::MaxQueuedMessages, VarValue::Int(1))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "max_queued_messages must be between 16 and 4096, got 1"
        );
        assert!(matches!(
            c.set_setting("nope", "1"),
            Err(ConfigError::UnknownSetting { .. })
        ));
        c.set_setting("metrics", "127.0.0.1:9633").unwrap();
        assert_eq!(c.metrics, Some("127.0.0.1:9633".parse().unwrap()));
        c.set_setting("metrics", "off").unwrap();
        assert_eq!(c.metrics, None);
        assert!(c.set_setting("log", "xrpc_server=debug,info").is_ok());
        assert!(c.set_setting("log", "[[[").is_err());
    }

    #[test]
    fn variables_take_settings_port_and_datadir() {
        let mut config = ServerConfig {
            listen: "127.0.0.1:4242".parse().unwrap(),
            data_dir: "/var/lib/xrpc".into(),
            ..ServerConfig::default()
        };
        config.set_setting("max_queued_messages", "512").unwrap();
        config.set_setting("sqlite_synchronous", "normal").unwrap();
        config.set_setting("enable_perf_hist", "ON").unwrap();
        let v = config.variables();
        assert_eq!(v.max_queued_messages(), 512);
        assert_eq!(v.sqlite_synchronous(), "NORMAL");
        assert!(v.perf_hist_enabled());
        assert_eq!(v.rpc_port(), 4242);
        assert_eq!(v.get(VarId::Datadir).to_string(), "/var/lib/xrpc");
        assert_eq!(v.get(VarId::NewRpc), VarValue::Bool(true));
    }

    #[test]
    fn the_engine_setting_parses_from_every_source_and_never_shows_the_password() {
        assert_eq!(load(&[], &[]).unwrap().engine, EngineChoice::Sqlite);
        let url = "mysql://app:s3cret@127.0.0.1:3306/shop";
        let c = load(&["--engine", url], &[]).unwrap();
        assert_eq!(c.engine, EngineChoice::Mysql(url.to_owned()));
        assert_eq!(c.engine.describe(), "mysql://app:***@127.0.0.1:3306/shop");
        assert!(!format!("{c:?}").contains("s3cret"));
        let c = load(&[], &[("XRPC_ENGINE", url)]).unwrap();
        assert_eq!(c.engine, EngineChoice::Mysql(url.to_owned()));
        let c = load(&[], &[("XRPC_ENGINE", "SQLite")]).unwrap();
        assert_eq!(c.engine, EngineChoice::Sqlite);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.toml");
        std::fs::write(
            &path,
            format!("engine = \"{url}\"\nbackend_pool_size = 4\n"),
        )
        .unwrap();
        let c = load(&["--config", path.to_str().unwrap()], &[]).unwrap();
        assert_eq!(c.engine, EngineChoice::Mysql(url.to_owned()));
        assert_eq!(c.backend_pool_size(), 4);
        for bad in ["postgres://u:s3cret@h/db", "mysql://u:s3cret@h:port"] {
            let err = load(&["--engine", bad], &[]).unwrap_err().to_string();
            assert!(err.contains("engine"), "{err}");
            assert!(!err.contains("s3cret"), "{err}");
        }
    }
}
