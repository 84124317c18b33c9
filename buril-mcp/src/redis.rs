//! Tasks in Redis, shared by every server that uses the same Redis: any replica answers
//! `tasks/get`, `tasks/update` and `tasks/cancel` for a task another runs, and cancellations and
//! answers reach the running replica at once (pub/sub), or at its next look at the store.

use std::fmt;
use std::time::Duration;

use futures_util::StreamExt;
use redis::AsyncCommands;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::broadcast;

use buril_core::tasks::{
    Change, StoreError, StoreFuture, TOMBSTONE_MS, TaskRecord, TaskStore, now_ms,
};

/// Compare-and-set of one task: writes the new record only if the stored one is still the one
/// the change was made from, so that no two replicas' changes overwrite each other.
const SWAP: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
";

/// Tasks in Redis: one key per task (`{prefix}:task:{id}`, its record as JSON, expiring an
/// hour after the task's TTL), a set of the handles (`{prefix}:tasks`), and a channel
/// (`{prefix}:announce`) on which a change the running replica must hear of (a cancellation,
/// an answer) is announced. Changes are compare-and-set (a Lua script), retried when another
/// replica changed the task in between. The connection reconnects by itself when Redis
/// restarts; what fails meanwhile is reported as [`StoreError::Unavailable`], and Redis's
/// out-of-memory refusal as [`StoreError::Full`].
///
/// Run Redis with persistence (`appendonly yes`) for tasks to survive its restarts; a replica
/// that runs a task writes the task again if it finds it gone.
pub struct RedisStore {
    connection: ConnectionManager,
    prefix: String,
    capacity: usize,
    announcements: broadcast::Sender<String>,
}

impl fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .field("capacity", &self.capacity)
            .finish()
    }
}

/// What one attempt of an operation ran into.
enum Failure {
    Redis(redis::RedisError),
    Store(StoreError),
}

impl From<redis::RedisError> for Failure {
    fn from(error: redis::RedisError) -> Self {
        Failure::Redis(error)
    }
}

impl From<StoreError> for Failure {
    fn from(error: StoreError) -> Self {
        Failure::Store(error)
    }
}

/// Runs `attempt` (with a handle of the connection), again when the connection had dropped
/// (Redis restarted: the first command after fails, and the connection reconnects), up to
/// three times.
async fn retrying<T, F, Fut>(
    connection: &ConnectionManager,
    mut attempt: F,
) -> Result<T, StoreError>
where
    F: FnMut(ConnectionManager) -> Fut,
    Fut: std::future::Future<Output = Result<T, Failure>>,
{
    let mut tries = 0;
    loop {
        tries += 1;
        match attempt(connection.clone()).await {
            Ok(value) => return Ok(value),
            Err(Failure::Store(error)) => return Err(error),
            Err(Failure::Redis(error))
                if tries < 3
                    && (error.is_io_error()
                        || error.is_connection_dropped()
                        || error.is_connection_refusal()) =>
            {
                tokio::time::sleep(Duration::from_millis(100 * tries)).await;
            }
            Err(Failure::Redis(error)) => return Err(unavailable(&error)),
        }
    }
}

fn unavailable(error: &redis::RedisError) -> StoreError {
    if error.code() == Some("OOM") {
        return StoreError::Full(format!("Redis is out of memory ({error})"));
    }
    StoreError::Unavailable(format!("Redis: {error}"))
}

impl RedisStore {
    /// Connects to the Redis at `url` (`redis://127.0.0.1:6379/0`), keeping keys under the
    /// prefix `buril`.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with_prefix(url, "buril").await
    }

    /// Connects, keeping keys under `prefix` (several deployments can share one Redis).
    pub async fn connect_with_prefix(url: &str, prefix: &str) -> Result<Self, StoreError> {
        let client = redis::Client::open(url).map_err(|error| {
            StoreError::Unavailable(format!("`{url}` is not a Redis URL: {error}"))
        })?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_response_timeout(Some(Duration::from_secs(5)))
            .set_max_delay(Duration::from_secs(1));
        let connection = ConnectionManager::new_with_config(client.clone(), config)
            .await
            .map_err(|error| unavailable(&error))?;
        let (announcements, _) = broadcast::channel(1024);
        let store = RedisStore {
            connection,
            prefix: prefix.to_owned(),
            capacity: 1_000_000,
            announcements: announcements.clone(),
        };
        tokio::spawn(listen(client, store.channel(), announcements.downgrade()));
        Ok(store)
    }

    /// At most `capacity` tasks (1,000,000 by default); a new one past it is refused.
    pub fn with_capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity;
        self
    }

    fn key(&self, id: &str) -> String {
        format!("{}:task:{id}", self.prefix)
    }

    fn set(&self) -> String {
        format!("{}:tasks", self.prefix)
    }

    fn channel(&self) -> String {
        format!("{}:announce", self.prefix)
    }
}

/// How long Redis keeps a record: an hour past its expiry; for a running task, an hour past
/// the expiry it would have if its runner died now (its lease, a skew allowance, its TTL).
fn keep_ms(record: &TaskRecord) -> u64 {
    let now = now_ms();
    let until = record.expires_ms().unwrap_or_else(|| {
        let lease = record.lease.as_ref().map_or(now, |lease| lease.until_ms);
        lease
            .max(now)
            .saturating_add(60_000)
            .saturating_add(record.ttl_ms)
    });
    until
        .saturating_add(TOMBSTONE_MS)
        .saturating_sub(now)
        .max(1)
}

