//! Node-aware synchronization for groups whose members are on more than one node: shared memory
//! inside each node, one leader per node on the network.
//!
//! [`layout`] elects the leaders from the World's node table (the same answer on every member:
//! each node's first member in member order, or the root of a rooted collective for its own
//! node). A member that is not a leader talks only to its leader, through shared memory: it
//! arrives (its own `arrive` word) and waits to be released (its `release` word, which its leader
//! stores). The leaders alone cross the network: the barrier ([`barrier`]) runs a dissemination
//! barrier among them, `ceil(log2 L)` signals each for `L` nodes, the trees of `collectives::tree`
//! a binomial tree. So a barrier costs each PE at most `ceil(log2 L)` messages instead of
//! `ceil(log2 N)` over all `N` members, and a PE that is not a leader none.
//!
//! Words ([`Sig`]): on a team a signal stores the call's epoch (the team's barrier numbering) into
//! one word of the receiver, which only grows; every word has, for a given epoch, one writer, and a
//! writer stores epoch `e + 1` only after the receiver has consumed `e` (each handshake below
//! completes before either side can start the next call), so nothing is reset. The dissemination
//! rounds use the team slot's `barrier` words; the arrival, release and tree words ([`TreeSync`])
//! lie in the part of the control block after [`Control`], one set per team slot. On an active set
//! a signal is one more count in the receiver's counter for the sender, consumed in order, as in
//! `collectives::barrier`: every member of a call runs the same layout, so each pair agrees on how
//! many signals each call sends. The active-set signals ([`signal`], [`wait_signal`]) live here,
//! below the barriers of `collectives::barrier`, which re-exports them.

use super::posted;
use super::{Group, Sync};
use crate::runtime::departure;
use crate::runtime::handle;
use crate::runtime::team::Members;
use crate::runtime::world::{Seg, World};
use crate::transport::shm::control::{self, Control};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

pub use crate::transport::shm::control::{TREE_ROUNDS, TreeSync};

/// The node-aware words of team slot `slot` in the control block `c`.
fn words(c: &Control, slot: usize) -> &TreeSync {
    control::tree_words(c, slot)
}

/// The leaders of a group whose members are on more than one node.
#[derive(Debug, PartialEq, Eq)]
pub struct Layout {
    /// Each node's leader (a member index), in the order the nodes first appear among the members.
    pub leaders: Vec<usize>,
    /// This member's node, as an index into `leaders`.
    pub node: usize,
    /// The members of this node but its leader (member indices, in member order).
    pub locals: Vec<usize>,
    /// Each member's node, as an index into `leaders`.
    pub node_of: Vec<usize>,
    /// Each node's members are consecutive in member order, as a launcher that places ranks in
    /// blocks makes them: then the members before a node's run are exactly the runs of the nodes
    /// before it, which a scan and a collect need (with ranks placed round robin they take the
    /// flat algorithms).
    pub in_runs: bool,
}

impl Layout {
    /// This member's leader (a member index).
    pub fn leader(&self) -> usize {
        self.leaders[self.node]
    }
}

/// The layout of the members `m` whose world PEs are on `nodes`, if they are on more than one
/// node; `root` (a member index) leads its node.
pub fn layout_of(nodes: &[usize], m: &Members, root: Option<usize>) -> Option<Layout> {
    let first = nodes[m.world(0)];
    if (1..m.size).all(|i| nodes[m.world(i)] == first) {
        return None;
    }
    let mine = nodes[m.world(m.me)];
    let mut index = HashMap::new();
    let mut leaders = Vec::new();
    let mut locals = Vec::new();
    let mut node_of = Vec::with_capacity(m.size);
    for i in 0..m.size {
        let node = nodes[m.world(i)];
        let k = *index.entry(node).or_insert_with(|| {
            leaders.push(i);
            leaders.len() - 1
        });
        node_of.push(k);
        if root.is_some_and(|r| r == i) {
            leaders[k] = i;
        }
        if node == mine {
            locals.push(i);
        }
    }
    let node = index[&mine];
    locals.retain(|&i| i != leaders[node]);
    let changes = (1..m.size)
        .filter(|&i| nodes[m.world(i)] != nodes[m.world(i - 1)])
        .count();
    Some(Layout {
        in_runs: changes + 1 == leaders.len(),
        leaders,
        node,
        locals,
        node_of,
    })
}

