import assert from 'node:assert/strict'
import { definitions, referencesIn, signatureOf, tagsOf, type Tags } from './tags-helpers.js'

const SOURCE = `import { EventEmitter } from 'node:events'
import type { Logger } from './logger.js'
import * as path from 'node:path'
import defaultCache, { CacheEntry as Entry, makeKey } from '../cache/index.js'
import './polyfills.js'
export { formatBytes } from './format.js'
export * from './types.js'

export const DEFAULT_TTL = 60_000
let instances = 0

export interface Store<V> extends Iterable<V> {
  readonly size: number
  get(key: string): V | undefined
  put(key: string, value: V): void
}

export type Listener<V> = (key: string, value: V) => void

export enum Mode {
  ReadOnly,
  ReadWrite = 'rw',
}

export abstract class BaseStore<V> extends EventEmitter implements Store<V> {
  protected entries = new Map<string, Entry<V>>()
  abstract get size(): number
  abstract get(key: string): V | undefined

  put(key: string, value: V): void {
    this.entries.set(makeKey(key), { value, at: Date.now() })
    this.emit('put', key)
  }

  *[Symbol.iterator](): Iterator<V> {
    for (const entry of this.entries.values()) yield entry.value
  }
}

export class MemoryStore<V> extends BaseStore<V> {
  private readonly log: Logger
  onEvict: Listener<V> = (key, value) => {
    this.log.debug(\`evicted \${key}\`, value)
  }

  constructor(log: Logger, private ttl = DEFAULT_TTL) {
    super()
    this.log = log
    instances++
  }

  get size(): number {
    return this.entries.size
  }

  get(key: string): V | undefined {
    const hit = this.entries.get(makeKey(key))
    if (!hit || Date.now() - hit.at > this.ttl) return undefined
    return hit.value
  }
}

export function openStore<V>(dir: string, mode: Mode): Store<V>
export function openStore<V>(dir: string): Store<V>
export function openStore<V>(dir: string, mode = Mode.ReadOnly): Store<V> {
  const log = defaultCache.logger(path.join(dir, 'store.log'))
  const store = new MemoryStore<V>(log)
  if (mode === Mode.ReadWrite) store.on('put', (key: string) => log.info(key))
  return store
}

export const describeStore = async (store: Store<unknown>): Promise<string> => {
  return \`\${store.size} entries\`
}

export namespace Stores {
  export const registry = new Map<string, Store<unknown>>()
  export function register(name: string, store: Store<unknown>): void {
    registry.set(name, store)
  }
}

declare module 'node:events' {
  interface EventEmitter {
    stores?: number
  }
}

const { join } = require('node:path')
const legacy = require('./legacy')
module.exports.legacyOpen = (dir: string) => legacy.open(join(dir, 'x'))
`

