import assert from 'node:assert/strict'
import { definitions, referencesIn, signatureOf, tagsOf, type Tags } from './tags-helpers.js'

const SOURCE = `//! A bounded cache with pluggable eviction.
use std::collections::HashMap;
use std::fmt::{self, Display};
use crate::policy::{Policy, Lru as LeastRecent, weights::*};
use super::metrics;
extern crate serde;

mod tests;

pub const DEFAULT_CAPACITY: usize = 128;
static HITS: AtomicUsize = AtomicUsize::new(0);

macro_rules! debug_log {
    ($($arg:tt)*) => { if cfg!(debug_assertions) { eprintln!($($arg)*) } };
}

/// What the cache evicts by.
pub trait Evict: Send {
    fn score(&self, key: &str) -> u64;
    fn name(&self) -> &'static str { "unnamed" }
}

#[derive(Debug, Clone)]
pub enum Entry<V> {
    Fresh(V),
    Stale { value: V, age: u32 },
    Missing,
}

pub struct Cache<V> {
    entries: HashMap<String, Entry<V>>,
    capacity: usize,
    policy: Box<dyn Evict>,
}

impl<V: Clone> Cache<V> {
    pub fn new(policy: Box<dyn Evict>) -> Self {
        Cache { entries: HashMap::new(), capacity: DEFAULT_CAPACITY, policy }
    }

    pub fn get(&mut self, key: &str) -> Option<V> {
        HITS.fetch_add(1, Ordering::Relaxed);
        match self.entries.get(key) {
            Some(Entry::Fresh(value)) => Some(value.clone()),
            Some(Entry::Stale { value, .. }) => {
                debug_log!("stale {}", key);
                self.evict_one();
                Some(value.clone())
            }
            _ => None,
        }
    }

    fn evict_one(&mut self) {
        let victim = self.entries.keys().max_by_key(|k| self.policy.score(k)).cloned();
        if let Some(key) = victim {
            self.entries.remove(&key);
            metrics::record_eviction(&key);
        }
    }
}

impl<V> Display for Cache<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cache({}/{})", self.entries.len(), self.capacity)
    }
}

pub mod builder {
    pub fn with_capacity(capacity: usize) -> usize { capacity.max(1) }
}
`

