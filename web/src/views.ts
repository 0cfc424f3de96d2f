/**
 * The viewer pane: one view per hash route — code (highlighted lines, blame, definitions and
 * references of the identifier clicked), a commit (message and diff), a note, a thread, the thread
 * list, file-level search results, the repository map and the index status. Everything from the
 * repository is set as text, or as markdown rendered by markdown.ts.
 */
import { api } from './api.js'
import { h, route, shortHash } from './dom.js'
import { highlightLines, languageOf } from './highlight.js'
import { linkCitations, renderMarkdown } from './markdown.js'

export interface Info {
  root: string
  head: { commit: string | null; branch: string | null }
  sources: string[]
  languages: string[]
  model: string | null
  editor: string
  /** The thread the day's questions and answers are logged in. */
  sessionThread: string
}

type View = (params: URLSearchParams, info: Info) => Promise<HTMLElement>

export const VIEWS: Record<string, View> = {
  '': home,
  code: codeView,
  commit: commitView,
  note: noteView,
  thread: threadView,
  threads: threadsView,
  search: searchView,
  map: mapView,
  status: statusView,
  def: defView,
  refs: refsView,
}

async function home(_params: URLSearchParams, info: Info): Promise<HTMLElement> {
  return h('div', { class: 'home' },
    h('h2', {}, 'Ask about this repository'),
    h('p', {}, `Answers cite code, notes, threads, agent history and git; click a citation to open it here. ${info.model ? `Model: ${info.model}.` : 'No model is configured: answers are extractive (the evidence itself).'}`),
    h('p', {}, 'The conversation is the one `git vlt oracle` and MCP agents continue (shown again after a reload): “it” in a question stands for the symbol last talked about. Each answer is logged in the thread ', h('a', { href: route('thread', { name: info.sessionThread }) }, info.sessionThread), '.'),
    h('p', {}, 'Keyboard: / focuses the question, Enter sends, Shift+Enter adds a line, Esc stops an answer. In a code view (Tab to it): n and p select the next and previous identifier, F12 (or d) opens its definition, Shift+F12 (or r) its references.'))
}

function toolbar(path: string, line: number, root: string, editor: string, ...extra: HTMLElement[]): HTMLElement {
  const reference = `${path}:${line}`
  const copy = h('button', { type: 'button', 'aria-label': `Copy ${reference}` }, 'Copy')
  copy.addEventListener('click', () => void navigator.clipboard?.writeText(reference).then(() => (copy.textContent = 'Copied')))
  const href = editor.replaceAll('{path}', encodeURI(`${root}/${path}`)).replaceAll('{line}', String(line))
  return h('div', { class: 'toolbar' }, h('code', { class: 'ref' }, reference), copy, h('a', { href, class: 'button' }, 'Open in editor'), ...extra)
}