/// [`layout_of`] for the World's nodes; `None` at once in a job on one node, or when
/// `SHMEM_NODE_AWARE=0` asks for the flat algorithms everywhere, and `None` for a group whose
/// every member's heap is mapped here ([`posted::maps_all`]): where the network maps its peers'
/// memory itself (UCX's shared-memory transports, on the route where each PE is its own node),
/// the group runs the one-node algorithms through that memory, as on a node. Mappings are the
/// same both ways (a host's PEs map each other, never a PE on another host), so every member
/// decides alike. Kept for the thread's next calls on the same group ([`CACHED_LAYOUTS`]).
#[inline]
pub fn layout(w: &World, m: &Members, root: Option<usize>) -> Option<Rc<Layout>> {
    if w.cpu_atomics || m.size < 2 || !w.config.node_aware {
        return None;
    }
    cached_layout(&w.nodes, m, root, || posted::maps_all(w, m, Seg::Heap))
}

/// How many groups' layouts a thread keeps. Walking every member costs a hash map and three
/// vectors per call, O(members): at 2 PEs over UCX a fifth of a barrier's time, and more with every
/// PE a job adds. Programs call their collectives on a few groups over and over (the world, a
/// team or two, a broadcast root or two).
const CACHED_LAYOUTS: usize = 8;

/// A group's layout as [`layout`] computed it.
struct Cached {
    /// The node table it was computed from (the World's, which lives as long as the process).
    nodes: (*const usize, usize),
    members: Members,
    root: Option<usize>,
    layout: Option<Rc<Layout>>,
}

thread_local! {
    /// The layouts of this thread's last calls, the latest last.
    static LAYOUTS: RefCell<Vec<Cached>> = const { RefCell::new(Vec::new()) };
}

/// [`layout_of`], or `None` if `one_memory()`, from this thread's cache when it computed the same
/// one lately.
fn cached_layout(
    nodes: &[usize],
    m: &Members,
    root: Option<usize>,
    one_memory: impl FnOnce() -> bool,
) -> Option<Rc<Layout>> {
    let table = (nodes.as_ptr(), nodes.len());
    LAYOUTS.with_borrow_mut(|cache| {
        let hit = |c: &Cached| c.nodes == table && c.members == *m && c.root == root;
        if let Some(c) = cache.iter().rev().find(|c| hit(c)) {
            return c.layout.clone();
        }
        let layout = if one_memory() {
            None
        } else {
            layout_of(nodes, m, root).map(Rc::new)
        };
        if cache.len() == CACHED_LAYOUTS {
            cache.remove(0);
        }
        cache.push(Cached {
            nodes: table,
            members: *m,
            root,
            layout: layout.clone(),
        });
        layout
    })
}

/// Sends world PE `to` one active-set signal from this PE (one more count in its counter for us).
pub fn signal(w: &World, to: usize) {
    w.control_add("barrier", to, |c| &c.aset[w.me], 1);
}

/// Waits for, and consumes, the next active-set signal from world PE `from`.
pub fn wait_signal(w: &World, from: usize) {
    consume(
        w,
        from,
        &w.aset_seen[from],
        &w.control(w.me).aset[from],
        false,
    );
}

/// Sends world PE `to` one active-set barrier round from this PE: raises its count of our rounds
/// (what precedes a round is complete or none of the receiver's business, as for a team's round).
pub fn signal_round(w: &World, to: usize) {
    let n = w.aset_rounds_sent[to].fetch_add(1, Ordering::Relaxed) + 1;
    w.control_raise("barrier", to, |c| &c.aset_rounds[w.me], n);
}

