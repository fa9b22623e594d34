//! `xrpc shell` and `xrpc exec`: SQL typed at a prompt, piped in, or given on the command line.
//!
//! # The shell
//!
//! On a terminal it is interactive: `rustyline` line editing, history in `~/.xrpc_history`
//! (`XRPC_HISTFILE` overrides), a `xrpc> ` prompt and `    -> ` for continuation lines. A
//! statement ends with `;` (see [`crate::split`]); several may share a line. Results print as the
//! mysql client prints them, with `N rows in set (0.00 sec)` footers. Backslash commands, accepted
//! when no statement is pending:
//!
//! | command | effect |
//! |---|---|
//! | `\timing` | toggles the `(0.00 sec)` part of the footers (on by default at a terminal) |
//! | `\status` | the connection as the mysql client's `status` shows it (id, database, user, server version, protocol, TLS and cipher, uptime), then the node's `SHOW STATUS` and stage histograms ([`crate::status`]) |
//! | `\h`, `help` | lists these commands |
//! | `\q`, `quit`, `exit` | leaves (so does Ctrl-D; Ctrl-C drops the pending statement) |
//!
//! All statements run on one session, so `BEGIN`, `SET` and `USE` carry over. A lost connection
//! is reported, and the next statement reconnects with a new session.
//!
//! When stdin is not a terminal the shell reads statements from it instead, prints the same
//! tables and footers (timing off, so the output is stable), and stops at the first error with
//! exit code 1, as the mysql client does; `--force` goes on after errors and still exits 1 if any
//! statement failed. Errors go to stderr in the mysql client's form,
//! `ERROR 1064 (42000): message` ([`crate::errors`]).
//!
//! # exec
//!
//! `xrpc exec "SQL"` runs each statement of its argument in order on one session and prints each
//! result in the chosen [`Format`]: a table or CSV per statement, or one JSON document for the
//! whole run ([`crate::format`], "JSON"). It stops at the first error, which goes to stderr (and,
//! in JSON, into the document as the last statement's `error`), with exit code 1.

use std::io::{BufRead, IsTerminal, Write};
use std::time::{Duration, Instant};

use xrpc_client::blocking::Session;
use xrpc_client::{ClientError, ExecResult};

use crate::conn::ConnArgs;
use crate::errors::{MysqlError, Phase};
use crate::format::{self, Format, JsonArray};
use crate::split::{Splitter, split_all};
use crate::status;

/// `xrpc shell` options.
#[derive(Debug, Clone, clap::Args)]
pub struct ShellArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    /// With SQL on stdin: go on after a failed statement (the exit code is still 1).
    #[arg(long)]
    pub force: bool,
}

/// `xrpc exec` options.
#[derive(Debug, Clone, clap::Args)]
pub struct ExecArgs {
    /// The statements to run, separated by `;`.
    pub sql: String,
    /// How to print results. `json` prints ONE JSON document for the whole run (not JSON Lines):
    /// an array with an object per statement, keys in this order: `statement`, then `columns`
    /// ([{name, type}] in column order) and `rows` (arrays in column order) for a result set, or
    /// `rows_affected` and `last_insert_id`; then `warnings`, or `error` ({code, sql_state,
    /// message}) for the statement that failed, which ends the run (stderr gets it too, as
    /// `ERROR code (state): message`; a failure to connect prints nothing on stdout). DECIMAL
    /// values are strings exactly as the node sent them ("1.50"); integers beyond ±(2^53-1) are
    /// strings of their digits; other numbers are JSON numbers.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub format: Format,
    #[command(flatten)]
    pub conn: ConnArgs,
}