async function codeView(params: URLSearchParams, info: Info): Promise<HTMLElement> {
  const path = params.get('path') ?? ''
  const file = await api<{ path: string; language: string | null; text: string }>('file', { path })
  const lines = highlightLines(file.text, languageOf(file.path, file.language))
  const start = Number(params.get('start') ?? 0)
  const end = Math.max(start, Number(params.get('end') ?? start))
  const code = h('div', { class: 'code hljs', role: 'region', tabindex: '0', 'aria-label': `${file.path} source; n and p select identifiers, F12 opens the definition, Shift+F12 the references`, 'aria-keyshortcuts': 'n p F12 Shift+F12 d r' })
  // The lines are highlight.js's escaped output (highlight.ts), split line by line.
  code.innerHTML = lines
    .map((html, i) => `<div class="line${i + 1 >= start && i + 1 <= end ? ' hl' : ''}" id="L${i + 1}"><span class="ln" aria-hidden="true">${i + 1}</span><span class="src">${html || ' '}</span></div>`)
    .join('')
  const symbolBar = h('div', { class: 'symbol-bar', 'aria-live': 'polite' }, h('span', { class: 'dim' }, 'Click an identifier for its definition and references.'))
  const offer = (word: string): void =>
    symbolBar.replaceChildren(h('code', {}, word), ' ', h('a', { href: route('def', { symbol: word }), class: 'button' }, 'Go to definition'), ' ', h('a', { href: route('refs', { symbol: word }), class: 'button' }, 'Find references'))
  code.addEventListener('click', (event) => {
    const word = wordAt(event)
    if (word) offer(word)
  })
  code.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return
    if (event.key === 'n' || event.key === 'p') {
      const word = selectIdentifier(code, event.key === 'n' ? 1 : -1, start)
      if (word) offer(word)
    } else if (event.key === 'F12' || event.key === 'd' || event.key === 'r') {
      const word = selectedIdentifier(code)
      if (!word) return
      location.hash = route(event.shiftKey || event.key === 'r' ? 'refs' : 'def', { symbol: word })
    } else return
    event.preventDefault()
  })
  const blame = h('div', { class: 'blame' })
  const sessions = h('button', { type: 'button' }, 'Agent sessions on this file')
  const history = h('div', { class: 'history' })
  sessions.addEventListener('click', () => void agentSessions(file.path, history))
  const view = h('div', { class: 'code-view' },
    h('h2', {}, file.path),
    toolbar(file.path, start || 1, info.root, info.editor, sessions),
    symbolBar, blame, history, code)
  if (start > 0) {
    void api<{ blame: Array<{ commit: string; author: string; date: string; subject: string; lines: number; boundary: boolean }> }>('blame', { path: file.path, start, end })
      .then(({ blame: commits }) => {
        if (commits.length === 0) return
        blame.append(h('h3', {}, `Blame of lines ${start}-${end}`), h('ul', {}, commits.map((c) => h('li', {},
          h('a', { href: route('commit', { hash: c.commit }) }, shortHash(c.commit)),
          ` ${c.boundary ? 'shallow-clone boundary (author unknown)' : c.author}, ${c.date}: ${c.subject}`,
          h('span', { class: 'dim' }, ` (${c.lines} line${c.lines === 1 ? '' : 's'})`)))))
      })
      .catch(() => {})
    requestAnimationFrame(() => view.querySelector(`#L${start}`)?.scrollIntoView({ block: 'center' }))
  }
  return view
}

/** The identifier under a click in the code (a word of letters, digits, _ and $). */
function wordAt(event: MouseEvent): string | null {
  const range = document.caretRangeFromPoint?.(event.clientX, event.clientY)
  const node = range?.startContainer
  if (!range || !node || node.nodeType !== Node.TEXT_NODE) return null
  const text = node.textContent ?? ''
  let from = range.startOffset
  let to = range.startOffset
  while (from > 0 && /[\w$]/.test(text[from - 1]!)) from--
  while (to < text.length && /[\w$]/.test(text[to]!)) to++
  const word = text.slice(from, to)
  return /^[A-Za-z_$][\w$]*$/.test(word) ? word : null
}

/** The identifier the selection (keyboard or double-click) holds inside the code, if it is one. */
function selectedIdentifier(code: HTMLElement): string | null {
  const selection = getSelection()
  if (!selection || selection.rangeCount === 0 || !code.contains(selection.anchorNode)) return null
  const word = selection.toString().trim()
  return /^[A-Za-z_$][\w$]*$/.test(word) ? word : null
}

/**
 * Selects the next (or previous) identifier of the source text after (before) the selection, or
 * from the first highlighted line when nothing is selected yet; returns it.
 */
