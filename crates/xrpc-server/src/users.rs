//! Accounts: who may connect, with which password hash, from where.
//!
//! The configuration reads them (`[[users]]` in the file, see [`crate::config`]) and
//! authentication checks them (see [`crate::auth`]). A [`UserConfig`]'s password is the MYSQL41
//! hash, `SHA1(SHA1(password))`, which is password-equivalent: it never reaches `Debug` output of
//! the configuration's errors.

use std::fmt;
use std::net::IpAddr;

use xrpc_proto::auth::PasswordHash;

/// An account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserConfig {
    /// The user name, compared exactly.
    pub name: String,
    /// `SHA1(SHA1(password))`, or empty for no password.
    pub password: PasswordHash,
    /// Where the user may connect from; never empty.
    pub hosts: Vec<HostRule>,
    /// Whether SQL `KILL` may name another user's sessions (MySQL's CONNECTION_ADMIN, or SUPER);
    /// every user may kill its own. `root` has it unless the file says otherwise.
    pub connection_admin: bool,
}

impl UserConfig {
    /// `root` with an empty password, from loopback only: the account when the file lists none.
    pub fn builtin_root() -> Self {
        Self {
            name: "root".to_owned(),
            password: PasswordHash::EMPTY,
            hosts: vec![HostRule::Localhost],
            connection_admin: true,
        }
    }

    /// `name` with the hash of `password`, allowed from `hosts`; `connection_admin` only for
    /// `root`.
    pub fn with_password(name: &str, password: &str, hosts: Vec<HostRule>) -> Self {
        Self {
            name: name.to_owned(),
            password: PasswordHash::from_password(password.as_bytes()),
            hosts,
            connection_admin: name == "root",
        }
    }

    /// The account with `connection_admin` set as given.
    pub fn with_connection_admin(mut self, connection_admin: bool) -> Self {
        self.connection_admin = connection_admin;
        self
    }

    /// Whether the user may connect from `peer`.
    pub fn allows(&self, peer: IpAddr) -> bool {
        self.hosts.iter().any(|rule| rule.matches(peer))
    }
}

/// Where a user may connect from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostRule {
    /// `%`: anywhere.
    Any,
    /// `localhost`: 127.0.0.0/8 and ::1.
    Localhost,
    /// An address (`prefix` = full length) or a CIDR block.
    Net {
        /// The network address, host bits cleared.
        addr: IpAddr,
        /// Prefix length in bits.
        prefix: u8,
    },
}

impl HostRule {
    /// Parses `%`, `localhost`, an IPv4 or IPv6 address, or `address/prefix`.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if text == "%" {
            return Some(HostRule::Any);
        }
        if text.eq_ignore_ascii_case("localhost") {
            return Some(HostRule::Localhost);
        }
        let (addr, prefix) = match text.split_once('/') {
            Some((addr, prefix)) => (
                addr.parse::<IpAddr>().ok()?,
                Some(prefix.parse::<u8>().ok()?),
            ),
            None => (text.parse::<IpAddr>().ok()?, None),
        };
        let addr = addr.to_canonical();
        let bits = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = prefix.unwrap_or(bits);
        if prefix > bits {
            return None;
        }
        Some(HostRule::Net {
            addr: mask(addr, prefix),
            prefix,
        })
    }

    /// Whether `peer` matches; IPv4-mapped IPv6 addresses match as IPv4.
    pub fn matches(&self, peer: IpAddr) -> bool {
        let peer = peer.to_canonical();
        match *self {
            HostRule::Any => true,
            HostRule::Localhost => peer.is_loopback(),
            HostRule::Net { addr, prefix } => {
                addr.is_ipv4() == peer.is_ipv4() && mask(peer, prefix) == addr
            }
        }
    }
}

impl fmt::Display for HostRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostRule::Any => f.write_str("%"),
            HostRule::Localhost => f.write_str("localhost"),
            HostRule::Net { addr, prefix } => write!(f, "{addr}/{prefix}"),
        }
    }
}

/// `addr` with all but the first `prefix` bits cleared.
fn mask(addr: IpAddr, prefix: u8) -> IpAddr {
    match addr {
        IpAddr::V4(v4) => {
            let m = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
            IpAddr::V4((u32::from(v4) & m).into())
        }
        IpAddr::V6(v6) => {
            let m = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
            IpAddr::V6((u128::from(v6) & m).into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_rules_parse_and_match() {
        assert_eq!(HostRule::parse("%"), Some(HostRule::Any));
        assert_eq!(HostRule::parse("LocalHost"), Some(HostRule::Localhost));
        let r = HostRule::parse("192.168.1.77/24").unwrap();
        assert_eq!(r.to_string(), "192.168.1.0/24");
        assert!(r.matches("192.168.1.1".parse().unwrap()));
        assert!(!r.matches("192.168.2.1".parse().unwrap()));
        assert!(!r.matches("::1".parse().unwrap()));
        assert!(
            HostRule::parse("0.0.0.0/0")
                .unwrap()
                .matches("8.8.8.8".parse().unwrap())
        );
        assert_eq!(HostRule::parse("example.com"), None);
        assert_eq!(HostRule::parse("10.0.0.0/x"), None);
        assert_eq!(HostRule::parse("::/129"), None);
    }
}