/// Waits for, and consumes, the next active-set barrier round from world PE `from`.
pub fn wait_round(w: &World, from: usize) {
    let count = &w.control(w.me).aset_rounds[from];
    consume(w, from, &w.aset_rounds_seen[from], count, true);
}

/// Waits until `count` (this PE's word counting what `from` sent it) passes `seen` (what it
/// consumed of it), then consumes one. `raised`: the count is raised ([`signal_round`]), which
/// the wait looks for on every round and which arrives ahead of `from`'s notice that it left;
/// an add may not (it goes by the puts' path), so that wait does not look at departures.
fn consume(w: &World, from: usize, seen: &AtomicU64, count: &AtomicU64, raised: bool) {
    let next = seen.load(Ordering::Relaxed) + 1;
    let kind = if raised { "round" } else { "signal" };
    let done = || count.load(Ordering::Acquire) >= next;
    let what = |out: &mut String| {
        let _ = write!(
            out,
            "barrier of an active set: waiting for PE {from} ({kind} {next})"
        );
    };
    if raised {
        departure::wait_for(w, "barrier", from, true, done, what);
    } else {
        w.wait_until_as(done, what);
    }
    seen.store(next, Ordering::Relaxed);
}

/// Which word a signal goes to.
#[derive(Clone, Copy, Debug)]
pub enum Word {
    /// A member to its leader: it has entered the call (its destination is free).
    Arrive,
    /// A leader to a member of its node: the call is over for it.
    Release,
    /// Round `r` of the leaders' dissemination barrier.
    Round(usize),
    /// A tree child of round `j` to its parent.
    Up(usize),
    /// A tree parent to its child: the data is there.
    Down,
}

/// The signals of one node-aware call.
pub struct Sig<'a> {
    w: &'a World,
    call: &'static str,
    sync: Sync,
    /// The call's epoch on a team (0 on an active set).
    epoch: u64,
}

impl<'a> Sig<'a> {
    /// Starts a call on group `g`: on a team, its next epoch.
    pub fn new(w: &'a World, call: &'static str, g: &Group) -> Sig<'a> {
        let epoch = match g.sync {
            Sync::Team(slot) => super::next_call(&handle::team_at(slot).epoch),
            Sync::ActiveSet => 0,
        };
        Sig {
            w,
            call,
            sync: g.sync,
            epoch,
        }
    }

    /// The call's epoch on a team (0 on an active set).
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    fn word(c: &Control, slot: usize, which: Word) -> &AtomicU64 {
        let t = words(c, slot);
        match which {
            Word::Arrive => &t.arrive.0,
            Word::Release => &t.release.0,
            Word::Round(r) => &c.teams[slot].barrier[r].0,
            Word::Up(j) => &t.up[j].0,
            Word::Down => &t.down.0,
        }
    }

    /// Signals world PE `to` (an arrival is recorded in this PE's own word on a team, where its
    /// leader reads it).
    pub fn tell(&self, to: usize, which: Word) {
        let w = self.w;
        match self.sync {
            Sync::Team(slot) => match which {
                Word::Arrive => {
                    Self::word(w.control(w.me), slot, which).store(self.epoch, Ordering::Release)
                }
                // A round's word only grows, and what precedes a round is complete (a quiet) or
                // the leader's own memory: one message where a store may take two.
                Word::Round(_) => {
                    w.control_raise(self.call, to, |c| Self::word(c, slot, which), self.epoch)
                }
                _ => w.control_store(self.call, to, |c| Self::word(c, slot, which), self.epoch),
            },
            Sync::ActiveSet if matches!(which, Word::Round(_)) => signal_round(w, to),
            Sync::ActiveSet => signal(w, to),
        }
    }

    /// Waits for the signal of world PE `from`.
    pub fn hear(&self, from: usize, which: Word) {
        let w = self.w;
        match self.sync {
            Sync::Team(slot) => {
                let at = if matches!(which, Word::Arrive) {
                    from
                } else {
                    w.me
                };
                let flag = Self::word(w.control(at), slot, which);
                let epoch = self.epoch;
                let done = || flag.load(Ordering::Acquire) >= epoch;
                let what = |out: &mut String| {
                    let _ = write!(
                        out,
                        "node-aware barrier of team slot {slot}, epoch {epoch}: \
                         waiting for PE {from} ({which:?})"
                    );
                };
                // A round's word is raised (`tell`); the others are stored.
                let raised = matches!(which, Word::Round(_));
                departure::wait_for(w, self.call, from, raised, done, what);
            }
            Sync::ActiveSet if matches!(which, Word::Round(_)) => wait_round(w, from),
            Sync::ActiveSet => wait_signal(w, from),
        }
    }
}

