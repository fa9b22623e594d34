//! The binary log's config string: what is logged, and how much of each payload.
//!
//! # Grammar
//!
//! ```text
//! config   = "" | item *("," item)          ; "" switches the log off
//! item     = "*" [limit]                    ; every message type
//!          | TYPE [limit]                   ; one message type, by name (EXEC_SQL, ERROR, …)
//!          | "-" TYPE                       ; never this type
//!          | "user=" NAME                   ; only connections authenticated as NAME
//!          | "peer=" ADDR                   ; only connections from ADDR (an IP, or IP:port)
//! limit    = "{h}"                          ; headers only: no payload bytes
//!          | "{m:" N "}"                    ; at most N (≥ 1) payload bytes
//! ```
//!
//! Spaces around items are ignored and type names are matched case-insensitively. A name selects
//! both directions when the client and the server both have a type of that name
//! (`SESS_AUTHENTICATE_CONTINUE`). When no `*` and no type is named, every type is selected, so
//! `-NOTICE` alone means "everything but NOTICE" and `user=app` alone "everything of `app`". A
//! named type's limit overrides the one of `*`. Several `user=` (or `peer=`) items are
//! alternatives; `user=` and `peer=` together must both match.
//!
//! Connection open and close and authentication results are logged for every connection the
//! `user=`/`peer=` filters select, whatever types are selected. Under a `user=` filter nothing
//! is logged for a connection before it has authenticated, except its authentication result.
//!
//! An invalid string is refused as a whole with one [`ConfigError`] naming the offending item
//! and its byte offset.

use std::fmt;
use std::net::{IpAddr, SocketAddr};

use xrpc_proto::messages::{ClientType, ServerType};

/// How much of a selected frame's payload an entry keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadLimit {
    /// All of it.
    Full,
    /// At most this many bytes.
    Bytes(u32),
    /// None: the entry has the header fields and the payload's length only.
    HeaderOnly,
}

impl PayloadLimit {
    /// How many of `len` payload bytes to keep.
    pub fn keep(self, len: usize) -> usize {
        match self {
            PayloadLimit::Full => len,
            PayloadLimit::Bytes(n) => len.min(n as usize),
            PayloadLimit::HeaderOnly => 0,
        }
    }
}

/// Which way a frame went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From the client to the node.
    Received,
    /// From the node to the client.
    Sent,
}

/// A peer filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerFilter {
    /// Any port of this address.
    Ip(IpAddr),
    /// This address and port.
    Socket(SocketAddr),
}

impl PeerFilter {
    fn matches(self, peer: Option<SocketAddr>) -> bool {
        match (self, peer) {
            (PeerFilter::Ip(ip), Some(peer)) => peer.ip() == ip,
            (PeerFilter::Socket(addr), Some(peer)) => peer == addr,
            (_, None) => false,
        }
    }
}

/// A parsed config string; see the [module docs](self).
#[derive(Clone, PartialEq, Eq)]
pub struct BinlogConfig {
    text: String,
    received: Box<[Option<PayloadLimit>; 256]>,
    sent: Box<[Option<PayloadLimit>; 256]>,
    users: Vec<String>,
    peers: Vec<PeerFilter>,
}

impl fmt::Debug for BinlogConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("BinlogConfig").field(&self.text).finish()
    }
}

/// Why a config string was refused: the item, where it starts, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid binlog config: {}", self.detail())]
pub struct ConfigError {
    /// The item as written (trimmed).
    pub item: String,
    /// Its 1-based position in the list.
    pub number: usize,
    /// The byte offset of the item in the config string.
    pub offset: usize,
    /// What is wrong.
    pub reason: String,
}

impl ConfigError {
    /// The item, its position and the reason, without the leading "invalid binlog config".
    pub fn detail(&self) -> String {
        format!(
            "item {} `{}` (at byte {}): {}",
            self.number, self.item, self.offset, self.reason
        )
    }
}

/// A type selected by name: its ids in each direction.
#[derive(Debug, Clone, Copy)]
struct NamedType {
    received: Option<u8>,
    sent: Option<u8>,
}

fn lookup_type(name: &str) -> Option<NamedType> {
    let received = ClientType::ALL
        .iter()
        .find(|t| t.name().eq_ignore_ascii_case(name))
        .map(|t| t.id());
    let sent = ServerType::ALL
        .iter()
        .find(|t| t.name().eq_ignore_ascii_case(name))
        .map(|t| t.id());
    (received.is_some() || sent.is_some()).then_some(NamedType { received, sent })
}

