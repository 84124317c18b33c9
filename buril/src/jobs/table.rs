//! The jobs a [`Jobs`](super::Jobs) keeps, in start order, and how finished ones are forgotten.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use super::cell::JobCell;
use super::id::JobId;

#[derive(Default)]
pub(super) struct Table {
    cells: HashMap<JobId, Arc<JobCell>>,
    /// Handles in start order, for listing and pruning.
    order: VecDeque<JobId>,
}

impl Table {
    /// Adds a running job labelled `label` with a fresh handle starting with `prefix`, then
    /// forgets the oldest finished jobs beyond `keep_finished`.
    pub(super) fn insert(
        &mut self,
        prefix: &str,
        label: String,
        keep_finished: usize,
    ) -> Arc<JobCell> {
        let id = loop {
            let id = JobId::next(prefix);
            if !self.cells.contains_key(&id) {
                break id;
            }
        };
        let cell = Arc::new(JobCell::new(id.clone(), label));
        self.cells.insert(id.clone(), Arc::clone(&cell));
        self.order.push_back(id);
        self.prune(keep_finished);
        cell
    }

    /// Forgets the oldest finished jobs beyond `keep_finished`.
    pub(super) fn prune(&mut self, keep_finished: usize) {
        let finished = self
            .cells
            .values()
            .filter(|cell| cell.is_finished())
            .count();
        let mut excess = finished.saturating_sub(keep_finished);
        if excess == 0 {
            return;
        }
        let Table { cells, order } = self;
        order.retain(|id| {
            if excess > 0 && cells.get(id).is_some_and(|cell| cell.is_finished()) {
                cells.remove(id);
                excess -= 1;
                false
            } else {
                true
            }
        });
    }

    /// The job with handle `id`.
    pub(super) fn get(&self, id: &str) -> Option<Arc<JobCell>> {
        self.cells.get(id).cloned()
    }

    /// How many jobs are kept.
    pub(super) fn len(&self) -> usize {
        self.cells.len()
    }

    /// Every job kept, in no particular order.
    pub(super) fn cells(&self) -> impl Iterator<Item = &Arc<JobCell>> {
        self.cells.values()
    }

    /// Every job kept, in start order.
    pub(super) fn in_start_order(&self) -> impl Iterator<Item = &Arc<JobCell>> {
        self.order.iter().filter_map(|id| self.cells.get(id))
    }

    /// Forgets a finished job and returns it; `None` when the handle is unknown or the job is
    /// still running.
    pub(super) fn remove_finished(&mut self, id: &str) -> Option<Arc<JobCell>> {
        if !self.cells.get(id)?.is_finished() {
            return None;
        }
        let cell = self.cells.remove(id)?;
        self.order.retain(|kept| kept.as_str() != id);
        Some(cell)
    }
}
