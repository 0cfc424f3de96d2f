import assert from 'node:assert/strict'
import { definitions, referencesIn, signatureOf, tagsOf, type Tags } from './tags-helpers.js'

const SOURCE = `import React, { useState, useEffect as useMount } from 'react'
import * as api from './api/client'
import Button from '../components/Button.jsx'
const { debounce, throttle: limit } = require('lodash')
const config = require('./config.json')

export const PAGE_SIZE = 20
let renderCount = 0
var registry = {}

export class TodoStore extends api.Store {
  items = []
  #listeners = new Set()
  onChange = (item) => {
    this.#listeners.forEach((fn) => fn(item))
  }

  static create(options) {
    return new TodoStore(options)
  }

  async load(page = 0) {
    const { data } = await api.fetchTodos({ page, size: PAGE_SIZE })
    this.items = data.map(normalize)
    return this.items
  }

  *[Symbol.iterator]() {
    yield* this.items
  }
}

function normalize({ id, title, done = false }) {
  return { id, title: title.trim(), done }
}

function* pages(store) {
  for (let page = 0; ; page++) yield store.load(page)
}

export function TodoList({ store, onSelect }) {
  const [items, setItems] = useState([])
  const refresh = debounce(() => store.load().then(setItems), 100)
  useMount(() => {
    renderCount++
    refresh()
  }, [])
  return (
    <ul className="todos">
      {items.map((item) => (
        <TodoItem key={item.id} item={item} onClick={() => onSelect(item)} />
      ))}
      <Button.Primary onClick={refresh}>Reload</Button.Primary>
    </ul>
  )
}

const TodoItem = ({ item, onClick }) => <li onClick={onClick}>{item.title}</li>

registry.todo = function (store) {
  return limit(() => store.load(), config.interval)
}

TodoStore.prototype.clear = function () {
  this.items.length = 0
}

module.exports.createStore = (options) => TodoStore.create(options)
exports.pages = pages

export default {
  name: 'todos',
  setup() {
    return import('./lazy.js')
  },
}

limit(pages, 1000)
`