describe('tags: Rust', () => {
  let tags: Tags

  before(async () => {
    tags = await tagsOf('rust', SOURCE)
  })

  it('finds every item, with impl blocks qualifying their functions', () => {
    assert.deepEqual(definitions(tags), [
      ['tests', 'tests', 'module', 8, 8, ''],
      ['DEFAULT_CAPACITY', 'DEFAULT_CAPACITY', 'constant', 10, 10, ''],
      ['HITS', 'HITS', 'variable', 11, 11, ''],
      ['debug_log', 'debug_log', 'macro', 13, 15, ''],
      ['Evict', 'Evict', 'trait', 18, 21, ''],
      ['score', 'Evict.score', 'method', 19, 19, 'Evict'],
      ['name', 'Evict.name', 'method', 20, 20, 'Evict'],
      ['Entry', 'Entry', 'enum', 24, 28, ''],
      ['Fresh', 'Entry.Fresh', 'constant', 25, 25, 'Entry'],
      ['Stale', 'Entry.Stale', 'constant', 26, 26, 'Entry'],
      ['value', 'Entry.Stale.value', 'field', 26, 26, 'Entry.Stale'],
      ['age', 'Entry.Stale.age', 'field', 26, 26, 'Entry.Stale'],
      ['Missing', 'Entry.Missing', 'constant', 27, 27, 'Entry'],
      ['Cache', 'Cache', 'struct', 30, 34, ''],
      ['entries', 'Cache.entries', 'field', 31, 31, 'Cache'],
      ['capacity', 'Cache.capacity', 'field', 32, 32, 'Cache'],
      ['policy', 'Cache.policy', 'field', 33, 33, 'Cache'],
      ['new', 'Cache.new', 'method', 37, 39, 'Cache'],
      ['get', 'Cache.get', 'method', 41, 52, 'Cache'],
      ['evict_one', 'Cache.evict_one', 'method', 54, 60, 'Cache'],
      ['fmt', 'Cache.fmt', 'method', 64, 66, 'Cache'],
      ['builder', 'builder', 'module', 69, 71, ''],
      ['with_capacity', 'builder.with_capacity', 'function', 70, 70, 'builder'],
    ])
  })

  it('gives signatures up to the body', () => {
    assert.equal(signatureOf(tags, 'Cache.get'), 'pub fn get(&mut self, key: &str) -> Option<V>')
    assert.equal(signatureOf(tags, 'Cache.fmt'), "fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result")
    assert.equal(signatureOf(tags, 'Evict.score'), 'fn score(&self, key: &str) -> u64;')
    assert.equal(signatureOf(tags, 'Evict'), 'pub trait Evict: Send')
    assert.equal(signatureOf(tags, 'Cache'), 'pub struct Cache<V>')
    assert.equal(signatureOf(tags, 'DEFAULT_CAPACITY'), 'pub const DEFAULT_CAPACITY: usize = 128;')
  })

  it('reports method, path and macro calls with receivers, skipping bindings', () => {
    assert.deepEqual(referencesIn(tags, 'Cache.get'), [
      ['Option', 41, 'type', undefined],
      ['HITS', 42, 'reference', undefined],
      ['fetch_add', 42, 'call', 'HITS'],
      ['Ordering', 42, 'reference', undefined],
      ['Relaxed', 42, 'reference', 'Ordering'],
      ['entries', 43, 'reference', 'self'],
      ['get', 43, 'call', 'self.entries'],
      ['Entry', 44, 'reference', undefined],
      ['Fresh', 44, 'reference', 'Entry'],
      ['clone', 44, 'call', 'value'],
      ['Entry', 45, 'reference', undefined],
      ['Stale', 45, 'type', 'Entry'],
      ['debug_log', 46, 'call', undefined],
      ['evict_one', 47, 'call', 'self'],
      ['clone', 48, 'call', 'value'],
      ['None', 50, 'reference', undefined],
    ])
    assert.deepEqual(referencesIn(tags, 'Cache.new'), [
      ['Box', 37, 'type', undefined],
      ['Evict', 37, 'type', undefined],
      ['Cache', 38, 'type', undefined],
      ['HashMap', 38, 'reference', undefined],
      ['new', 38, 'call', 'HashMap'],
      ['DEFAULT_CAPACITY', 38, 'reference', undefined],
    ])
    const removeCall = tags.references.find((r) => r.name === 'remove')
    assert.deepEqual(removeCall, { name: 'remove', line: 57, column: 25, kind: 'call', enclosing: 'Cache.evict_one', receiver: 'self.entries' })
  })

  it('reports implemented traits and supertraits as inheritance', () => {
    const inherits = tags.references.filter((r) => r.kind === 'inherit').map((r) => [r.name, r.line, r.enclosing])
    assert.deepEqual(inherits, [
      ['Send', 18, 'Evict'],
      ['Display', 63, 'Cache'],
    ])
  })

  it('flattens use trees and reads extern crates and file modules', () => {
    assert.deepEqual(tags.imports, [
      { module: 'std::collections', names: [{ name: 'HashMap' }], line: 2, relative: false },
      { module: 'std', names: [{ name: 'fmt' }], line: 3, relative: false },
      { module: 'std::fmt', names: [{ name: 'Display' }], line: 3, relative: false },
      { module: 'crate::policy', names: [{ name: 'Policy' }, { name: 'Lru', alias: 'LeastRecent' }], line: 4, relative: true },
      { module: 'crate::policy::weights', names: [{ name: '*' }], line: 4, relative: true },
      { module: 'super', names: [{ name: 'metrics' }], line: 5, relative: true },
      { module: 'serde', names: [], line: 6, relative: false },
      { module: 'tests', names: [], line: 8, relative: true },
    ])
    const imported = tags.references.filter((r) => r.kind === 'import').map((r) => [r.name, r.line])
    assert.deepEqual(imported, [
      ['HashMap', 2], ['fmt', 3], ['Display', 3], ['Policy', 4], ['Lru', 4], ['metrics', 5], ['serde', 6],
    ])
  })
})