function selectIdentifier(code: HTMLElement, direction: 1 | -1, startLine: number): string | null {
  const words: Array<{ node: Text; from: number; to: number }> = []
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT, { acceptNode: (node) => (node.parentElement?.closest('.ln') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT) })
  for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
    for (const match of (node.textContent ?? '').matchAll(/[A-Za-z_$][\w$]*/g)) words.push({ node, from: match.index, to: match.index + match[0].length })
  }
  if (words.length === 0) return null
  const selection = getSelection()!
  const current = selection.rangeCount > 0 && code.contains(selection.anchorNode) ? selection.getRangeAt(0) : null
  const position = (w: { node: Text; from: number }): number => {
    if (!current) return 0
    const here = document.createRange()
    here.setStart(w.node, w.from)
    return here.compareBoundaryPoints(Range.START_TO_START, current)
  }
  let index: number
  if (current) {
    index = direction === 1 ? words.findIndex((w) => position(w) > 0) : words.findLastIndex((w) => position(w) < 0)
    if (index < 0) index = direction === 1 ? 0 : words.length - 1
  } else {
    const first = code.querySelector(`#L${Math.max(1, startLine)}`)
    index = Math.max(0, words.findIndex((w) => !first || first.contains(w.node) || (first.compareDocumentPosition(w.node) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0))
  }
  const word = words[index]!
  const range = document.createRange()
  range.setStart(word.node, word.from)
  range.setEnd(word.node, word.to)
  selection.removeAllRanges()
  selection.addRange(range)
  word.node.parentElement?.scrollIntoView({ block: 'nearest' })
  return word.node.textContent!.slice(word.from, word.to)
}

async function agentSessions(path: string, into: HTMLElement): Promise<void> {
  const result = await api<{ sessions: Array<{ sessionId: string; title: string; timestamp: string; relation: string }> }>('history', { path }).catch((error: Error) => ({ error }))
  if ('error' in result) return void into.replaceChildren(h('p', { class: 'error' }, result.error.message))
  into.replaceChildren(h('h3', {}, 'Agent sessions'), result.sessions.length === 0 ? h('p', { class: 'dim' }, 'No ingested agent session touched or discussed this file (git vlt history ingest reads them).') : h('ul', {}, result.sessions.map((s) => h('li', {}, `${s.timestamp.slice(0, 10)} — ${s.title} (${s.relation})`))))
}

async function commitView(params: URLSearchParams): Promise<HTMLElement> {
  const commit = await api<{ hash: string; author: string; date: string; message: string; diff: string; truncated: boolean; boundary: boolean }>('commit', { hash: params.get('hash') ?? '' })
  const diff = h('pre', { class: 'diff', 'aria-label': 'Diff' })
  for (const line of commit.diff.split('\n')) {
    const kind = /^(?:diff |\+\+\+ |--- )/.test(line) ? 'file' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'hunk' : ''
    diff.append(h('span', { class: kind }, line), '\n')
  }
  const [subject, ...body] = commit.message.split('\n')
  return h('div', { class: 'commit-view' },
    h('h2', {}, subject ?? ''),
    h('p', { class: 'dim' }, h('code', {}, commit.hash), ` · ${commit.author} · ${commit.date}`),
    commit.boundary ? h('p', { class: 'warning' }, 'Shallow-clone boundary commit: its diff holds all the history before it; not authorship.') : null,
    body.join('\n').trim() ? h('pre', { class: 'message' }, body.join('\n').trim()) : null,
    diff,
    commit.truncated ? h('p', { class: 'dim' }, '(diff cut)') : null)
}

