//! Authentication helpers: the MYSQL41 challenge-response and PLAIN message parsing.
//!
//! MYSQL41 is `mysql_native_password` carried in X-protocol messages:
//!
//! 1. the client sends `AuthenticateStart { mech_name: "MYSQL41" }`;
//! 2. the server answers `AuthenticateContinue { auth_data: <20-byte challenge> }`;
//! 3. the client answers `AuthenticateContinue { auth_data: schema \0 user \0 *<40 hex digits> }`, where
//!    the hex is `SHA1(pw) XOR SHA1(challenge ‖ SHA1(SHA1(pw)))`; with an empty password it sends
//!    `schema \0 user \0` and nothing after;
//! 4. the server answers `AuthenticateOk`, or an access-denied `Error`.
//!
//! The server never stores or sees the password: it keeps `SHA1(SHA1(pw))`, MySQL's
//! `*<40 upper-case hex>` account format ([`PasswordHash`]), and checks that the client's scramble,
//! unmasked with it, hashes back to it. Nothing here draws randomness or reads a clock; the caller
//! supplies the challenge bytes.

use sha1::{Digest, Sha1};

/// Length of the MYSQL41 challenge (the "salt").
pub const CHALLENGE_LEN: usize = 20;

/// The mechanism name of challenge-response authentication.
pub const MECH_MYSQL41: &str = "MYSQL41";
/// The mechanism name of clear-text authentication, acceptable only over TLS.
pub const MECH_PLAIN: &str = "PLAIN";

/// A malformed authentication message or stored hash.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// The message lacks the `schema \0 user \0` prefix.
    #[error("authentication data must be `schema\\0user\\0...`: {0}")]
    Malformed(&'static str),
    /// The user name is not UTF-8.
    #[error("user or schema name is not valid UTF-8")]
    NotUtf8,
    /// The scramble is not `*` followed by 40 hex digits.
    #[error("MYSQL41 scramble must be `*` and 40 hex digits")]
    BadScramble,
    /// A stored hash is not `*` followed by 40 hex digits (or empty for no password).
    #[error("password hash must be empty or `*` and 40 hex digits")]
    BadHash,
}

/// A 20-byte MYSQL41 challenge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Challenge([u8; CHALLENGE_LEN]);

impl Challenge {
    /// Builds a challenge from random bytes, folded into printable 7-bit characters.
    ///
    /// MySQL's salts avoid `\0` and `$` because some clients treat the salt as a C string, so the
    /// same is done here; the folding keeps about 6.5 bits of entropy per byte.
    pub fn from_random(random: [u8; CHALLENGE_LEN]) -> Self {
        let mut salt = random;
        for byte in &mut salt {
            // Map into 0x21..=0x7e, skipping '$'.
            let mut c = 0x21 + (*byte % 94);
            if c == b'$' {
                c = b'#';
            }
            *byte = c;
        }
        Self(salt)
    }

    /// The raw challenge bytes, exactly as sent.
    pub fn as_bytes(&self) -> &[u8; CHALLENGE_LEN] {
        &self.0
    }

    /// Wraps challenge bytes received from a server.
    pub fn from_bytes(bytes: [u8; CHALLENGE_LEN]) -> Self {
        Self(bytes)
    }
}

/// The stored form of an account's password: `SHA1(SHA1(password))`, or nothing for an account
/// without a password.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PasswordHash(Option<[u8; 20]>);

impl PasswordHash {
    /// The hash of an account with no password.
    pub const EMPTY: PasswordHash = PasswordHash(None);

    /// Hashes a clear-text password; an empty password gives [`PasswordHash::EMPTY`], as in MySQL.
    pub fn from_password(password: &[u8]) -> Self {
        if password.is_empty() {
            return Self::EMPTY;
        }
        Self(Some(sha1(&[&sha1(&[password])])))
    }

    /// Parses MySQL's account format: empty, or `*` followed by 40 hex digits (either case).
    pub fn parse(text: &str) -> Result<Self, AuthError> {
        if text.is_empty() {
            return Ok(Self::EMPTY);
        }
        let hex = text.strip_prefix('*').ok_or(AuthError::BadHash)?;
        decode_hex20(hex)
            .map(|h| Self(Some(h)))
            .ok_or(AuthError::BadHash)
    }