/// The node stage's first half: a member that is not its node's leader arrives at the leader
/// and waits to be released (then true: its part of the call is done); the leader returns false
/// once every other member of its node has arrived.
pub fn gather_at_leader(s: &Sig, l: &Layout, m: &Members) -> bool {
    if m.me != l.leader() {
        s.tell(m.world(l.leader()), Word::Arrive);
        s.hear(m.world(l.leader()), Word::Release);
        return true;
    }
    for &i in &l.locals {
        s.hear(m.world(i), Word::Arrive);
    }
    false
}

/// The barrier over `g` if its members are on more than one node (then true): members arrive
/// at their leader, the leaders run a dissemination barrier, the leaders release their members.
#[inline]
pub fn barrier(w: &World, call: &'static str, g: &Group) -> bool {
    if w.cpu_atomics || g.members.size < 2 || !w.config.node_aware {
        return false;
    }
    leaders_barrier(w, call, g)
}

/// [`barrier`] where the group may span nodes (out of line: the one-node barrier stays short).
#[inline(never)]
fn leaders_barrier(w: &World, call: &'static str, g: &Group) -> bool {
    let Some(l) = layout(w, &g.members, None) else {
        return false;
    };
    let s = Sig::new(w, call, g);
    let m = &g.members;
    if gather_at_leader(&s, &l, m) {
        return true;
    }
    disseminate(&s, &l, m);
    for &i in &l.locals {
        s.tell(m.world(i), Word::Release);
    }
    true
}