fn parse_limit(text: &str) -> Result<PayloadLimit, String> {
    let inner = text
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or_else(|| format!("`{text}` is not a limit; write {{h}} or {{m:N}}"))?;
    if inner == "h" {
        return Ok(PayloadLimit::HeaderOnly);
    }
    let Some(n) = inner.strip_prefix("m:") else {
        return Err(format!(
            "`{{{inner}}}` is not a limit; write {{h}} or {{m:N}}"
        ));
    };
    match n.trim().parse::<u32>() {
        Ok(0) => Err("{m:0} keeps nothing; write {h} for headers only".to_owned()),
        Ok(n) => Ok(PayloadLimit::Bytes(n)),
        Err(_) => Err(format!(
            "`{n}` is not a byte count between 1 and {}",
            u32::MAX
        )),
    }
}

impl BinlogConfig {
    /// Parses `text`; `Ok(None)` for the empty string (or only spaces), which switches the log off.
    pub fn parse(text: &str) -> Result<Option<Self>, ConfigError> {
        if text.trim().is_empty() {
            return Ok(None);
        }
        let mut all: Option<PayloadLimit> = None;
        let mut named: Vec<(String, NamedType, PayloadLimit)> = Vec::new();
        let mut excluded: Vec<(String, NamedType)> = Vec::new();
        let mut users = Vec::new();
        let mut peers = Vec::new();
        let mut offset = 0;
        for (index, raw) in text.split(',').enumerate() {
            let item = raw.trim();
            let item_offset = offset + (raw.len() - raw.trim_start().len());
            offset += raw.len() + 1;
            let fail = |reason: String| ConfigError {
                item: item.to_owned(),
                number: index + 1,
                offset: item_offset,
                reason,
            };
            if item.is_empty() {
                return Err(fail(
                    "empty item (two commas in a row, or a trailing comma)".into(),
                ));
            }
            if let Some(name) = item.strip_prefix("user=") {
                let name = name.trim();
                if name.is_empty() {
                    return Err(fail("user= needs a user name".into()));
                }
                users.push(name.to_owned());
                continue;
            }
            if let Some(addr) = item.strip_prefix("peer=") {
                let addr = addr.trim();
                let filter = if let Ok(socket) = addr.parse::<SocketAddr>() {
                    PeerFilter::Socket(socket)
                } else if let Ok(ip) = addr.parse::<IpAddr>() {
                    PeerFilter::Ip(ip)
                } else {
                    return Err(fail(format!("`{addr}` is not an IP address or IP:port")));
                };
                peers.push(filter);
                continue;
            }
            if let Some(name) = item.strip_prefix('-') {
                let name = name.trim();
                if name.contains('{') {
                    return Err(fail("an excluded type takes no limit".into()));
                }
                if name == "*" {
                    return Err(fail(
                        "`-*` excludes everything; use the empty string to switch the log off"
                            .into(),
                    ));
                }
                let ty = lookup_type(name)
                    .ok_or_else(|| fail(format!("`{name}` is not a message type name (such as EXEC_SQL, RESULTSET_ROW or ERROR)")))?;
                if excluded.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
                    return Err(fail(format!("`{name}` is excluded twice")));
                }
                excluded.push((name.to_owned(), ty));
                continue;
            }
            let (name, limit) = match item.find('{') {
                Some(brace) => (
                    item[..brace].trim(),
                    parse_limit(&item[brace..]).map_err(fail)?,
                ),
                None => (item, PayloadLimit::Full),
            };
            if name == "*" {
                if all.is_some() {
                    return Err(fail("`*` appears twice".into()));
                }
                all = Some(limit);
                continue;
            }
            if name.is_empty() {
                return Err(fail("a limit needs a type name or `*` before it".into()));
            }
            let ty = lookup_type(name).ok_or_else(|| {
                fail(format!(
                    "`{name}` is not a message type name (such as EXEC_SQL, RESULTSET_ROW or ERROR)"
                ))
            })?;
            if named.iter().any(|(n, _, _)| n.eq_ignore_ascii_case(name)) {
                return Err(fail(format!("`{name}` is named twice")));
            }
            if excluded.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
                return Err(fail(format!("`{name}` is both selected and excluded")));
            }
            named.push((name.to_owned(), ty, limit));
        }
        // An exclusion written before the selection of the same type.
        for (name, _, _) in &named {
            if let Some(index) = excluded
                .iter()
                .position(|(n, _)| n.eq_ignore_ascii_case(name))
            {
                let item = format!("-{}", excluded[index].0);
                let offset = text.find(&item).unwrap_or(0);
                let number = text[..offset].matches(',').count() + 1;
                return Err(ConfigError {
                    item,
                    number,
                    offset,
                    reason: format!("`{name}` is both selected and excluded"),
                });
            }
        }
        let default = match all {
            Some(limit) => Some(limit),
            None if named.is_empty() => Some(PayloadLimit::Full),
            None => None,
        };
        let mut received = Box::new([default; 256]);
        let mut sent = Box::new([default; 256]);
        for (_, ty, limit) in &named {
            if let Some(id) = ty.received {
                received[id as usize] = Some(*limit);
            }
            if let Some(id) = ty.sent {
                sent[id as usize] = Some(*limit);
            }
        }
        for (_, ty) in &excluded {
            if let Some(id) = ty.received {
                received[id as usize] = None;
            }
            if let Some(id) = ty.sent {
                sent[id as usize] = None;
            }
        }
        Ok(Some(Self {
            text: text.trim().to_owned(),
            received,
            sent,
            users,
            peers,
        }))
    }

    /// The string this was parsed from, trimmed.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// How much to keep of a frame of `type_id` going `direction`; `None` if it is not logged.
    pub fn limit(&self, direction: Direction, type_id: u8) -> Option<PayloadLimit> {
        match direction {
            Direction::Received => self.received[type_id as usize],
            Direction::Sent => self.sent[type_id as usize],
        }
    }

    /// Whether the `peer=` filters select a connection from `peer`.
    pub fn selects_peer(&self, peer: Option<SocketAddr>) -> bool {
        self.peers.is_empty() || self.peers.iter().any(|f| f.matches(peer))
    }

    /// Whether the `user=` filters select a connection authenticated as `user` (`None`: not yet).
    pub fn selects_user(&self, user: Option<&str>) -> bool {
        self.users.is_empty() || user.is_some_and(|u| self.users.iter().any(|name| name == u))
    }

    /// Whether a `user=` filter is present (the log then tracks who each connection is).
    pub fn filters_users(&self) -> bool {
        !self.users.is_empty()
    }
}