fn parse(id: &str, text: &str) -> Result<TaskRecord, StoreError> {
    serde_json::from_str(text).map_err(|error| {
        StoreError::Unavailable(format!(
            "the record of `{id}` in Redis is unreadable: {error}"
        ))
    })
}

/// Forwards the announcements on `channel` to `announcements`, subscribing again whenever the
/// connection drops, until the store is gone.
async fn listen(
    client: redis::Client,
    channel: String,
    announcements: broadcast::WeakSender<String>,
) {
    let mut pause = Duration::from_millis(50);
    loop {
        if announcements.upgrade().is_none() {
            return;
        }
        match client.get_async_pubsub().await {
            Ok(mut pubsub) => {
                if pubsub.subscribe(&channel).await.is_ok() {
                    pause = Duration::from_millis(50);
                    let mut messages = pubsub.on_message();
                    while let Some(message) = messages.next().await {
                        let Some(announcements) = announcements.upgrade() else {
                            return;
                        };
                        if let Ok(id) = message.get_payload::<String>() {
                            let _ = announcements.send(id);
                        }
                    }
                }
            }
            Err(error) => {
                tracing::debug!(target: "buril::tasks", %error, "cannot subscribe to the task announcements; trying again");
            }
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(1));
    }
}

impl TaskStore for RedisStore {
    fn kind(&self) -> &'static str {
        "redis"
    }

    fn create<'a>(&'a self, record: &'a TaskRecord) -> StoreFuture<'a, ()> {
        Box::pin(retrying(
            &self.connection,
            move |mut connection| async move {
                let count: usize = connection.scard(self.set()).await?;
                if count >= self.capacity {
                    self.sweep(&mut connection).await?;
                    let count: usize = connection.scard(self.set()).await?;
                    if count >= self.capacity {
                        return Err(StoreError::Full(format!(
                        "{count} tasks are kept in Redis under `{}`, the most allowed; they are \
                         forgotten as their TTLs pass",
                        self.prefix
                    ))
                    .into());
                    }
                }
                let text = serde_json::to_string(record)
                    .map_err(|error| StoreError::Unavailable(error.to_string()))?;
                let created: Option<String> = redis::cmd("SET")
                    .arg(self.key(&record.id))
                    .arg(text)
                    .arg("NX")
                    .arg("PX")
                    .arg(keep_ms(record))
                    .query_async(&mut connection)
                    .await?;
                if created.is_none() {
                    return Err(StoreError::Exists(record.id.clone()).into());
                }
                let _: usize = connection.sadd(self.set(), &record.id).await?;
                Ok(())
            },
        ))
    }

    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(retrying(
            &self.connection,
            move |mut connection| async move {
                let text: Option<String> = connection.get(self.key(id)).await?;
                Ok(text.map(|text| parse(id, &text)).transpose()?)
            },
        ))
    }

    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: Change<'a>,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(retrying(
            &self.connection,
            move |mut connection| async move {
                let key = self.key(id);
                let swap = redis::Script::new(SWAP);
                for _ in 0..64 {
                    let text: Option<String> = connection.get(&key).await?;
                    let Some(text) = text else {
                        return Ok(None);
                    };
                    let mut record = parse(id, &text)?;
                    if !change(&mut record) {
                        return Ok(Some(record));
                    }
                    let next = serde_json::to_string(&record)
                        .map_err(|error| StoreError::Unavailable(error.to_string()))?;
                    let swapped: i64 = swap
                        .key(&key)
                        .arg(&text)
                        .arg(&next)
                        .arg(keep_ms(&record))
                        .invoke_async(&mut connection)
                        .await?;
                    if swapped == 1 {
                        return Ok(Some(record));
                    }
                }
                Err(StoreError::Unavailable(format!(
                    "the task `{id}` kept changing under this change; try again"
                ))
                .into())
            },
        ))
    }

    fn list(&self) -> StoreFuture<'_, Vec<TaskRecord>> {
        Box::pin(retrying(
            &self.connection,
            move |mut connection| async move { self.sweep(&mut connection).await },
        ))
    }

    fn announce<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(retrying(
            &self.connection,
            move |mut connection| async move {
                let _: usize = connection.publish(self.channel(), id).await?;
                Ok(())
            },
        ))
    }

    fn announcements(&self) -> Option<broadcast::Receiver<String>> {
        Some(self.announcements.subscribe())
    }
}

impl RedisStore {
    /// Every task kept, dropping from the set the handles whose keys expired.
    async fn sweep(&self, connection: &mut ConnectionManager) -> Result<Vec<TaskRecord>, Failure> {
        let ids: Vec<String> = connection.smembers(self.set()).await?;
        let mut records = Vec::with_capacity(ids.len());
        let mut gone = Vec::new();
        for batch in ids.chunks(512) {
            let keys: Vec<String> = batch.iter().map(|id| self.key(id)).collect();
            let texts: Vec<Option<String>> = redis::cmd("MGET")
                .arg(&keys)
                .query_async(connection)
                .await?;
            for (id, text) in batch.iter().zip(texts) {
                match text {
                    Some(text) => records.push(parse(id, &text)?),
                    None => gone.push(id.clone()),
                }
            }
        }
        if !gone.is_empty() {
            let _: usize = connection.srem(self.set(), &gone).await?;
        }
        Ok(records)
    }
}
