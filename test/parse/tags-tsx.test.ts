import assert from 'node:assert/strict'
import { definitions, referencesIn, signatureOf, tagsOf, type Tags } from './tags-helpers.js'

const SOURCE = `import React, { type ReactNode, useMemo } from 'react'
import type { Theme } from '@/theme'
import styles = require('./Panel.module.css')
export * as icons from './icons'
export { default as Badge } from './Badge'

export interface PanelProps<T> extends React.HTMLAttributes<HTMLElement> {
  title: string
  items: readonly T[]
  render?: (item: T) => ReactNode
  onClose(): void
}

type Variant = 'plain' | 'framed'
type PanelState = { open: boolean; toggle(): void }

@observer
class PanelModel<T> {
  selected?: T
  constructor(readonly theme: Theme) {}

  select(item: T): void {
    this.selected = item
    track('select', { theme: this.theme.name })
  }
}

export const Panel = <T,>({ title, items, render, onClose }: PanelProps<T>) => {
  const model = useMemo(() => new PanelModel<T>(defaultTheme), [])
  const variant: Variant = items.length > 10 ? 'framed' : 'plain'
  return (
    <section className={styles.panel} data-variant={variant}>
      <Header title={title} onClose={onClose} />
      <Layout.Grid>
        {items.map((item, i) => (
          <div key={i} onClick={() => model.select(item)}>
            {render ? render(item) : String(item)}
          </div>
        ))}
      </Layout.Grid>
    </section>
  )
}

function Header({ title, onClose }: { title: string; onClose: () => void }) {
  return <h2>{title}<CloseButton onPress={onClose} /></h2>
}

const defaultTheme: Theme = { name: 'light' }

export default function ({ children }: { children: ReactNode }) {
  return <Layout.Root theme={defaultTheme}>{children}</Layout.Root>
}
`

describe('tags: TSX', () => {
  let tags: Tags

  before(async () => {
    tags = await tagsOf('tsx', SOURCE)
  })

  it('finds components, props types, classes and an anonymous default export', () => {
    assert.deepEqual(definitions(tags), [
      ['PanelProps', 'PanelProps', 'interface', 7, 12, ''],
      ['title', 'PanelProps.title', 'field', 8, 8, 'PanelProps'],
      ['items', 'PanelProps.items', 'field', 9, 9, 'PanelProps'],
      ['render', 'PanelProps.render', 'field', 10, 10, 'PanelProps'],
      ['onClose', 'PanelProps.onClose', 'method', 11, 11, 'PanelProps'],
      ['Variant', 'Variant', 'type', 14, 14, ''],
      ['PanelState', 'PanelState', 'type', 15, 15, ''],
      ['open', 'PanelState.open', 'field', 15, 15, 'PanelState'],
      ['toggle', 'PanelState.toggle', 'method', 15, 15, 'PanelState'],
      ['PanelModel', 'PanelModel', 'class', 17, 26, ''],
      ['selected', 'PanelModel.selected', 'field', 19, 19, 'PanelModel'],
      ['constructor', 'PanelModel.constructor', 'method', 20, 20, 'PanelModel'],
      ['select', 'PanelModel.select', 'method', 22, 25, 'PanelModel'],
      ['Panel', 'Panel', 'function', 28, 43, ''],
      ['Header', 'Header', 'function', 45, 47, ''],
      ['defaultTheme', 'defaultTheme', 'constant', 49, 49, ''],
      ['default', 'default', 'function', 51, 53, ''],
    ])
  })

  it('gives signatures up to the body, after decorators', () => {
    assert.equal(signatureOf(tags, 'PanelModel'), 'class PanelModel<T>')
    assert.equal(signatureOf(tags, 'PanelProps'), 'interface PanelProps<T> extends React.HTMLAttributes<HTMLElement>')
    assert.equal(signatureOf(tags, 'Panel'), 'const Panel = <T,>({ title, items, render, onClose }: PanelProps<T>) =>')
    assert.equal(signatureOf(tags, 'default'), 'export default function ({ children }: { children: ReactNode })')
    assert.equal(signatureOf(tags, 'defaultTheme'), 'const defaultTheme: Theme')
    assert.equal(signatureOf(tags, 'PanelState.toggle'), 'toggle(): void')
  })

  it('reports rendered components as calls, and neither host elements nor closing tags', () => {
    assert.deepEqual(referencesIn(tags, 'Panel'), [
      ['PanelProps', 28, 'type', undefined],
      ['useMemo', 29, 'call', undefined],
      ['PanelModel', 29, 'call', undefined],
      ['defaultTheme', 29, 'reference', undefined],
      ['Variant', 30, 'type', undefined],
      ['length', 30, 'reference', 'items'],
      ['styles', 32, 'reference', undefined],
      ['panel', 32, 'reference', 'styles'],
      ['Header', 33, 'call', undefined],
      ['Grid', 34, 'call', 'Layout'],
      ['map', 35, 'call', 'items'],
      ['select', 36, 'call', 'model'],
      ['String', 37, 'call', undefined],
    ])
    assert.deepEqual(referencesIn(tags, 'Header'), [['CloseButton', 46, 'call', undefined]])
    assert.deepEqual(referencesIn(tags, 'default'), [
      ['ReactNode', 51, 'type', undefined],
      ['Root', 52, 'call', 'Layout'],
      ['defaultTheme', 52, 'reference', undefined],
    ])
  })

  it('puts a class decorator inside the class it decorates', () => {
    assert.deepEqual(referencesIn(tags, 'PanelModel'), [['observer', 17, 'call', undefined]])
    assert.deepEqual(referencesIn(tags, 'PanelModel.select'), [
      ['selected', 23, 'reference', 'this'],
      ['track', 24, 'call', undefined],
      ['theme', 24, 'reference', 'this'],
      ['name', 24, 'reference', 'this.theme'],
    ])
  })

  it('reports interface extends as inheritance', () => {
    const inherits = tags.references.filter((r) => r.kind === 'inherit').map((r) => [r.name, r.enclosing, r.receiver])
    assert.deepEqual(inherits, [['HTMLAttributes', 'PanelProps', 'React']])
  })

  it('reads type imports, import-require and namespace re-exports', () => {
    assert.deepEqual(tags.imports, [
      {
        module: 'react',
        names: [{ name: 'default', alias: 'React' }, { name: 'ReactNode' }, { name: 'useMemo' }],
        line: 1,
        relative: false,
      },
      { module: '@/theme', names: [{ name: 'Theme' }], line: 2, relative: false },
      { module: './Panel.module.css', names: [], alias: 'styles', line: 3, relative: true },
      { module: './icons', names: [], alias: 'icons', line: 4, relative: true },
      { module: './Badge', names: [{ name: 'default', alias: 'Badge' }], line: 5, relative: true },
    ])
    const imported = tags.references.filter((r) => r.kind === 'import').map((r) => [r.name, r.line])
    assert.deepEqual(imported, [['React', 1], ['ReactNode', 1], ['useMemo', 1], ['Theme', 2], ['default', 5]])
  })
})