    /// Whether the account has no password.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// Renders MySQL's account format: `*` and 40 upper-case hex digits, or empty.
    pub fn to_mysql_string(&self) -> String {
        match &self.0 {
            None => String::new(),
            Some(hash) => {
                let mut out = String::with_capacity(41);
                out.push('*');
                push_hex(&mut out, hash, b"0123456789ABCDEF");
                out
            }
        }
    }

    /// Checks a MYSQL41 response against this hash.
    ///
    /// `scramble` is `None` when the client sent no `*<hex>` part, which is how a client with an
    /// empty password answers; that is accepted only for an account with no password.
    pub fn verify(&self, challenge: &Challenge, scramble: Option<&[u8; 20]>) -> bool {
        match (&self.0, scramble) {
            (None, None) => true,
            (Some(stored), Some(scramble)) => {
                let mask = sha1(&[challenge.as_bytes(), stored]);
                let mut stage1 = [0u8; 20];
                for i in 0..20 {
                    stage1[i] = scramble[i] ^ mask[i];
                }
                constant_time_eq(&sha1(&[&stage1]), stored)
            }
            _ => false,
        }
    }
}

impl PasswordHash {
    /// Checks a clear-text password (mechanism PLAIN, over TLS only) against this hash, in
    /// constant time.
    pub fn verify_plain(&self, password: &[u8]) -> bool {
        match (&self.0, Self::from_password(password).0) {
            (None, None) => true,
            (Some(stored), Some(given)) => constant_time_eq(&given, stored),
            _ => false,
        }
    }
}

impl std::fmt::Debug for PasswordHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The hash is password-equivalent for MYSQL41, so it never reaches a log.
        f.write_str(if self.is_empty() {
            "PasswordHash(<none>)"
        } else {
            "PasswordHash(<redacted>)"
        })
    }
}

/// Computes the client's MYSQL41 scramble: `SHA1(pw) XOR SHA1(challenge ‖ SHA1(SHA1(pw)))`.
///
/// Returns `None` for an empty password, which the client signals by sending no scramble at all.
pub fn mysql41_scramble(password: &[u8], challenge: &Challenge) -> Option<[u8; 20]> {
    if password.is_empty() {
        return None;
    }
    let stage1 = sha1(&[password]);
    let stage2 = sha1(&[&stage1]);
    let mask = sha1(&[challenge.as_bytes(), &stage2]);
    let mut out = [0u8; 20];
    for i in 0..20 {
        out[i] = stage1[i] ^ mask[i];
    }
    Some(out)
}

/// Builds the client's MYSQL41 `AuthenticateContinue.auth_data`: `schema \0 user \0 [*hex]`, the hex
/// in lower case as the PolarDB-X client sends it.
pub fn mysql41_client_response(
    schema: &str,
    user: &str,
    password: &[u8],
    challenge: &Challenge,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(schema.len() + user.len() + 43);
    out.extend_from_slice(schema.as_bytes());
    out.push(0);
    out.extend_from_slice(user.as_bytes());
    out.push(0);
    if let Some(scramble) = mysql41_scramble(password, challenge) {
        let mut hex = String::with_capacity(41);
        hex.push('*');
        push_hex(&mut hex, &scramble, b"0123456789abcdef");
        out.extend_from_slice(hex.as_bytes());
    }
    out
}

/// A parsed MYSQL41 client response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mysql41Response {
    /// Default schema, possibly empty.
    pub schema: String,
    /// Account name.
    pub user: String,
    /// The 20-byte scramble, or `None` when the client sent none (empty password).
    pub scramble: Option<[u8; 20]>,
}

impl Mysql41Response {
    /// Parses `schema \0 user \0 [*<40 hex>]`.
    pub fn parse(data: &[u8]) -> Result<Self, AuthError> {
        let (schema, user, rest) = split_schema_user(data)?;
        let scramble = if rest.is_empty() {
            None
        } else {
            let hex = rest.strip_prefix(b"*").ok_or(AuthError::BadScramble)?;
            let hex = std::str::from_utf8(hex).map_err(|_| AuthError::BadScramble)?;
            Some(decode_hex20(hex).ok_or(AuthError::BadScramble)?)
        };
        Ok(Self {
            schema,
            user,
            scramble,
        })
    }
}