/// Runs `xrpc exec`; the process exit code.
pub fn run_exec(args: &ExecArgs) -> i32 {
    let addr = args.conn.addr();
    let mut session = match args.conn.session() {
        Ok(s) => s,
        Err(err) => {
            eprintln!(
                "{}",
                MysqlError::from_client(&err, Phase::Connecting, &addr)
            );
            return 1;
        }
    };
    let stdout = std::io::stdout().lock();
    let (mut json, mut text) = match args.format {
        Format::Json => (Some(JsonArray::new(stdout)), None),
        Format::Table | Format::Csv => (None, Some(stdout)),
    };
    for stmt in split_all(&args.sql) {
        let outcome = session
            .execute(&stmt, &[])
            .map_err(|err| MysqlError::from_client(&err, Phase::Running, &addr));
        match (&outcome, &mut json, &mut text) {
            (_, Some(doc), _) => doc.push(&stmt, outcome.as_ref()),
            (Ok(result), None, Some(out)) => {
                let csv = args.format == Format::Csv;
                let _ = out.write_all(format::render(result, csv).as_bytes());
            }
            _ => {}
        }
        if let Err(err) = outcome {
            if let Some(doc) = json.take() {
                doc.finish();
            }
            if let Some(out) = text.as_mut() {
                let _ = out.flush();
            }
            eprintln!("{err}");
            return 1;
        }
    }
    0
}

/// The state of one shell: its connection settings, session and toggles.
struct Shell {
    conn: ConnArgs,
    session: Option<Session>,
    timing: bool,
}

/// What a line of input asked for.
enum Action {
    Continue,
    Quit,
}

impl Shell {
    /// The session, connecting first if there is none; a failure is reported as connecting.
    fn session(&mut self) -> Result<&mut Session, MysqlError> {
        if self.session.is_none() {
            let session = self.conn.session().map_err(|err| {
                MysqlError::from_client(&err, Phase::Connecting, &self.conn.addr())
            })?;
            self.session = Some(session);
        }
        Ok(self.session.as_mut().expect("just connected"))
    }

    /// A statement's failure as reported, dropping a lost session so the next statement
    /// reconnects.
    fn failed(&mut self, err: &ClientError) -> MysqlError {
        if err.is_connection_lost() || err.is_session_closed() {
            self.session = None;
        }
        MysqlError::from_client(err, Phase::Running, &self.conn.addr())
    }

    /// Runs one statement and prints its outcome; `false` if it failed.
    fn run(&mut self, sql: &str, out: &mut dyn Write) -> bool {
        let started = Instant::now();
        let result = match self.session() {
            Ok(session) => session.execute(sql, &[]),
            Err(err) => {
                eprintln!("{err}");
                return false;
            }
        };
        let result = result.map_err(|err| self.failed(&err));
        let elapsed = self.timing.then(|| started.elapsed());
        match result {
            Ok(result) => {
                let _ = out.write_all(render_for_shell(&result, elapsed).as_bytes());
                let _ = out.flush();
                true
            }
            Err(err) => {
                let _ = out.flush();
                eprintln!("{err}");
                false
            }
        }
    }

    /// Handles a backslash command or quit word; `None` when `line` is not one.
    fn command(&mut self, line: &str, out: &mut dyn Write) -> Option<(Action, bool)> {
        let word = line.trim().trim_end_matches(';').trim();
        let action = match word {
            "\\q" | "quit" | "exit" => return Some((Action::Quit, true)),
            "\\timing" => {
                self.timing = !self.timing;
                let _ = writeln!(out, "Timing is {}.", if self.timing { "on" } else { "off" });
                true
            }
            "\\status" | "\\s" => {
                let conn = self.conn.clone();
                let rendered = match self.session() {
                    Ok(session) => status::render(session, &conn),
                    Err(err) => {
                        eprintln!("{err}");
                        return Some((Action::Continue, false));
                    }
                };
                match rendered.map_err(|err| self.failed(&err)) {
                    Ok(text) => {
                        let _ = out.write_all(text.as_bytes());
                        true
                    }
                    Err(err) => {
                        eprintln!("{err}");
                        false
                    }
                }
            }
            "\\h" | "\\?" | "help" => {
                let _ = writeln!(
                    out,
                    "Statements end with ';'.\n\
                     \\timing   toggle timing of statements\n\
                     \\status   the connection (id, user, version, TLS, uptime), then the node's counters\n\
                     \\q        quit"
                );
                true
            }
            w if w.starts_with('\\') => {
                eprintln!("ERROR: unknown command '{w}'; \\h lists the commands");
                false
            }
            _ => return None,
        };
        let _ = out.flush();
        Some((Action::Continue, action))
    }
}

