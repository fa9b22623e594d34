//! Connection authentication: accounts and the per-connection MYSQL41 and PLAIN state machine.
//!
//! The state machine is sans-IO: it takes the decoded authentication messages and the random
//! challenge bytes as inputs and returns the reply to send plus what the connection must do next.
//! Authentication happens once per connection; every session on it then runs as that user.
//!
//! ```text
//!            AuthenticateStart(MYSQL41)              AuthenticateContinue(ok)
//!  Start ───────────────────────────────▶ Challenged ─────────────────────────▶ Authenticated
//!    ▲                                        │ wrong password / malformed
//!    └────────────────────────────────────────┘ (failure counted; closed after `max_failures`)
//!
//!            AuthenticateStart(PLAIN, schema \0 user \0 password), over TLS only
//!  Start ─────────────────────────────────────────────────────────────────────▶ Authenticated
//! ```
//!
//! PLAIN carries the password itself, so [`Authenticator::start_plain`] is only for connections
//! that switched to TLS; on a plain connection [`Authenticator::start`] refuses it with 1251 like
//! any mechanism other than MYSQL41. The check hashes the password the way MYSQL41 accounts are
//! stored (`SHA1(SHA1(pw))`) and compares in constant time.

use std::net::IpAddr;

use xrpc_proto::auth::{
    CHALLENGE_LEN, Challenge, MECH_MYSQL41, Mysql41Response, PasswordHash, PlainCredentials,
};
use xrpc_proto::codes;
use xrpc_proto::messages::pb;
use xrpc_proto::{Severity, WireError};

use crate::users::UserConfig;

/// The node's accounts, as configured ([`crate::config`]).
#[derive(Debug, Clone, Default)]
pub struct Accounts {
    accounts: Vec<UserConfig>,
}

impl Accounts {
    /// A set of accounts; the first of several with one name wins.
    pub fn new(accounts: Vec<UserConfig>) -> Self {
        Self { accounts }
    }

    fn find(&self, name: &str) -> Option<&UserConfig> {
        self.accounts.iter().find(|a| a.name == name)
    }

    /// Whether `user` may `KILL` other users' sessions ([`UserConfig::connection_admin`]).
    pub fn is_connection_admin(&self, user: &str) -> bool {
        self.find(user).is_some_and(|a| a.connection_admin)
    }
}

/// What the connection does after an authentication message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthStep {
    /// Send this challenge in an AuthenticateContinue.
    Challenge(Vec<u8>),
    /// Send AuthenticateOk; the connection now runs as `user`.
    Authenticated {
        /// The authenticated user.
        user: String,
        /// The default schema the client asked for, possibly empty.
        schema: String,
    },
    /// Send this error; the connection stays open for a retry.
    Refused(WireError),
    /// Send this error and close the connection.
    RefusedAndClose(WireError),
}

#[derive(Debug)]
enum State {
    Start,
    Challenged(Challenge),
    Authenticated { user: String },
}

/// The authentication state of one connection.
#[derive(Debug)]
pub struct Authenticator {
    state: State,
    failures: u32,
    max_failures: u32,
    peer: Option<IpAddr>,
}

impl Authenticator {
    /// A fresh connection from `peer`, closed after `max_failures` failed attempts.
    pub fn new(peer: Option<IpAddr>, max_failures: u32) -> Self {
        Self {
            state: State::Start,
            failures: 0,
            max_failures: max_failures.max(1),
            peer,
        }
    }

    /// The authenticated user, once there is one.
    pub fn user(&self) -> Option<&str> {
        match &self.state {
            State::Authenticated { user } => Some(user),
            _ => None,
        }
    }

    /// Handles AuthenticateStart. `random` supplies the challenge bytes.
    pub fn start(
        &mut self,
        msg: &pb::session::AuthenticateStart,
        random: [u8; CHALLENGE_LEN],
    ) -> AuthStep {
        if matches!(self.state, State::Authenticated { .. }) {
            return AuthStep::Refused(WireError::with_message(
                &codes::UNEXPECTED_MESSAGE,
                "Connection is already authenticated",
            ));
        }
        if !msg.mech_name.eq_ignore_ascii_case(MECH_MYSQL41) {
            self.state = State::Start;
            return self.fail(WireError::with_message(
                &codes::NOT_SUPPORTED_AUTH_MODE,
                format!(
                    "Authentication mechanism '{}' is not supported on this connection; use MYSQL41 (PLAIN is accepted only after switching to TLS with CapabilitiesSet tls)",
                    msg.mech_name
                ),
            ));
        }
        let challenge = Challenge::from_random(random);
        self.state = State::Challenged(challenge);
        AuthStep::Challenge(challenge.as_bytes().to_vec())
    }

