//! [`RedisBreakerStore`]: breaker state in Redis, so a fleet of agents backs
//! off together (feature `redis`).
//!
//! Each engine's state is one string key, `<namespace>:breaker:<engine>`
//! (namespace `ferret` by default), written with a TTL so an idle breaker is
//! forgotten. Compare-and-swap runs as one Lua script, so concurrent agents
//! never lose each other's updates.

use std::time::Duration;

use async_trait::async_trait;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::store::{BreakerStore, BreakerStoreError};

/// KEYS[1] = key; ARGV[1] = expected ('' = absent); ARGV[2] = new ('' =
/// delete); ARGV[3] = ttl in ms.
const CAS_SCRIPT: &str = r"
local cur = redis.call('GET', KEYS[1])
if cur == false then cur = '' end
if cur ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1
";

/// Breaker state shared through a Redis server.
#[derive(Clone)]
pub struct RedisBreakerStore {
    conn: ConnectionManager,
    namespace: String,
    script: redis::Script,
}

impl std::fmt::Debug for RedisBreakerStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBreakerStore")
            .field("namespace", &self.namespace)
            .finish_non_exhaustive()
    }
}

fn backend(e: redis::RedisError) -> BreakerStoreError {
    BreakerStoreError::Backend {
        store: "redis",
        message: e.to_string(),
    }
}

impl RedisBreakerStore {
    /// Connect to the Redis server at `url` (`redis://host:port/db`).
    ///
    /// Connecting gives up after about two seconds, and every command after
    /// one second: a slow Redis must not hold up searches (the breaker lets
    /// calls through when its store fails).
    pub async fn connect(url: &str) -> Result<Self, BreakerStoreError> {
        let client = redis::Client::open(url).map_err(|e| BreakerStoreError::Backend {
            store: "redis",
            message: format!("invalid Redis URL {url:?}: {e}"),
        })?;
        let config = ConnectionManagerConfig::new()
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_millis(400))
            .set_connection_timeout(Some(Duration::from_millis(500)))
            .set_response_timeout(Some(Duration::from_secs(1)));
        let conn = client
            .get_connection_manager_with_config(config)
            .await
            .map_err(|e| BreakerStoreError::Backend {
                store: "redis",
                message: format!("cannot connect to {url}: {e}"),
            })?;
        Ok(RedisBreakerStore::from_manager(conn))
    }

    /// Use an existing connection manager.
    pub fn from_manager(conn: ConnectionManager) -> Self {
        RedisBreakerStore {
            conn,
            namespace: "ferret".to_string(),
            script: redis::Script::new(CAS_SCRIPT),
        }
    }

    /// Put keys under `namespace` instead of `ferret` (separate fleets or
    /// tests on one server).
    pub fn with_namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = namespace.into();
        self
    }

    /// The Redis key holding `engine`'s state.
    pub fn key_for(&self, engine: &str) -> String {
        format!("{}:breaker:{engine}", self.namespace)
    }
}

#[async_trait]
impl BreakerStore for RedisBreakerStore {
    fn store_name(&self) -> &'static str {
        "redis"
    }

    async fn load(&self, key: &str) -> Result<Option<String>, BreakerStoreError> {
        let mut conn = self.conn.clone();
        redis::cmd("GET")
            .arg(self.key_for(key))
            .query_async::<Option<String>>(&mut conn)
            .await
            .map_err(backend)
    }

    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&str>,
        new: Option<&str>,
        ttl: Duration,
    ) -> Result<bool, BreakerStoreError> {
        let mut conn = self.conn.clone();
        let ttl_ms = ttl.as_millis().max(1) as u64;
        let swapped: i64 = self
            .script
            .key(self.key_for(key))
            .arg(expected.unwrap_or(""))
            .arg(new.unwrap_or(""))
            .arg(ttl_ms)
            .invoke_async(&mut conn)
            .await
            .map_err(backend)?;
        Ok(swapped == 1)
    }
}