/// Checks a config string for the `xrpc_binlog` variable: `Err` carries [`ConfigError::detail`].
pub fn validate(text: &str) -> Result<(), String> {
    BinlogConfig::parse(text)
        .map(|_| ())
        .map_err(|e| e.detail())
}

#[cfg(test)]
mod tests {
    use super::*;
    use Direction::{Received, Sent};
    use PayloadLimit::{Bytes, Full, HeaderOnly};

    const EXEC_SQL: u8 = ClientType::ExecSql.id();
    const PLAN: u8 = ClientType::ExecPlanRead.id();
    const SESS_NEW: u8 = ClientType::NewSession.id();
    const ERROR: u8 = ServerType::Error.id();
    const NOTICE: u8 = ServerType::Notice.id();
    const ROW: u8 = ServerType::Row.id();
    const AUTH_CONTINUE_C: u8 = ClientType::AuthenticateContinue.id();
    const AUTH_CONTINUE_S: u8 = ServerType::AuthenticateContinue.id();

    type Expect = &'static [(Direction, u8, Option<PayloadLimit>)];

    #[test]
    fn config_strings_select_types_and_limits() {
        let table: &[(&str, Expect)] = &[
            (
                "*",
                &[
                    (Received, EXEC_SQL, Some(Full)),
                    (Sent, ROW, Some(Full)),
                    (Sent, ERROR, Some(Full)),
                ],
            ),
            (
                "*{h}",
                &[
                    (Received, EXEC_SQL, Some(HeaderOnly)),
                    (Sent, ROW, Some(HeaderOnly)),
                ],
            ),
            (
                "*{m:256}",
                &[
                    (Received, PLAN, Some(Bytes(256))),
                    (Sent, NOTICE, Some(Bytes(256))),
                ],
            ),
            (
                "EXEC_SQL,ERROR",
                &[
                    (Received, EXEC_SQL, Some(Full)),
                    (Sent, ERROR, Some(Full)),
                    (Sent, ROW, None),
                    (Received, SESS_NEW, None),
                ],
            ),
            (
                "exec_sql{m:16}, RESULTSET_ROW{h}",
                &[
                    (Received, EXEC_SQL, Some(Bytes(16))),
                    (Sent, ROW, Some(HeaderOnly)),
                    (Sent, ERROR, None),
                ],
            ),
            (
                "*{h},EXEC_SQL",
                &[
                    (Received, EXEC_SQL, Some(Full)),
                    (Sent, ROW, Some(HeaderOnly)),
                ],
            ),
            (
                "*,-RESULTSET_ROW,-NOTICE",
                &[
                    (Sent, ROW, None),
                    (Sent, NOTICE, None),
                    (Sent, ERROR, Some(Full)),
                    (Received, EXEC_SQL, Some(Full)),
                ],
            ),
            ("-NOTICE", &[(Sent, NOTICE, None), (Sent, ROW, Some(Full))]),
            (
                "user=app",
                &[(Received, EXEC_SQL, Some(Full)), (Sent, ERROR, Some(Full))],
            ),
            (
                "SESS_AUTHENTICATE_CONTINUE{h}",
                &[
                    (Received, AUTH_CONTINUE_C, Some(HeaderOnly)),
                    (Sent, AUTH_CONTINUE_S, Some(HeaderOnly)),
                    (Received, EXEC_SQL, None),
                ],
            ),
        ];
        for (text, expect) in table {
            let config = BinlogConfig::parse(text)
                .unwrap_or_else(|e| panic!("{text}: {e}"))
                .expect("not off");
            for (direction, id, limit) in *expect {
                assert_eq!(
                    config.limit(*direction, *id),
                    *limit,
                    "{text}: {direction:?} {id}"
                );
            }
        }
    }

