//! A client for several data nodes that routes by shard key.
//!
//! Each node has its own [`Pool`]. A shard key picks the node with
//! `fnv1a_64(key) % nodes` ([`shard_of`]):
//!
//! - **stable**: FNV-1a is a fixed function of the key's bytes (offset basis
//!   `0xcbf29ce484222325`, prime `0x100000001b3`), independent of the process, the platform and the
//!   Rust version, unlike `std`'s randomly seeded hasher, so every client of every language that
//!   implements it agrees on where a key lives;
//! - **simple**: adding or removing a node moves most keys (`% n`). Deployments that resize must
//!   migrate data or route with their own scheme and use [`Cluster::pool`] directly.
//!
//! Keys are bytes: pass integers in a fixed encoding everyone agrees on (for instance
//! `id.to_be_bytes()`).

use crate::blocking::Session;
use crate::error::ClientError;
use crate::pool::{Pool, PoolOptions};
use crate::types::{ExecResult, Param, ResultSet};

/// The node index for `key` among `nodes` nodes: `fnv1a_64(key) % nodes`.
///
/// ```
/// use xrpc_client::cluster::shard_of;
///
/// assert_eq!(shard_of(b"user:42", 1), 0);
/// // Stable across runs and machines.
/// assert_eq!(shard_of(b"", 7), (0xcbf2_9ce4_8422_2325u64 % 7) as usize);
/// ```
///
/// # Panics
///
/// If `nodes` is 0.
pub fn shard_of(key: &[u8], nodes: usize) -> usize {
    assert!(nodes > 0, "shard_of needs at least one node");
    (fnv1a_64(key) % nodes as u64) as usize
}

fn fnv1a_64(key: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in key {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// Several data nodes, one [`Pool`] each, picked by shard key.
///
/// ```no_run
/// use xrpc_client::ConnectOptions;
/// use xrpc_client::cluster::Cluster;
/// use xrpc_client::pool::PoolOptions;
///
/// let options = PoolOptions::new(ConnectOptions::new("app", "secret"));
/// let cluster = Cluster::new(["10.0.0.7:33660", "10.0.0.8:33660"], options)?;
/// let user_id: u64 = 42;
/// let mut session = cluster.session(&user_id.to_be_bytes())?;
/// session.execute("insert into orders (user_id) values (?)", &[user_id.into()])?;
/// # Ok::<(), xrpc_client::ClientError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Cluster {
    pools: Vec<Pool>,
}

impl Cluster {
    /// A cluster of these nodes (`host:port` each), in this order; the order defines the routing.
    pub fn new<I, A>(nodes: I, options: PoolOptions) -> Result<Self, ClientError>
    where
        I: IntoIterator<Item = A>,
        A: Into<String>,
    {
        let pools: Vec<Pool> = nodes
            .into_iter()
            .map(|addr| Pool::new(addr, options.clone()))
            .collect();
        if pools.is_empty() {
            return Err(ClientError::usage("a cluster needs at least one node"));
        }
        Ok(Self { pools })
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.pools.len()
    }

    /// Always false: a cluster has at least one node.
    pub fn is_empty(&self) -> bool {
        self.pools.is_empty()
    }

    /// The index of the node that owns `key`.
    pub fn node_for(&self, key: &[u8]) -> usize {
        shard_of(key, self.pools.len())
    }

    /// The pool of node `index`.
    pub fn pool(&self, index: usize) -> Option<&Pool> {
        self.pools.get(index)
    }

    /// The pool of the node that owns `key`.
    pub fn pool_for(&self, key: &[u8]) -> &Pool {
        &self.pools[self.node_for(key)]
    }

    /// A session on the node that owns `key`.
    pub fn session(&self, key: &[u8]) -> Result<Session, ClientError> {
        self.pool_for(key).session()
    }

    /// Runs one statement on an auto-commit sid of the node that owns `key`.
    pub fn query_once(&self, key: &[u8], sql: &str) -> Result<ResultSet, ClientError> {
        self.pool_for(key).query_once(sql)
    }

    /// Runs one statement with arguments on the node that owns `key`.
    pub fn execute_once(
        &self,
        key: &[u8],
        sql: &str,
        args: &[Param],
    ) -> Result<ExecResult, ClientError> {
        self.pool_for(key).execute_once(sql, args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_vectors() {
        // From the FNV reference test suite.
        assert_eq!(fnv1a_64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a_64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a_64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn keys_spread_over_nodes() {
        let mut counts = [0usize; 4];
        for id in 0u64..4000 {
            counts[shard_of(&id.to_be_bytes(), 4)] += 1;
        }
        assert!(
            counts.iter().all(|&n| (800..1200).contains(&n)),
            "{counts:?}"
        );
    }
}