/// A parsed PLAIN `AuthenticateStart.auth_data`: `schema \0 user \0 password`.
#[derive(Clone, PartialEq, Eq)]
pub struct PlainCredentials {
    /// Default schema, possibly empty.
    pub schema: String,
    /// Account name.
    pub user: String,
    /// Clear-text password.
    pub password: Vec<u8>,
}

impl PlainCredentials {
    /// Parses `schema \0 user \0 password`.
    pub fn parse(data: &[u8]) -> Result<Self, AuthError> {
        let (schema, user, password) = split_schema_user(data)?;
        Ok(Self {
            schema,
            user,
            password: password.to_vec(),
        })
    }

    /// Encodes the credentials the way a client sends them.
    pub fn encode(&self) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(self.schema.len() + self.user.len() + self.password.len() + 2);
        out.extend_from_slice(self.schema.as_bytes());
        out.push(0);
        out.extend_from_slice(self.user.as_bytes());
        out.push(0);
        out.extend_from_slice(&self.password);
        out
    }
}

impl std::fmt::Debug for PlainCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlainCredentials")
            .field("schema", &self.schema)
            .field("user", &self.user)
            .field("password", &"<redacted>")
            .finish()
    }
}

fn split_schema_user(data: &[u8]) -> Result<(String, String, &[u8]), AuthError> {
    let mut parts = data.splitn(3, |&b| b == 0);
    let schema = parts.next().ok_or(AuthError::Malformed("empty"))?;
    let user = parts.next().ok_or(AuthError::Malformed("missing user"))?;
    let rest = parts
        .next()
        .ok_or(AuthError::Malformed("user not terminated by \\0"))?;
    if user.is_empty() {
        return Err(AuthError::Malformed("empty user"));
    }
    let schema = std::str::from_utf8(schema).map_err(|_| AuthError::NotUtf8)?;
    let user = std::str::from_utf8(user).map_err(|_| AuthError::NotUtf8)?;
    Ok((schema.to_owned(), user.to_owned(), rest))
}

fn sha1(parts: &[&[u8]]) -> [u8; 20] {
    let mut hasher = Sha1::new();
    for part in parts {
        hasher.update(part);
    }
    hasher.finalize().into()
}

fn decode_hex20(hex: &str) -> Option<[u8; 20]> {
    let bytes = hex.as_bytes();
    if bytes.len() != 40 {
        return None;
    }
    let mut out = [0u8; 20];
    for (i, pair) in bytes.chunks_exact(2).enumerate() {
        let hi = (pair[0] as char).to_digit(16)?;
        let lo = (pair[1] as char).to_digit(16)?;
        out[i] = (hi * 16 + lo) as u8;
    }
    Some(out)
}

fn push_hex(out: &mut String, bytes: &[u8], digits: &[u8; 16]) {
    for b in bytes {
        out.push(digits[usize::from(b >> 4)] as char);
        out.push(digits[usize::from(b & 0xf)] as char);
    }
}