async function noteView(params: URLSearchParams, info: Info): Promise<HTMLElement> {
  const note = await api<{ path: string; title: string; content: string; headings: Array<{ text: string; line: number }>; backlinks: Array<{ path: string; line: number; text: string }>; links: Array<{ target: string; resolved: string | null }> }>('note', { path: params.get('path') ?? '' })
  const line = Number(params.get('line') ?? 0)
  const body = h('div', { class: 'md note-body' })
  body.innerHTML = renderMarkdown(note.content)
  linkCitations(body)
  // Links between notes lead to the note viewer; the rest of the repository's files to the code viewer.
  const dir = note.path.includes('/') ? note.path.slice(0, note.path.lastIndexOf('/') + 1) : ''
  for (const link of body.querySelectorAll<HTMLAnchorElement>('a[data-md-href]')) {
    const target = normalize(dir + decodeURI(link.dataset.mdHref!.split('#')[0]!))
    if (target) link.href = /\.(md|markdown|mdx)$/i.test(target) ? route('note', { path: target }) : route('code', { path: target })
  }
  const headings = [...body.querySelectorAll('h1, h2, h3, h4, h5, h6')]
  const cited = [...note.headings].reverse().find((heading) => heading.line <= line)
  const view = h('div', { class: 'note-view' },
    toolbar(note.path, line || 1, info.root, info.editor),
    body,
    note.backlinks.length ? h('section', { class: 'backlinks' }, h('h3', {}, 'Linked from'), h('ul', {}, note.backlinks.map((b) => h('li', {}, h('a', { href: route('note', { path: b.path, line: b.line }) }, `${b.path}:${b.line}`), ` ${b.text}`)))) : null)
  if (cited) {
    const target = headings.find((element) => element.textContent?.trim() === cited.text.trim())
    if (target) {
      target.classList.add('hl')
      requestAnimationFrame(() => target.scrollIntoView({ block: 'start' }))
    }
  }
  return view
}

/** `a/./b/../c` → `a/c`; null when it climbs above the repository. */
function normalize(path: string): string | null {
  const parts: string[] = []
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') {
      if (parts.length === 0) return null
      parts.pop()
    } else parts.push(part)
  }
  return parts.join('/') || null
}

interface Entry {
  id: string
  timestamp: string
  author: string
  type: string
  text: string
}

async function threadView(params: URLSearchParams): Promise<HTMLElement> {
  const name = params.get('name') ?? ''
  const thread = await api<{ name: string; title: string; description: string; created: string; entries: Entry[] }>('thread', { name })
  const wanted = params.get('entry')
  const summary = h('div', { class: 'summary' })
  const summarize = h('button', { type: 'button' }, 'Summarize')
  summarize.addEventListener('click', () => {
    summarize.disabled = true
    void api<{ text: string; generatedBy: string }>('thread-summary', { name })
      .then((s) => summary.replaceChildren(h('h3', {}, `Summary (${s.generatedBy})`), markdownBlock(s.text || '(no entries yet)')))
      .catch((error: Error) => summary.replaceChildren(h('p', { class: 'error' }, error.message)))
  })
  const entries = thread.entries.map((entry) => h('article', { class: `entry${entry.id === wanted ? ' hl' : ''}`, id: `entry-${entry.id}`, 'aria-label': `${entry.type} by ${entry.author}` },
    h('p', { class: 'dim' }, h('span', { class: `badge ${entry.type}` }, entry.type), ` ${entry.author} · ${entry.timestamp.slice(0, 16).replace('T', ' ')} · `, h('code', {}, `${thread.name}#${entry.id}`)),
    markdownBlock(entry.text)))
  const view = h('div', { class: 'thread-view' },
    h('h2', {}, thread.title),
    h('p', { class: 'dim' }, `${thread.name} · created ${thread.created.slice(0, 10)} · ${thread.entries.length} entries `, summarize),
    thread.description ? markdownBlock(thread.description) : null,
    summary,
    ...entries)
  if (wanted) requestAnimationFrame(() => view.querySelector(`#entry-${CSS.escape(wanted)}`)?.scrollIntoView({ block: 'start' }))
  return view
}

function markdownBlock(markdown: string): HTMLElement {
  const block = h('div', { class: 'md' })
  block.innerHTML = renderMarkdown(markdown)
  linkCitations(block)
  return block
}

async function threadsView(): Promise<HTMLElement> {
  const { threads, warnings } = await api<{ threads: Array<{ name: string; title: string; entries: number; lastActivity: string }>; warnings: string[] }>('threads')
  return h('div', {},
    h('h2', {}, 'Threads'),
    threads.length === 0 ? h('p', { class: 'dim' }, 'No threads yet (git vlt thread new).') : null,
    h('ul', { class: 'list' }, threads.map((t) => h('li', {}, h('a', { href: route('thread', { name: t.name }) }, t.title), h('span', { class: 'dim' }, ` ${t.name} · ${t.entries} entries · ${t.lastActivity.slice(0, 10)}`), lazySummary(t.name)))),
    ...warnings.map((w) => h('p', { class: 'warning' }, w)))
}