    #[test]
    fn empty_strings_switch_the_log_off() {
        assert_eq!(BinlogConfig::parse(""), Ok(None));
        assert_eq!(BinlogConfig::parse("  "), Ok(None));
    }

    #[test]
    fn user_and_peer_filters() {
        let config = BinlogConfig::parse("*,user=app,user=batch,peer=10.0.0.1,peer=127.0.0.1:4000")
            .unwrap()
            .unwrap();
        assert!(config.selects_user(Some("app")));
        assert!(config.selects_user(Some("batch")));
        assert!(!config.selects_user(Some("root")));
        assert!(!config.selects_user(None), "unknown before authentication");
        assert!(config.selects_peer(Some("10.0.0.1:9".parse().unwrap())));
        assert!(config.selects_peer(Some("127.0.0.1:4000".parse().unwrap())));
        assert!(!config.selects_peer(Some("127.0.0.1:4001".parse().unwrap())));
        assert!(!config.selects_peer(None));
        let open = BinlogConfig::parse("*").unwrap().unwrap();
        assert!(open.selects_user(None) && open.selects_peer(None));
    }

    #[test]
    fn invalid_strings_name_the_offending_item() {
        let table: &[(&str, &str)] = &[
            (
                "EXEC_SQLL",
                "invalid binlog config: item 1 `EXEC_SQLL` (at byte 0): `EXEC_SQLL` is not a message type name (such as EXEC_SQL, RESULTSET_ROW or ERROR)",
            ),
            (
                "*, ,ERROR",
                "invalid binlog config: item 2 `` (at byte 3): empty item (two commas in a row, or a trailing comma)",
            ),
            (
                "*,",
                "invalid binlog config: item 2 `` (at byte 2): empty item (two commas in a row, or a trailing comma)",
            ),
            (
                "*{m:0}",
                "invalid binlog config: item 1 `*{m:0}` (at byte 0): {m:0} keeps nothing; write {h} for headers only",
            ),
            (
                "*{m:x}",
                "invalid binlog config: item 1 `*{m:x}` (at byte 0): `x` is not a byte count between 1 and 4294967295",
            ),
            (
                "ERROR{x}",
                "invalid binlog config: item 1 `ERROR{x}` (at byte 0): `{x}` is not a limit; write {h} or {m:N}",
            ),
            (
                "ERROR{h",
                "invalid binlog config: item 1 `ERROR{h` (at byte 0): `{h` is not a limit; write {h} or {m:N}",
            ),
            (
                "*,*{h}",
                "invalid binlog config: item 2 `*{h}` (at byte 2): `*` appears twice",
            ),
            (
                "ERROR,error",
                "invalid binlog config: item 2 `error` (at byte 6): `error` is named twice",
            ),
            (
                "-ERROR{h}",
                "invalid binlog config: item 1 `-ERROR{h}` (at byte 0): an excluded type takes no limit",
            ),
            (
                "-*",
                "invalid binlog config: item 1 `-*` (at byte 0): `-*` excludes everything; use the empty string to switch the log off",
            ),
            (
                "-ERROR,-ERROR",
                "invalid binlog config: item 2 `-ERROR` (at byte 7): `ERROR` is excluded twice",
            ),
            (
                "-ERROR,ERROR",
                "invalid binlog config: item 2 `ERROR` (at byte 7): `ERROR` is both selected and excluded",
            ),
            (
                "ERROR,-ERROR",
                "invalid binlog config: item 2 `-ERROR` (at byte 6): `ERROR` is both selected and excluded",
            ),
            (
                "user=",
                "invalid binlog config: item 1 `user=` (at byte 0): user= needs a user name",
            ),
            (
                "*,peer=localhost",
                "invalid binlog config: item 2 `peer=localhost` (at byte 2): `localhost` is not an IP address or IP:port",
            ),
            (
                "{h}",
                "invalid binlog config: item 1 `{h}` (at byte 0): a limit needs a type name or `*` before it",
            ),
        ];
        for (text, message) in table {
            let err = BinlogConfig::parse(text).expect_err(text);
            assert_eq!(err.to_string(), *message, "{text}");
            let detail = message.strip_prefix("invalid binlog config: ").unwrap();
            assert_eq!(validate(text), Err(detail.to_owned()));
        }
    }
}