describe('tags: TypeScript', () => {
  let tags: Tags

  before(async () => {
    tags = await tagsOf('typescript', SOURCE)
  })

  it('finds every definition, qualifying members by their class, interface, enum or namespace', () => {
    assert.deepEqual(definitions(tags), [
      ['DEFAULT_TTL', 'DEFAULT_TTL', 'constant', 9, 9, ''],
      ['instances', 'instances', 'variable', 10, 10, ''],
      ['Store', 'Store', 'interface', 12, 16, ''],
      ['size', 'Store.size', 'field', 13, 13, 'Store'],
      ['get', 'Store.get', 'method', 14, 14, 'Store'],
      ['put', 'Store.put', 'method', 15, 15, 'Store'],
      ['Listener', 'Listener', 'type', 18, 18, ''],
      ['Mode', 'Mode', 'enum', 20, 23, ''],
      ['ReadOnly', 'Mode.ReadOnly', 'constant', 21, 21, 'Mode'],
      ['ReadWrite', 'Mode.ReadWrite', 'constant', 22, 22, 'Mode'],
      ['BaseStore', 'BaseStore', 'class', 25, 38, ''],
      ['entries', 'BaseStore.entries', 'field', 26, 26, 'BaseStore'],
      ['size', 'BaseStore.size', 'method', 27, 27, 'BaseStore'],
      ['get', 'BaseStore.get', 'method', 28, 28, 'BaseStore'],
      ['put', 'BaseStore.put', 'method', 30, 33, 'BaseStore'],
      ['MemoryStore', 'MemoryStore', 'class', 40, 61, ''],
      ['log', 'MemoryStore.log', 'field', 41, 41, 'MemoryStore'],
      ['onEvict', 'MemoryStore.onEvict', 'method', 42, 44, 'MemoryStore'],
      ['constructor', 'MemoryStore.constructor', 'method', 46, 50, 'MemoryStore'],
      ['size', 'MemoryStore.size', 'method', 52, 54, 'MemoryStore'],
      ['get', 'MemoryStore.get', 'method', 56, 60, 'MemoryStore'],
      ['openStore', 'openStore', 'function', 65, 70, ''],
      ['describeStore', 'describeStore', 'function', 72, 74, ''],
      ['Stores', 'Stores', 'namespace', 76, 81, ''],
      ['registry', 'Stores.registry', 'constant', 77, 77, 'Stores'],
      ['register', 'Stores.register', 'function', 78, 80, 'Stores'],
      ['node:events', 'node:events', 'module', 83, 87, ''],
      ['EventEmitter', 'node:events.EventEmitter', 'interface', 84, 86, 'node:events'],
      ['stores', 'node:events.EventEmitter.stores', 'field', 85, 85, 'node:events.EventEmitter'],
      ['legacyOpen', 'legacyOpen', 'function', 91, 91, ''],
    ])
  })

  it('keeps an overload signature only when the function has no implementation in the file', () => {
    assert.deepEqual(tags.symbols.filter((s) => s.name === 'openStore').map((s) => s.line), [65])
    assert.equal(signatureOf(tags, 'BaseStore.get'), 'abstract get(key: string): V | undefined')
    assert.equal(signatureOf(tags, 'Store.put'), 'put(key: string, value: V): void')
  })

  it('gives signatures up to the body', () => {
    assert.equal(signatureOf(tags, 'BaseStore'), 'abstract class BaseStore<V> extends EventEmitter implements Store<V>')
    assert.equal(signatureOf(tags, 'openStore'), 'function openStore<V>(dir: string, mode = Mode.ReadOnly): Store<V>')
    assert.equal(signatureOf(tags, 'describeStore'), 'const describeStore = async (store: Store<unknown>): Promise<string> =>')
    assert.equal(signatureOf(tags, 'MemoryStore.onEvict'), 'onEvict: Listener<V> = (key, value) =>')
    assert.equal(signatureOf(tags, 'Listener'), 'type Listener<V> = (key: string, value: V) => void')
    assert.equal(signatureOf(tags, 'DEFAULT_TTL'), 'const DEFAULT_TTL = 60_000')
    assert.equal(signatureOf(tags, 'Stores.registry'), 'const registry')
    assert.equal(signatureOf(tags, 'legacyOpen'), 'module.exports.legacyOpen = (dir: string) =>')
  })

  it('reports calls, constructions and members with their receivers, and skips parameters and locals', () => {
    assert.deepEqual(referencesIn(tags, 'MemoryStore.get'), [
      ['entries', 57, 'reference', 'this'],
      ['get', 57, 'call', 'this.entries'],
      ['makeKey', 57, 'call', undefined],
      ['Date', 58, 'reference', undefined],
      ['now', 58, 'call', 'Date'],
      ['at', 58, 'reference', 'hit'],
      ['ttl', 58, 'reference', 'this'],
      ['value', 59, 'reference', 'hit'],
    ])
    assert.deepEqual(referencesIn(tags, 'openStore'), [
      ['Mode', 63, 'type', undefined],
      ['Store', 63, 'type', undefined],
      ['Store', 64, 'type', undefined],
      ['Mode', 65, 'reference', undefined],
      ['ReadOnly', 65, 'reference', 'Mode'],
      ['Store', 65, 'type', undefined],
      ['defaultCache', 66, 'reference', undefined],
      ['logger', 66, 'call', 'defaultCache'],
      ['path', 66, 'reference', undefined],
      ['join', 66, 'call', 'path'],
      ['MemoryStore', 67, 'call', undefined],
      ['Mode', 68, 'reference', undefined],
      ['ReadWrite', 68, 'reference', 'Mode'],
      ['on', 68, 'call', 'store'],
      ['info', 68, 'call', 'log'],
    ])
  })

  it('reports type annotations as type references, but not type parameters', () => {
    assert.deepEqual(referencesIn(tags, 'MemoryStore.onEvict'), [
      ['Listener', 42, 'type', undefined],
      ['log', 43, 'reference', 'this'],
      ['debug', 43, 'call', 'this.log'],
    ])
    assert.deepEqual(referencesIn(tags, 'BaseStore.entries'), [
      ['Map', 26, 'call', undefined],
      ['Entry', 26, 'type', undefined],
    ])
  })

  it('reports extends and implements as inheritance', () => {
    const inherits = tags.references.filter((r) => r.kind === 'inherit').map((r) => [r.name, r.enclosing, r.receiver])
    assert.deepEqual(inherits, [
      ['Iterable', 'Store', undefined],
      ['EventEmitter', 'BaseStore', undefined],
      ['Store', 'BaseStore', undefined],
      ['BaseStore', 'MemoryStore', undefined],
    ])
  })

  it('reads ES imports, re-exports and CommonJS requires', () => {
    assert.deepEqual(tags.imports, [
      { module: 'node:events', names: [{ name: 'EventEmitter' }], line: 1, relative: false },
      { module: './logger.js', names: [{ name: 'Logger' }], line: 2, relative: true },
      { module: 'node:path', names: [], alias: 'path', line: 3, relative: false },
      {
        module: '../cache/index.js',
        names: [{ name: 'default', alias: 'defaultCache' }, { name: 'CacheEntry', alias: 'Entry' }, { name: 'makeKey' }],
        line: 4,
        relative: true,
      },
      { module: './polyfills.js', names: [], line: 5, relative: true },
      { module: './format.js', names: [{ name: 'formatBytes' }], line: 6, relative: true },
      { module: './types.js', names: [{ name: '*' }], line: 7, relative: true },
      { module: 'node:path', names: [{ name: 'join' }], line: 89, relative: false },
      { module: './legacy', names: [], alias: 'legacy', line: 90, relative: true },
    ])
    const imported = tags.references.filter((r) => r.kind === 'import').map((r) => [r.name, r.line])
    assert.deepEqual(imported, [
      ['EventEmitter', 1], ['Logger', 2], ['defaultCache', 4], ['CacheEntry', 4], ['makeKey', 4], ['formatBytes', 6], ['join', 89],
    ])
  })

  it('does not define a module bound by require as a constant', () => {
    assert.equal(tags.symbols.some((s) => s.name === 'legacy' || s.name === 'join'), false)
  })

  it('reports doc-comment links and tag types, `typeof` queries and local exports', async () => {
    const source = [
      '/**',
      ' * Like {@link Subject#next next}, see {@linkcode util.merge}; not {@link https://example.com}.',
      ' * @throws {EmptyError} when empty',
      ' * @param {Array<Item>|null} items',
      ' */',
      'export function emit(items: Item[]): void {}',
      '// {@link NotADocComment}',
      'type Emit = typeof emit | typeof util.merge',
      'export { emit as send }',
      '',
    ].join('\n')
    const got = (await tagsOf('typescript', source)).references.map((r) => [r.name, r.line, r.column, r.kind, r.receiver])
    assert.deepEqual(got, [
      ['Subject', 2, 15, 'doc', undefined],
      ['next', 2, 23, 'doc', 'Subject'],
      ['util', 2, 50, 'doc', undefined],
      ['merge', 2, 55, 'doc', 'util'],
      ['EmptyError', 3, 12, 'doc', undefined],
      ['Array', 4, 11, 'doc', undefined],
      ['Item', 4, 17, 'doc', undefined],
      ['Item', 6, 28, 'type', undefined],
      ['emit', 8, 19, 'reference', undefined],
      ['util', 8, 33, 'reference', undefined],
      ['merge', 8, 38, 'reference', 'util'],
      ['emit', 9, 9, 'import', undefined],
    ])
  })
})