/** A thread's summary, written (or read from its cache) only when the reader opens it. */
function lazySummary(name: string): HTMLElement {
  const body = h('div', { class: 'summary' }, h('p', { class: 'dim' }, 'Summarizing…'))
  const details = h('details', {}, h('summary', { 'aria-label': `Summary of ${name}` }, 'Summary'), body)
  details.addEventListener('toggle', () => {
    if (!details.open || details.dataset.loaded) return
    details.dataset.loaded = 'true'
    void api<{ text: string; generatedBy: string }>('thread-summary', { name })
      .then((s) => body.replaceChildren(h('p', { class: 'dim' }, `(${s.generatedBy})`), markdownBlock(s.text || '(no entries yet)')))
      .catch((error: Error) => body.replaceChildren(h('p', { class: 'error' }, error.message)))
  })
  return details
}

async function searchView(params: URLSearchParams, info: Info): Promise<HTMLElement> {
  const q = params.get('q') ?? ''
  const language = params.get('language') ?? ''
  const path = params.get('path') ?? ''
  const form = h('form', { class: 'filters', role: 'search' },
    h('label', {}, 'Query ', h('input', { name: 'q', value: q, 'aria-label': 'Query' })),
    h('label', {}, 'Language ', h('select', { name: 'language', 'aria-label': 'Language' }, h('option', { value: '' }, 'any'), info.languages.map((l) => h('option', { value: l, selected: l === language }, l)))),
    h('label', {}, 'Path ', h('input', { name: 'path', value: path, placeholder: 'src/**', 'aria-label': 'Path glob' })),
    h('button', { type: 'submit' }, 'Search'))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const data = new FormData(form)
    location.hash = route('search', { q: String(data.get('q')), language: String(data.get('language')) || undefined, path: String(data.get('path')) || undefined })
  })
  if (!q) return h('div', {}, h('h2', {}, 'Search'), form)
  const result = await api<{ files: Array<{ path: string; score: number; methods: string[]; chunks: Array<{ startLine: number; endLine: number; qualifiedName: string; kind: string; snippet: string }>; commits: Array<{ hash: string; subject: string }> }>; warnings: string[] }>('search', { q, language: language || undefined, path: path || undefined })
  return h('div', { class: 'search-view' },
    h('h2', {}, `${result.files.length} file(s) for “${q}”`), form,
    h('ol', { class: 'results' }, result.files.map((file) => h('li', {},
      h('a', { href: route('code', { path: file.path, start: file.chunks[0]?.startLine, end: file.chunks[0]?.endLine }) }, file.path),
      h('span', { class: 'dim' }, ` ${file.score.toFixed(3)} · ${file.methods.join(', ')}`),
      h('ul', {}, file.chunks.map((c) => h('li', {}, h('a', { href: route('code', { path: file.path, start: c.startLine, end: c.endLine }) }, `${c.startLine}-${c.endLine}`), ` ${c.qualifiedName || c.kind}`))),
      file.commits.length ? h('ul', {}, file.commits.map((c) => h('li', {}, h('a', { href: route('commit', { hash: c.hash }) }, shortHash(c.hash)), ` ${c.subject}`))) : null))),
    ...result.warnings.map((w) => h('p', { class: 'warning' }, w)))
}

async function mapView(params: URLSearchParams): Promise<HTMLElement> {
  const map = await api<{ map: string; files: number; symbolsIncluded: number; symbolsTotal: number; tokens: number }>('map', { scope: params.get('scope') ?? undefined })
  const pre = h('pre', { class: 'map' })
  // A file's line in the map starts at the margin and names the file; its symbols are indented.
  for (const line of map.map.split('\n')) {
    const file = /^([^\s].*?):?$/.exec(line)?.[1]
    pre.append(file && !file.startsWith('│') && /\.\w+$/.test(file) ? h('a', { href: route('code', { path: file }) }, line) : line, '\n')
  }
  return h('div', {}, h('h2', {}, 'Repository map'), h('p', { class: 'dim' }, `${map.symbolsIncluded} of ${map.symbolsTotal} symbols in ${map.files} files (${map.tokens} tokens)`), pre)
}