    /// Handles AuthenticateStart with mechanism PLAIN (`auth_data`: `schema \0 user \0 password`).
    /// The caller makes sure the connection runs over TLS.
    pub fn start_plain(
        &mut self,
        msg: &pb::session::AuthenticateStart,
        accounts: &Accounts,
    ) -> AuthStep {
        if matches!(self.state, State::Authenticated { .. }) {
            return AuthStep::Refused(WireError::with_message(
                &codes::UNEXPECTED_MESSAGE,
                "Connection is already authenticated",
            ));
        }
        self.state = State::Start;
        let credentials =
            match PlainCredentials::parse(msg.auth_data.as_deref().unwrap_or_default()) {
                Ok(credentials) => credentials,
                Err(err) => {
                    return self.fail(WireError::with_message(
                        &codes::ACCESS_DENIED,
                        format!("Access denied: malformed PLAIN credentials ({err})"),
                    ));
                }
            };
        let using_password = !credentials.password.is_empty();
        self.conclude(
            credentials.user,
            credentials.schema,
            accounts,
            |account| account.password.verify_plain(&credentials.password),
            using_password,
        )
    }

    /// Handles AuthenticateContinue.
    pub fn continue_(
        &mut self,
        msg: &pb::session::AuthenticateContinue,
        accounts: &Accounts,
    ) -> AuthStep {
        let State::Challenged(challenge) = self.state else {
            return self.fail(WireError::with_message(
                &codes::ACCESS_DENIED,
                "Access denied: AuthenticateContinue without AuthenticateStart",
            ));
        };
        self.state = State::Start;
        let response = match Mysql41Response::parse(&msg.auth_data) {
            Ok(response) => response,
            Err(err) => {
                return self.fail(WireError::with_message(
                    &codes::ACCESS_DENIED,
                    format!("Access denied: malformed MYSQL41 response ({err})"),
                ));
            }
        };
        let using_password = response.scramble.is_some();
        self.conclude(
            response.user,
            response.schema,
            accounts,
            |account| {
                account
                    .password
                    .verify(&challenge, response.scramble.as_ref())
            },
            using_password,
        )
    }

    /// Authenticates `user` if the account exists, allows the peer's host and `verify` accepts
    /// the credentials; otherwise counts a failure with MySQL's access-denied message.
    fn conclude(
        &mut self,
        user: String,
        schema: String,
        accounts: &Accounts,
        verify: impl FnOnce(&UserConfig) -> bool,
        using_password: bool,
    ) -> AuthStep {
        let host_allowed =
            |account: &UserConfig| self.peer.is_some_and(|peer| account.allows(peer));
        // The credentials are checked whatever else fails (unknown user, host not allowed),
        // against a stand-in account for an unknown user, and compared in constant time (see
        // `PasswordHash::verify`): how long a refusal takes says nothing about which part failed.
        let verified = match accounts.find(&user) {
            Some(account) => {
                let password_ok = verify(account);
                host_allowed(account) & password_ok
            }
            None => {
                let stand_in = UserConfig {
                    name: user.clone(),
                    password: PasswordHash::from_password(b"no such account"),
                    hosts: Vec::new(),
                    connection_admin: false,
                };
                let _ = verify(&stand_in);
                false
            }
        };
        if verified {
            self.state = State::Authenticated { user: user.clone() };
            return AuthStep::Authenticated { user, schema };
        }
        let host = self
            .peer
            .map_or_else(|| "unknown".to_owned(), |p| p.to_string());
        let using = if using_password { "YES" } else { "NO" };
        self.fail(WireError::with_message(
            &codes::ACCESS_DENIED,
            format!("Access denied for user '{user}'@'{host}' (using password: {using})"),
        ))
    }

    /// The error for any other request before authentication.
    pub fn not_authenticated() -> WireError {
        WireError::with_message(
            &codes::ACCESS_DENIED,
            "Access denied: authenticate with MYSQL41 before sending requests",
        )
    }