/// A result as the shell prints it: the table (none for an empty set) and a footer.
fn render_for_shell(result: &ExecResult, elapsed: Option<Duration>) -> String {
    let mut text = String::new();
    match &result.result_set {
        Some(rs) if !rs.rows.is_empty() => {
            text.push_str(&format::table(rs));
            text.push_str(&format::rows_footer(rs.rows.len(), elapsed));
        }
        Some(_) => text.push_str(&format::rows_footer(0, elapsed)),
        None => text.push_str(&format::affected(result.rows_affected, elapsed)),
    }
    text.push('\n');
    for w in &result.warnings {
        text.push_str(&format!("Warning (Code {}): {}\n", w.code, w.message));
    }
    text.push('\n');
    text
}

/// Runs `xrpc shell`; the process exit code.
pub fn run_shell(args: &ShellArgs) -> i32 {
    let interactive = std::io::stdin().is_terminal();
    let mut shell = Shell {
        conn: args.conn.clone(),
        session: None,
        timing: interactive,
    };
    // Connect up front, so a wrong address or password fails before the first statement.
    if let Err(err) = shell.session() {
        eprintln!("{err}");
        return 1;
    }
    if interactive {
        interactive_loop(&mut shell)
    } else {
        stdin_loop(&mut shell, args.force)
    }
}

fn history_path() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("XRPC_HISTFILE") {
        return Some(p.into());
    }
    std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".xrpc_history"))
}

fn interactive_loop(shell: &mut Shell) -> i32 {
    use rustyline::error::ReadlineError;

    let mut editor = match rustyline::DefaultEditor::new() {
        Ok(e) => e,
        Err(err) => {
            eprintln!("ERROR: cannot start the line editor: {err}");
            return 1;
        }
    };
    let history = history_path();
    if let Some(path) = &history {
        // A missing history file is the normal first run.
        let _ = editor.load_history(path);
    }
    println!(
        "Connected to xrpc node {} as {}. Statements end with ';'; \\h for help, \\q to quit.\n",
        shell.conn.addr(),
        shell.conn.user
    );
    let mut splitter = Splitter::new();
    let mut stdout = std::io::stdout();
    loop {
        let prompt = if splitter.is_empty() {
            "xrpc> "
        } else {
            "    -> "
        };
        match editor.readline(prompt) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                }
                if splitter.is_empty()
                    && let Some((action, _)) = shell.command(&line, &mut stdout)
                {
                    if matches!(action, Action::Quit) {
                        break;
                    }
                    continue;
                }
                for stmt in splitter.push(&line) {
                    shell.run(&stmt, &mut stdout);
                }
                splitter.push("\n");
            }
            Err(ReadlineError::Interrupted) => splitter.clear(),
            Err(ReadlineError::Eof) => break,
            Err(err) => {
                eprintln!("ERROR: reading the terminal: {err}");
                break;
            }
        }
    }
    if let Some(path) = &history {
        let _ = editor.save_history(path);
    }
    println!("Bye");
    0
}

fn stdin_loop(shell: &mut Shell, force: bool) -> i32 {
    let mut splitter = Splitter::new();
    let mut stdout = std::io::stdout().lock();
    let mut failed = false;
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        let line = match lines.next() {
            Some(Ok(line)) => line,
            Some(Err(err)) => {
                eprintln!("ERROR: reading stdin: {err}");
                return 1;
            }
            None => break,
        };
        let mut statements = Vec::new();
        if splitter.is_empty() {
            match shell.command(&line, &mut stdout) {
                Some((Action::Quit, _)) => return i32::from(failed),
                Some((Action::Continue, ok)) => {
                    failed |= !ok;
                    if !ok && !force {
                        return 1;
                    }
                    continue;
                }
                None => {}
            }
        }
        statements.extend(splitter.push(&line));
        splitter.push("\n");
        for stmt in statements {
            if !shell.run(&stmt, &mut stdout) {
                failed = true;
                if !force {
                    return 1;
                }
            }
        }
    }
    if let Some(stmt) = splitter.finish()
        && !shell.run(&stmt, &mut stdout)
    {
        failed = true;
    }
    i32::from(failed)
}
