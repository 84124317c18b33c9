//! Who hears that the tool list changed: sessions that began with `initialize` (through their
//! peer) and 2026-07-28 clients (through their `subscriptions/listen` stream).

use std::sync::{Mutex, MutexGuard};

use rmcp::service::{Peer, RoleServer, SubscriptionSink};

#[derive(Default)]
pub(crate) struct Listeners {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    next: u64,
    peers: Vec<(u64, Peer<RoleServer>)>,
    sinks: Vec<(u64, SubscriptionSink)>,
}

impl Listeners {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds the peer of a session that finished `initialize`; [`remove_peer`](Self::remove_peer)
    /// with the answer when the session ends.
    pub fn add_peer(&self, peer: Peer<RoleServer>) -> u64 {
        let mut inner = self.inner();
        inner.peers.retain(|(_, p)| !p.is_transport_closed());
        let id = inner.next;
        inner.next += 1;
        inner.peers.push((id, peer));
        id
    }

    pub fn remove_peer(&self, id: u64) {
        self.inner().peers.retain(|(i, _)| *i != id);
    }

    /// How many peers are told when the tools change.
    #[cfg(test)]
    pub fn peer_count(&self) -> usize {
        self.inner().peers.len()
    }

    /// Adds a subscription stream; [`remove_sink`](Self::remove_sink) with the answer when it
    /// ends.
    pub fn add_sink(&self, sink: SubscriptionSink) -> u64 {
        let mut inner = self.inner();
        let id = inner.next;
        inner.next += 1;
        inner.sinks.push((id, sink));
        id
    }

    pub fn remove_sink(&self, id: u64) {
        self.inner().sinks.retain(|(i, _)| *i != id);
    }

    /// Sends `notifications/tools/list_changed` to everyone, forgetting those who are gone.
    pub async fn tools_changed(&self) {
        let (peers, sinks) = {
            let inner = self.inner();
            (inner.peers.clone(), inner.sinks.clone())
        };
        let mut gone = Vec::new();
        for (id, peer) in peers {
            if peer.is_transport_closed() || peer.notify_tool_list_changed().await.is_err() {
                gone.push(id);
            }
        }
        for (id, sink) in sinks {
            if sink.notify_tool_list_changed().await.is_err() {
                gone.push(id);
            }
        }
        if !gone.is_empty() {
            let mut inner = self.inner();
            inner.peers.retain(|(id, _)| !gone.contains(id));
            inner.sinks.retain(|(id, _)| !gone.contains(id));
        }
    }
}