    fn fail(&mut self, err: WireError) -> AuthStep {
        self.failures += 1;
        if self.failures >= self.max_failures {
            // Still an access denial (MySQL's 1129 means a blocked host, which this is not), but
            // FATAL on sid 0: the connection ends.
            let closing = WireError::with_message(
                &codes::ACCESS_DENIED,
                format!(
                    "{}; {} failed attempts, closing the connection",
                    err.message, self.failures
                ),
            )
            .with_severity(Severity::Fatal);
            AuthStep::RefusedAndClose(closing)
        } else {
            AuthStep::Refused(err)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use bytes::Bytes;
    use xrpc_proto::auth::mysql41_client_response;

    use super::*;
    use crate::users::HostRule;

    const LOCAL: Option<IpAddr> = Some(IpAddr::V4(Ipv4Addr::LOCALHOST));

    fn start(mech: &str) -> pb::session::AuthenticateStart {
        pb::session::AuthenticateStart {
            mech_name: mech.into(),
            ..Default::default()
        }
    }

    fn answer(challenge: &[u8], user: &str, password: &str) -> pb::session::AuthenticateContinue {
        let challenge = Challenge::from_bytes(challenge.try_into().unwrap());
        pb::session::AuthenticateContinue {
            auth_data: Bytes::from(mysql41_client_response(
                "db",
                user,
                password.as_bytes(),
                &challenge,
            )),
        }
    }

    fn accounts() -> Accounts {
        Accounts::new(vec![
            UserConfig::builtin_root(),
            UserConfig {
                name: "app".into(),
                password: PasswordHash::from_password(b"s3cret"),
                hosts: vec![HostRule::parse("10.0.0.0/8").unwrap(), HostRule::Localhost],
                connection_admin: false,
            },
        ])
    }

    fn challenge_of(step: AuthStep) -> Vec<u8> {
        match step {
            AuthStep::Challenge(c) => c,
            other => panic!("expected a challenge, got {other:?}"),
        }
    }

    #[test]
    fn right_password_authenticates() {
        let mut auth = Authenticator::new(LOCAL, 3);
        let challenge = challenge_of(auth.start(&start("MYSQL41"), [5; 20]));
        assert_eq!(challenge.len(), 20);
        let step = auth.continue_(&answer(&challenge, "app", "s3cret"), &accounts());
        assert_eq!(
            step,
            AuthStep::Authenticated {
                user: "app".into(),
                schema: "db".into()
            }
        );
        assert_eq!(auth.user(), Some("app"));
    }

    #[test]
    fn wrong_password_is_access_denied_and_the_connection_may_retry() {
        let mut auth = Authenticator::new(LOCAL, 3);
        let challenge = challenge_of(auth.start(&start("MYSQL41"), [1; 20]));
        let AuthStep::Refused(err) =
            auth.continue_(&answer(&challenge, "app", "nope"), &accounts())
        else {
            panic!("expected a refusal");
        };
        assert_eq!((err.code, err.sql_state.as_str()), (1045, "28000"));
        assert_eq!(err.severity, Severity::Error);
        assert_eq!(
            err.message,
            "Access denied for user 'app'@'127.0.0.1' (using password: YES)"
        );
        // Retry on the same connection with a fresh challenge.
        let challenge = challenge_of(auth.start(&start("mysql41"), [2; 20]));
        assert!(matches!(
            auth.continue_(&answer(&challenge, "app", "s3cret"), &accounts()),
            AuthStep::Authenticated { .. }
        ));
    }

    #[test]
    fn root_without_password_only_from_loopback() {
        let mut local = Authenticator::new(LOCAL, 3);
        let challenge = challenge_of(local.start(&start("MYSQL41"), [3; 20]));
        assert!(matches!(
            local.continue_(&answer(&challenge, "root", ""), &accounts()),
            AuthStep::Authenticated { .. }
        ));

        let remote = Some(IpAddr::V4(Ipv4Addr::new(192, 168, 1, 9)));
        let mut far = Authenticator::new(remote, 3);
        let challenge = challenge_of(far.start(&start("MYSQL41"), [3; 20]));
        let AuthStep::Refused(err) = far.continue_(&answer(&challenge, "root", ""), &accounts())
        else {
            panic!("root must be refused from a remote address");
        };
        assert!(
            err.message.contains("using password: NO"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_scramble_for_a_passwordless_account_is_refused() {
        let mut auth = Authenticator::new(LOCAL, 3);
        let challenge = challenge_of(auth.start(&start("MYSQL41"), [4; 20]));
        assert!(matches!(
            auth.continue_(&answer(&challenge, "root", "guess"), &accounts()),
            AuthStep::Refused(_)
        ));
    }

    #[test]
    fn plain_and_unknown_mechanisms_are_refused() {
        let mut auth = Authenticator::new(LOCAL, 5);
        let AuthStep::Refused(err) = auth.start(&start("PLAIN"), [0; 20]) else {
            panic!("PLAIN must be refused");
        };
        assert_eq!(err.code, codes::NOT_SUPPORTED_AUTH_MODE.code);
        assert!(matches!(
            auth.start(&start("SHA256_MEMORY"), [0; 20]),
            AuthStep::Refused(_)
        ));
    }

    #[test]
    fn continue_without_start_is_refused() {
        let mut auth = Authenticator::new(LOCAL, 5);
        let step = auth.continue_(&answer(&[b'a'; 20], "root", ""), &accounts());
        assert!(matches!(step, AuthStep::Refused(e) if e.code == 1045));
    }

    #[test]
    fn too_many_failures_close_the_connection() {
        let mut auth = Authenticator::new(LOCAL, 2);
        let challenge = challenge_of(auth.start(&start("MYSQL41"), [1; 20]));
        assert!(matches!(
            auth.continue_(&answer(&challenge, "app", "x"), &accounts()),
            AuthStep::Refused(_)
        ));
        let challenge = challenge_of(auth.start(&start("MYSQL41"), [1; 20]));
        let AuthStep::RefusedAndClose(err) =
            auth.continue_(&answer(&challenge, "app", "y"), &accounts())
        else {
            panic!("the second failure must close");
        };
        assert_eq!(err.severity, Severity::Fatal);
        assert_eq!(
            (err.code, err.sql_state.as_str()),
            (codes::ACCESS_DENIED.code, "28000")
        );
        assert!(err.message.contains("2 failed attempts"), "{}", err.message);
    }
}