/** What the last "Sync now" did: the view is drawn again with the new figures, and still says it. */
let lastSync = ''

async function statusView(): Promise<HTMLElement> {
  const status = await api<any>('status')
  const sync = h('button', { type: 'button' }, 'Sync now')
  const result = h('p', { role: 'status' }, lastSync)
  sync.addEventListener('click', () => {
    sync.disabled = true
    result.textContent = 'Syncing…'
    void api<any>('sync', {}, { method: 'POST' })
      .then((done) => {
        lastSync = `Synced in ${done.durationMs} ms (${done.mode}, ${done.changed ?? 0} changed).`
        result.textContent = lastSync
        window.dispatchEvent(new HashChangeEvent('hashchange'))
      })
      .catch((error: Error) => (result.textContent = `Sync failed: ${error.message}`))
      .finally(() => (sync.disabled = false))
  })
  const rows: Array<[string, string]> = [
    ['Indexed', status.indexed ? 'yes' : 'no'],
    ['Tree', status.treeHash ? `${shortHash(status.treeHash)}${status.stale ? ` (stale: HEAD's tree is ${shortHash(status.headTreeHash)})` : ' (up to date)'}` : '-'],
    ['Files', String(status.files ?? 0)],
    ['Chunks', String(status.chunks ?? 0)],
    ['Symbols', String(status.symbols ?? 0)],
    ['Uncommitted files', String(status.overlay?.files ?? 0)],
    ['Queue', status.queue ? JSON.stringify(status.queue) : '-'],
    ['Indexer', status.indexer ? JSON.stringify(status.indexer) : '-'],
    ['Last indexed', status.lastIndexed ?? '-'],
    ['Commits indexed', status.commits ? String(status.commits.indexed) : '-'],
    ['Integrity', status.integrity?.complete ? 'complete' : `problems: ${(status.integrity?.problems ?? []).join('; ')}`],
  ]
  return h('div', { class: 'status-view' }, h('h2', {}, 'Index status'), h('table', {}, rows.map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', {}, v)))), sync, result)
}

async function defView(params: URLSearchParams): Promise<HTMLElement> {
  const symbol = params.get('symbol') ?? ''
  const result = await api<{ definitions: Array<{ qualifiedName: string; kind: string; path: string; line: number; endLine: number; signature: string }>; suggestions?: string[] }>('def', { symbol })
  return h('div', {}, h('h2', {}, `Definitions of ${symbol}`),
    result.definitions.length === 0 ? h('p', {}, `No definition.${result.suggestions?.length ? ` Did you mean ${result.suggestions.join(', ')}?` : ''}`) : null,
    h('ul', { class: 'list' }, result.definitions.map((d) => h('li', {}, h('a', { href: route('code', { path: d.path, start: d.line, end: d.endLine }) }, `${d.path}:${d.line}`), ` ${d.qualifiedName} (${d.kind})`, h('pre', { class: 'signature' }, d.signature)))))
}

async function refsView(params: URLSearchParams): Promise<HTMLElement> {
  const symbol = params.get('symbol') ?? ''
  const result = await api<{ references: Array<{ path: string; line: number; context: string; enclosing: string }>; mentions: number }>('refs', { symbol })
  return h('div', {}, h('h2', {}, `References to ${symbol} (${result.references.length})`),
    h('ul', { class: 'list' }, result.references.map((r) => h('li', {}, h('a', { href: route('code', { path: r.path, start: r.line, end: r.line }) }, `${r.path}:${r.line}`), h('span', { class: 'dim' }, r.enclosing ? ` in ${r.enclosing}` : ''), h('pre', { class: 'signature' }, r.context)))))
}