describe('tags: JavaScript', () => {
  let tags: Tags

  before(async () => {
    tags = await tagsOf('javascript', SOURCE)
  })

  it('finds classes, methods, fields and functions bound to names, properties and prototypes', () => {
    assert.deepEqual(definitions(tags), [
      ['PAGE_SIZE', 'PAGE_SIZE', 'constant', 7, 7, ''],
      ['renderCount', 'renderCount', 'variable', 8, 8, ''],
      ['registry', 'registry', 'variable', 9, 9, ''],
      ['TodoStore', 'TodoStore', 'class', 11, 31, ''],
      ['items', 'TodoStore.items', 'field', 12, 12, 'TodoStore'],
      ['#listeners', 'TodoStore.#listeners', 'field', 13, 13, 'TodoStore'],
      ['onChange', 'TodoStore.onChange', 'method', 14, 16, 'TodoStore'],
      ['create', 'TodoStore.create', 'method', 18, 20, 'TodoStore'],
      ['load', 'TodoStore.load', 'method', 22, 26, 'TodoStore'],
      ['normalize', 'normalize', 'function', 33, 35, ''],
      ['pages', 'pages', 'function', 37, 39, ''],
      ['TodoList', 'TodoList', 'function', 41, 56, ''],
      ['TodoItem', 'TodoItem', 'function', 58, 58, ''],
      ['todo', 'registry.todo', 'function', 60, 62, 'registry'],
      ['clear', 'TodoStore.clear', 'method', 64, 66, 'TodoStore'],
      ['createStore', 'createStore', 'function', 68, 68, ''],
      ['setup', 'setup', 'function', 73, 75, ''],
    ])
  })

  it('gives signatures up to the body', () => {
    assert.equal(signatureOf(tags, 'TodoStore'), 'class TodoStore extends api.Store')
    assert.equal(signatureOf(tags, 'TodoStore.load'), 'async load(page = 0)')
    assert.equal(signatureOf(tags, 'TodoStore.onChange'), 'onChange = (item) =>')
    assert.equal(signatureOf(tags, 'pages'), 'function* pages(store)')
    assert.equal(signatureOf(tags, 'TodoItem'), 'const TodoItem = ({ item, onClick }) =>')
    assert.equal(signatureOf(tags, 'TodoStore.clear'), 'TodoStore.prototype.clear = function ()')
    assert.equal(signatureOf(tags, 'PAGE_SIZE'), 'const PAGE_SIZE = 20')
    assert.equal(signatureOf(tags, 'registry'), 'var registry')
  })

  it('reports calls, members and rendered components, and skips parameters, locals and host elements', () => {
    assert.deepEqual(referencesIn(tags, 'TodoList'), [
      ['useState', 42, 'call', undefined],
      ['debounce', 43, 'call', undefined],
      ['load', 43, 'call', 'store'],
      ['then', 43, 'call', 'store.load()'],
      ['useMount', 44, 'call', undefined],
      ['renderCount', 45, 'reference', undefined],
      ['map', 50, 'call', 'items'],
      ['TodoItem', 51, 'call', undefined],
      ['id', 51, 'reference', 'item'],
      ['Primary', 53, 'call', 'Button'],
    ])
    assert.deepEqual(referencesIn(tags, 'TodoStore.load'), [
      ['api', 23, 'reference', undefined],
      ['fetchTodos', 23, 'call', 'api'],
      ['PAGE_SIZE', 23, 'reference', undefined],
      ['items', 24, 'reference', 'this'],
      ['map', 24, 'call', 'data'],
      ['normalize', 24, 'reference', undefined],
      ['items', 25, 'reference', 'this'],
    ])
    assert.deepEqual(referencesIn(tags, 'TodoStore.onChange'), [
      ['#listeners', 15, 'reference', 'this'],
      ['forEach', 15, 'call', 'this.#listeners'],
    ])
    assert.deepEqual(referencesIn(tags, 'TodoStore.create'), [['TodoStore', 19, 'call', undefined]])
  })

  it('keeps names destructured from a require usable at the top level', () => {
    assert.deepEqual(referencesIn(tags, '').filter((r) => r[2] !== 'import'), [
      ['require', 4, 'call', undefined],
      ['require', 5, 'call', undefined],
      ['exports', 69, 'reference', undefined],
      ['pages', 69, 'reference', 'exports'],
      ['pages', 69, 'reference', undefined],
      ['limit', 78, 'call', undefined],
      ['pages', 78, 'reference', undefined],
    ])
  })

  it('reports extends as inheritance', () => {
    const inherits = tags.references.filter((r) => r.kind === 'inherit').map((r) => [r.name, r.enclosing, r.receiver])
    assert.deepEqual(inherits, [['Store', 'TodoStore', 'api']])
  })

  it('reads ES imports, CommonJS requires and dynamic imports', () => {
    assert.deepEqual(tags.imports, [
      {
        module: 'react',
        names: [{ name: 'default', alias: 'React' }, { name: 'useState' }, { name: 'useEffect', alias: 'useMount' }],
        line: 1,
        relative: false,
      },
      { module: './api/client', names: [], alias: 'api', line: 2, relative: true },
      { module: '../components/Button.jsx', names: [{ name: 'default', alias: 'Button' }], line: 3, relative: true },
      { module: 'lodash', names: [{ name: 'debounce' }, { name: 'throttle', alias: 'limit' }], line: 4, relative: false },
      { module: './config.json', names: [], alias: 'config', line: 5, relative: true },
      { module: './lazy.js', names: [], line: 74, relative: true },
    ])
    const imported = tags.references.filter((r) => r.kind === 'import').map((r) => [r.name, r.line])
    assert.deepEqual(imported, [
      ['React', 1], ['useState', 1], ['useEffect', 1], ['Button', 3], ['debounce', 4], ['throttle', 4],
    ])
  })
})
