//! The engine URL, `mysql://user[:password]@host[:port][/database]`.
//!
//! User, password and database are percent-decoded (`%40` for an `@` in a password); the host
//! is a name, an IPv4 address or a bracketed IPv6 address; the port defaults to 3306. A query
//! string is refused rather than ignored: the engine has no URL options.

/// A `mysql://` engine URL that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid engine URL {url:?}: {reason} (expected mysql://user:password@host:port[/database])"
)]
pub struct UrlError {
    /// The URL, with any password replaced by `***`.
    pub url: String,
    /// What is wrong.
    pub reason: String,
}

/// A parsed engine URL.
#[derive(Clone, PartialEq, Eq)]
pub struct BackendUrl {
    /// The account.
    pub user: String,
    /// Its password, empty for none.
    pub password: String,
    /// The host name or address (an IPv6 address without its brackets).
    pub host: String,
    /// The TCP port.
    pub port: u16,
    /// The database sessions start in, if any.
    pub database: Option<String>,
}

impl std::fmt::Debug for BackendUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackendUrl")
            .field("user", &self.user)
            .field("password", &"***")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("database", &self.database)
            .finish()
    }
}

impl BackendUrl {
    /// `host:port`, bracketed for IPv6, as `to_socket_addrs` and messages want it.
    pub fn host_port(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// The port of a URL that names none.
const DEFAULT_PORT: u16 = 3306;

/// Parses `mysql://user[:password]@host[:port][/database]`.
pub fn parse_url(url: &str) -> Result<BackendUrl, UrlError> {
    let fail = |reason: &str| UrlError {
        url: redact_url(url),
        reason: reason.to_owned(),
    };
    let rest = url
        .strip_prefix("mysql://")
        .ok_or_else(|| fail("the scheme must be mysql://"))?;
    if rest.contains(['?', '#']) {
        return Err(fail("the engine takes no URL options (? or #)"));
    }
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let (userinfo, hostport) = authority
        .rsplit_once('@')
        .ok_or_else(|| fail("no user (user@host)"))?;
    let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
    let user = decode(user).map_err(|e| fail(&e))?;
    if user.is_empty() {
        return Err(fail("the user is empty"));
    }
    let password = decode(password).map_err(|e| fail(&e))?;
    let (host, port) = match hostport.strip_prefix('[') {
        Some(bracketed) => {
            let (host, after) = bracketed
                .split_once(']')
                .ok_or_else(|| fail("an IPv6 address lacks its closing ]"))?;
            // Brackets are for IPv6 addresses only, which is also what `host_port` brackets.
            if host.parse::<std::net::Ipv6Addr>().is_err() {
                return Err(fail("the bracketed host is not an IPv6 address"));
            }
            match after {
                "" => (host, None),
                _ => (
                    host,
                    Some(
                        after
                            .strip_prefix(':')
                            .ok_or_else(|| fail("junk after the IPv6 address"))?,
                    ),
                ),
            }
        }
        None => match hostport.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (hostport, None),
        },
    };
    if host.is_empty() {
        return Err(fail("the host is empty"));
    }
    let port = match port {
        None => DEFAULT_PORT,
        Some(port) => port
            .parse::<u16>()
            .ok()
            .filter(|&p| p > 0)
            .ok_or_else(|| fail(&format!("invalid port {port:?}")))?,
    };
    let database = match path {
        "" => None,
        path if path.contains('/') => return Err(fail("the database name contains /")),
        path => Some(decode(path).map_err(|e| fail(&e))?),
    };
    Ok(BackendUrl {
        user,
        password,
        host: host.to_owned(),
        port,
        database,
    })
}

/// Percent-decodes one URL component into UTF-8.
fn decode(component: &str) -> Result<String, String> {
    let bytes = component.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = component
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| "a bad percent escape (%XX)".to_owned())?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    // The component may be the password: not quoted in the error.
    String::from_utf8(out).map_err(|_| "a percent escape does not decode to UTF-8".to_owned())
}

/// The URL without its password, for logs and `SHOW VARIABLES`.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let Some((userinfo, host)) = rest.rsplit_once('@') else {
        return url.to_owned();
    };
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_with_defaults_and_escapes() {
        let url = parse_url("mysql://app:s3cret@127.0.0.1:3307/shop").unwrap();
        assert_eq!(url.user, "app");
        assert_eq!(url.password, "s3cret");
        assert_eq!(url.host_port(), "127.0.0.1:3307");
        assert_eq!(url.database.as_deref(), Some("shop"));
        let url = parse_url("mysql://root@db.example").unwrap();
        assert_eq!((url.password.as_str(), url.port), ("", 3306));
        assert_eq!(url.database, None);
        let url = parse_url("mysql://a%40b:p%3Aw%2Fd@[::1]:3310/my%20db").unwrap();
        assert_eq!((url.user.as_str(), url.password.as_str()), ("a@b", "p:w/d"));
        assert_eq!(url.host_port(), "[::1]:3310");
        assert_eq!(url.database.as_deref(), Some("my db"));
        // An @ in the password before the host's.
        let url = parse_url("mysql://u:p@ss@h/").unwrap();
        assert_eq!((url.password.as_str(), url.host.as_str()), ("p@ss", "h"));
        assert_eq!(url.database, None);
    }

    #[test]
    fn bad_urls_say_why_without_the_password() {
        for (url, why) in [
            ("postgres://x@y", "scheme"),
            ("mysql://u:pw@h:notaport", "port"),
            ("mysql://u:pw@h:0", "port"),
            ("mysql://h:3306", "user"),
            ("mysql://u:pw@/db", "host"),
            ("mysql://u:pw@h/db?ssl=1", "options"),
            ("mysql://u:p%zzw@h", "percent"),
            ("mysql://u:pw@[::1/db", "]"),
            ("mysql://u:pw@[[ys-]", "not an IPv6 address"),
            ("mysql://u:pw@[db.example]:3306", "not an IPv6 address"),
        ] {
            let err = parse_url(url).unwrap_err();
            assert!(err.reason.contains(why), "{url}: {err}");
            assert!(!err.to_string().contains("pw"), "{err}");
        }
    }

    #[test]
    fn redaction_hides_only_the_password() {
        assert_eq!(
            redact_url("mysql://app:s3cret@127.0.0.1:3307/shop"),
            "mysql://app:***@127.0.0.1:3307/shop"
        );
        assert_eq!(redact_url("mysql://app@h/db"), "mysql://app@h/db");
    }
}
