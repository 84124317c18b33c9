//! Import cycles: the strongly connected components of more than one file in the graph of
//! edges, each with the steps inside it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::edges::Edge;

/// Files that reach each other through their edges: a strongly connected component of more
/// than one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    /// The files, in path order.
    pub files: Vec<PathBuf>,
    /// Every pair of files of the cycle with an edge between them, by file and line.
    pub steps: Vec<Step>,
}

/// One file of a cycle naming another: every place that does it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The first place (by line) that makes the step.
    pub edge: Edge,
    /// The other lines of `edge.from` that make it, in order.
    pub also: Vec<usize>,
}

/// The cycles among `files` with `edges` between them, in the order of their first files.
pub(crate) fn cycles(files: &[PathBuf], edges: &[Edge]) -> Vec<Cycle> {
    let index: BTreeMap<&PathBuf, usize> = files.iter().enumerate().map(|(i, f)| (f, i)).collect();
    let mut next: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); files.len()];
    for edge in edges {
        if let (Some(&from), Some(&to)) = (index.get(&edge.from), index.get(&edge.to)) {
            next[from].insert(to);
        }
    }
    let mut found: Vec<Cycle> = components(&next)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let members: BTreeSet<&PathBuf> = component.iter().map(|&i| &files[i]).collect();
            let mut steps: BTreeMap<(&PathBuf, &PathBuf), Vec<&Edge>> = BTreeMap::new();
            for edge in edges {
                if members.contains(&edge.from) && members.contains(&edge.to) {
                    steps.entry((&edge.from, &edge.to)).or_default().push(edge);
                }
            }
            let mut steps: Vec<Step> = steps
                .into_values()
                .map(|places| {
                    let edge = places
                        .iter()
                        .min_by_key(|edge| edge.line)
                        .map(|&edge| edge.clone())
                        .expect("a step has a place");
                    let also: BTreeSet<usize> = places
                        .iter()
                        .map(|edge| edge.line)
                        .filter(|&line| line != edge.line)
                        .collect();
                    Step {
                        edge,
                        also: also.into_iter().collect(),
                    }
                })
                .collect();
            steps.sort_by(|a, b| a.edge.cmp(&b.edge));
            Cycle {
                files: members.into_iter().cloned().collect(),
                steps,
            }
        })
        .collect();
    found.sort_by(|a, b| a.files.cmp(&b.files));
    found
}

/// The strongly connected components of the graph with successors `next` (Tarjan's).
fn components(next: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct Search<'g> {
        next: &'g [BTreeSet<usize>],
        order: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        counter: usize,
        found: Vec<Vec<usize>>,
    }

    impl Search<'_> {
        fn visit(&mut self, node: usize) {
            self.order[node] = Some(self.counter);
            self.low[node] = self.counter;
            self.counter += 1;
            self.stack.push(node);
            self.on_stack[node] = true;
            for &to in self.next[node].iter() {
                match self.order[to] {
                    None => {
                        self.visit(to);
                        self.low[node] = self.low[node].min(self.low[to]);
                    }
                    Some(seen) if self.on_stack[to] => self.low[node] = self.low[node].min(seen),
                    Some(_) => {}
                }
            }
            if Some(self.low[node]) == self.order[node] {
                let mut component = Vec::new();
                while let Some(member) = self.stack.pop() {
                    self.on_stack[member] = false;
                    component.push(member);
                    if member == node {
                        break;
                    }
                }
                self.found.push(component);
            }
        }
    }

    let nodes = next.len();
    let mut search = Search {
        next,
        order: vec![None; nodes],
        low: vec![0; nodes],
        stack: Vec::new(),
        on_stack: vec![false; nodes],
        counter: 0,
        found: Vec::new(),
    };
    for node in 0..nodes {
        if search.order[node].is_none() {
            search.visit(node);
        }
    }
    search.found
}