/// The leaders' dissemination barrier of the call `s` (run by the leaders of `l` only): when it
/// returns, every leader has run it, so whatever they stored before is visible.
pub fn disseminate(s: &Sig, l: &Layout, m: &Members) {
    let n = l.leaders.len();
    let (mut distance, mut round) = (1, 0);
    while distance < n {
        let to = m.world(l.leaders[(l.node + distance) % n]);
        let from = m.world(l.leaders[(l.node + n - distance) % n]);
        s.tell(to, Word::Round(round));
        s.hear(from, Word::Round(round));
        distance *= 2;
        round += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(start: usize, stride: isize, size: usize, me: usize) -> Members {
        Members {
            start,
            stride,
            size,
            me,
        }
    }

    #[test]
    fn layouts_come_from_the_cache_and_match_the_walk() {
        let blocks = [0, 0, 2, 2, 4, 4];
        let spread = [0, 1, 2, 3, 4, 5];
        let m = members(0, 1, 6, 3);
        let first = cached_layout(&blocks, &m, None, || false).unwrap();
        assert_eq!(*first, layout_of(&blocks, &m, None).unwrap());
        let again = cached_layout(&blocks, &m, None, || false).unwrap();
        assert!(
            Rc::ptr_eq(&first, &again),
            "the second call is the cached layout"
        );
        // Another node table, another root, one node: each its own answer.
        assert_eq!(
            *cached_layout(&spread, &m, None, || false).unwrap(),
            layout_of(&spread, &m, None).unwrap()
        );
        assert_eq!(
            *cached_layout(&blocks, &m, Some(5), || false).unwrap(),
            layout_of(&blocks, &m, Some(5)).unwrap()
        );
        assert_eq!(
            cached_layout(&[0, 0, 0, 0], &members(0, 1, 4, 1), None, || false),
            None
        );
        // More groups than the cache holds: the first is walked again, with the same answer.
        for me in 0..CACHED_LAYOUTS {
            cached_layout(&spread, &members(0, 1, 6, me % 6), Some(me / 6), || false);
        }
        let walked = cached_layout(&blocks, &m, None, || false).unwrap();
        assert!(!Rc::ptr_eq(&first, &walked));
        assert_eq!(walked, first);
    }

    #[test]
    fn one_node_has_no_layout() {
        let nodes = [0, 0, 0, 0, 4, 4, 4, 4];
        assert_eq!(layout_of(&nodes, &members(0, 1, 4, 2), None), None);
        assert_eq!(layout_of(&nodes, &members(4, 1, 4, 0), None), None);
    }

    #[test]
    fn leaders_are_each_nodes_first_member() {
        // 3 nodes of 2 PEs, all 6 PEs.
        let nodes = [0, 0, 2, 2, 4, 4];
        let l = layout_of(&nodes, &members(0, 1, 6, 3), None).unwrap();
        assert_eq!(l.leaders, vec![0, 2, 4]);
        assert_eq!((l.node, l.leader(), l.locals.clone()), (1, 2, vec![3]));
        let l = layout_of(&nodes, &members(0, 1, 6, 2), None).unwrap();
        assert_eq!(l.locals, vec![3]);
    }

    #[test]
    fn the_root_leads_its_node() {
        let nodes = [0, 0, 2, 2, 4, 4];
        let l = layout_of(&nodes, &members(0, 1, 6, 2), Some(3)).unwrap();
        assert_eq!(l.leaders, vec![0, 3, 4]);
        assert_eq!((l.leader(), l.locals.clone()), (3, vec![2]));
    }

    #[test]
    fn strided_and_reversed_members() {
        // World PEs 7, 5, 3, 1 (stride -2) on nodes of 4: PEs 7 5 on node 4, 3 1 on node 0.
        let nodes = [0, 0, 0, 0, 4, 4, 4, 4];
        let l = layout_of(&nodes, &members(7, -2, 4, 3), None).unwrap();
        assert_eq!(l.leaders, vec![0, 2]);
        assert_eq!((l.node, l.locals.clone()), (1, vec![3]));
        let l = layout_of(&nodes, &members(7, -2, 4, 3), Some(3)).unwrap();
        assert_eq!((l.leaders.clone(), l.locals.clone()), (vec![0, 3], vec![2]));
    }

    /// Blocks of ranks per node make runs, whatever the stride; round robin does not, unless each
    /// node has one member.
    #[test]
    fn runs_of_members_by_node() {
        let runs = |nodes: &[usize], start: usize, stride: isize, size: usize| {
            let m = Members {
                start,
                stride,
                size,
                me: 0,
            };
            layout_of(nodes, &m, None).unwrap().in_runs
        };
        let blocks = [0, 0, 2, 2, 4, 4, 6, 6];
        let cyclic = [0, 1, 2, 0, 1, 2];
        assert!(runs(&blocks, 0, 1, 8));
        assert!(runs(&blocks, 1, 2, 4));
        assert!(runs(&blocks, 7, -1, 8));
        assert!(runs(&blocks, 0, 3, 3));
        assert!(!runs(&cyclic, 0, 1, 6));
        assert!(!runs(&cyclic, 0, 1, 4));
        assert!(runs(&cyclic, 0, 2, 3));
        assert!(runs(&cyclic, 1, 2, 3));
        assert!(runs(&cyclic, 0, 1, 3));
    }
}