/// Compares without an early exit, so response time does not reveal how many bytes matched.
fn constant_time_eq(a: &[u8; 20], b: &[u8; 20]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn password_hash_matches_mysql_password_function() {
        // SELECT PASSWORD('root') in MySQL 5.7.
        assert_eq!(
            PasswordHash::from_password(b"root").to_mysql_string(),
            "*81F5E21E35407D884A6CD4A731AEBFB6AF209E1B"
        );
        assert_eq!(PasswordHash::from_password(b"").to_mysql_string(), "");
    }

    #[test]
    fn hash_parses_either_case_and_round_trips() {
        let hash = PasswordHash::parse("*81f5e21e35407d884a6cd4a731aebfb6af209e1b").unwrap();
        assert_eq!(hash, PasswordHash::from_password(b"root"));
        assert_eq!(PasswordHash::parse(&hash.to_mysql_string()).unwrap(), hash);
        assert_eq!(PasswordHash::parse("81F5E2"), Err(AuthError::BadHash));
        assert_eq!(PasswordHash::parse("*XYZ"), Err(AuthError::BadHash));
        assert!(PasswordHash::parse("").unwrap().is_empty());
    }

    #[test]
    fn right_password_verifies_and_wrong_one_does_not() {
        let challenge = Challenge::from_random([7; CHALLENGE_LEN]);
        let stored = PasswordHash::from_password(b"s3cret");
        let data = mysql41_client_response("db", "app", b"s3cret", &challenge);
        let response = Mysql41Response::parse(&data).unwrap();
        assert_eq!(
            (response.schema.as_str(), response.user.as_str()),
            ("db", "app")
        );
        assert!(stored.verify(&challenge, response.scramble.as_ref()));

        let wrong =
            Mysql41Response::parse(&mysql41_client_response("db", "app", b"guess", &challenge))
                .unwrap();
        assert!(!stored.verify(&challenge, wrong.scramble.as_ref()));
        // A scramble made for another challenge is useless: no replay.
        let other = Challenge::from_random([9; CHALLENGE_LEN]);
        assert!(!stored.verify(&other, response.scramble.as_ref()));
    }

    #[test]
    fn empty_password_sends_no_scramble_and_only_fits_passwordless_accounts() {
        let challenge = Challenge::from_random([1; CHALLENGE_LEN]);
        let data = mysql41_client_response("", "root", b"", &challenge);
        assert_eq!(data, b"\0root\0");
        let response = Mysql41Response::parse(&data).unwrap();
        assert_eq!(response.scramble, None);
        assert!(PasswordHash::EMPTY.verify(&challenge, None));
        assert!(!PasswordHash::from_password(b"x").verify(&challenge, None));
        // A scramble sent for a passwordless account is refused as well.
        let scramble = mysql41_scramble(b"x", &challenge).unwrap();
        assert!(!PasswordHash::EMPTY.verify(&challenge, Some(&scramble)));
    }

    #[test]
    fn client_sends_lower_case_hex() {
        let challenge = Challenge::from_random([3; CHALLENGE_LEN]);
        let data = mysql41_client_response("", "u", b"p", &challenge);
        let hex = &data[3..];
        assert_eq!(hex.len(), 41);
        assert!(
            hex[1..]
                .iter()
                .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
        );
    }

    #[test]
    fn malformed_responses_are_rejected() {
        assert!(matches!(
            Mysql41Response::parse(b""),
            Err(AuthError::Malformed(_))
        ));
        assert!(matches!(
            Mysql41Response::parse(b"db\0user"),
            Err(AuthError::Malformed(_))
        ));
        assert!(matches!(
            Mysql41Response::parse(b"db\0\0"),
            Err(AuthError::Malformed(_))
        ));
        assert_eq!(
            Mysql41Response::parse(b"\0u\0abc"),
            Err(AuthError::BadScramble)
        );
        assert_eq!(
            Mysql41Response::parse(b"\0u\0*12"),
            Err(AuthError::BadScramble)
        );
        assert_eq!(Mysql41Response::parse(b"\0\xff\0"), Err(AuthError::NotUtf8));
    }

    #[test]
    fn plain_credentials_round_trip_and_hide_the_password() {
        let creds = PlainCredentials::parse(b"test\0root\0hunter\0two").unwrap();
        assert_eq!(creds.password, b"hunter\0two");
        assert_eq!(PlainCredentials::parse(&creds.encode()).unwrap(), creds);
        assert!(!format!("{creds:?}").contains("hunter"));
    }

    #[test]
    fn challenge_bytes_are_printable_and_never_dollar() {
        let all: Vec<u8> = (0..=255).collect();
        for chunk in all.chunks(CHALLENGE_LEN) {
            let mut random = [0u8; CHALLENGE_LEN];
            random[..chunk.len()].copy_from_slice(chunk);
            for &b in Challenge::from_random(random).as_bytes() {
                assert!((0x21..=0x7e).contains(&b) && b != b'$');
            }
        }
    }

    proptest! {
        #[test]
        fn scramble_verifies_for_any_password_and_challenge(
            password in proptest::collection::vec(any::<u8>(), 1..64),
            random in any::<[u8; CHALLENGE_LEN]>(),
        ) {
            let challenge = Challenge::from_random(random);
            let scramble = mysql41_scramble(&password, &challenge).unwrap();
            prop_assert!(PasswordHash::from_password(&password).verify(&challenge, Some(&scramble)));
        }

        #[test]
        fn parsing_arbitrary_bytes_never_panics(data in proptest::collection::vec(any::<u8>(), 0..128)) {
            let _ = Mysql41Response::parse(&data);
            let _ = PlainCredentials::parse(&data);
        }
    }
}
