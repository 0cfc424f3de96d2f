/**
 * The chat panel: a question goes to /api/ask and its answer streams in as server-sent events —
 * the oracle's progress and warnings, the model's tokens (rendered as they arrive), then the whole
 * response with its sources and, when asked, the explain trace. Stop (or Esc) aborts the request,
 * which stops the run on the server. The conversation is the oracle context the CLI continues: on
 * load, its earlier questions and answers (asked here, on the CLI or over MCP) are shown again.
 */
import { api, askStream } from './api.js'
import { h, route, shortHash } from './dom.js'
import { linkCitations, renderMarkdown, type KnownSources } from './markdown.js'

export const SOURCE_LABELS: Record<string, string> = { code: 'Code', vault: 'Notes', threads: 'Threads', history: 'Agent history', git: 'Git history' }
const SOURCES_KEY = 'vlt-ui-sources'
/** The oracle's stages as the progress line says them. */
const STAGES: Record<string, string> = {
  history: 'Reading the git history of the cited lines…',
  blame: 'Reading the blame of the cited lines…',
  answering: 'Writing the answer…',
}
/** Re-rendering the markdown of a streaming answer at most this often. */
const RENDER_MS = 30

interface Source {
  sourceType: string
  sourcePath: string
  retrievalMethod: string
  score: number
  metadata: Record<string, any>
}

/** Where an exchange of the context was asked. */
const VIA: Record<string, string> = { cli: 'asked on the command line', mcp: 'asked by an agent (MCP)', ui: 'asked here' }

interface ContextView {
  name: string
  compressedExchanges: number
  exchanges: Array<{ id: string; at: string; via: string | null; question: string; answer: string; model: string | null }>
}

interface Response {
  answer: string
  model: string
  sources: Source[]
  warnings: string[]
  durationMs: number
  tokensUsed: number
  traces?: any
}

export class Chat {
  private running: AbortController | null = null
  private readonly messages = document.getElementById('messages')!
  private readonly question = document.getElementById('question') as HTMLTextAreaElement
  private readonly send = document.getElementById('send') as HTMLButtonElement
  private readonly stopButton = document.getElementById('stop') as HTMLButtonElement
  private readonly explain = document.getElementById('explain') as HTMLInputElement
  private readonly boxes = document.getElementById('source-boxes')!

  constructor(sources: readonly string[]) {
    const saved = new Set<string>(JSON.parse(localStorage.getItem(SOURCES_KEY) ?? 'null') ?? sources)
    for (const name of sources) {
      this.boxes.append(h('label', {}, h('input', { type: 'checkbox', name: 'source', value: name, checked: saved.has(name), onchange: () => this.saveSources() }), ` ${SOURCE_LABELS[name] ?? name}`))
    }
    document.getElementById('ask-form')!.addEventListener('submit', (event) => {
      event.preventDefault()
      void this.ask()
    })
    this.question.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault()
        void this.ask()
      }
    })
    this.stopButton.addEventListener('click', () => this.stop())
  }

  focus(): void {
    this.question.focus()
  }

  /** The context's earlier questions and answers, oldest first, each marked with where it was asked. */
  async restore(): Promise<void> {
    const context = await api<ContextView>('context')
    const shown = context.exchanges.map((exchange) => {
      const view = new AnswerView()
      view.restored(exchange)
      return [h('article', { class: 'msg user', 'aria-label': 'Question' }, h('p', {}, exchange.question), h('p', { class: 'dim via' }, `${VIA[exchange.via?.split(':')[0] ?? ''] ?? 'asked'} · ${exchange.at.slice(0, 16).replace('T', ' ')}`)), view.element]
    })
    const header = h('p', { class: 'dim context-name', 'data-context': context.name }, `Conversation ${context.name}${context.compressedExchanges > 0 ? ` (${context.compressedExchanges} earlier exchange(s) summarised)` : ''}`)
    this.messages.prepend(header, ...shown.flat())
  }

  stop(): boolean {
    if (!this.running) return false
    this.running.abort()
    return true
  }

  private selectedSources(): string[] {
    return [...this.boxes.querySelectorAll<HTMLInputElement>('input[name=source]:checked')].map((box) => box.value)
  }

  private saveSources(): void {
    localStorage.setItem(SOURCES_KEY, JSON.stringify(this.selectedSources()))
  }

  async ask(): Promise<void> {
    const question = this.question.value.trim()
    const sources = this.selectedSources()
    if (question === '' || this.running) return
    if (sources.length === 0) {
      this.messages.append(h('p', { class: 'msg error', role: 'alert' }, 'Pick at least one source.'))
      return
    }
    this.question.value = ''
    this.messages.append(h('article', { class: 'msg user', 'aria-label': 'Question' }, h('p', {}, question)))
    const view = new AnswerView()
    this.messages.append(view.element)
    view.element.scrollIntoView({ block: 'end' })
    const controller = new AbortController()
    this.running = controller
    this.setRunning(true)
    try {
      for await (const { event, data } of askStream({ question, sources, explain: this.explain.checked }, controller.signal)) view.on(event, data)
    } catch (error) {
      if (controller.signal.aborted) view.stopped()
      else view.failed((error as Error).message)
    } finally {
      this.running = null
      this.setRunning(false)
      this.question.focus()
    }
  }

  private setRunning(running: boolean): void {
    this.send.disabled = running
    this.stopButton.disabled = !running
  }
}

class AnswerView {
  readonly element = h('article', { class: 'msg answer', 'aria-label': 'Answer', 'aria-busy': 'true' })
  private readonly progress = h('div', { class: 'progress', role: 'status' }, 'Starting…')
  private readonly body = h('div', { class: 'answer-body md' })
  private readonly warnings = h('ul', { class: 'warnings' })
  /** The agent loop's tool calls so far, as they started. */
  private readonly tools = h('ul', { class: 'tool-calls', 'aria-label': 'Tool calls' })
  private text = ''
  private progressDone = 0
  private progressTotal = 0
  private progressLabel = ''
  private lastRender = 0
  private pendingRender: number | undefined

  constructor() {
    this.element.append(this.progress, this.tools, this.body, this.warnings)
  }

  /** An answer from the stored context: its text as it was given, rendered; no sources kept. */
  restored(exchange: ContextView['exchanges'][number]): void {
    this.text = exchange.answer
    this.render()
    this.progress.remove()
    this.tools.remove()
    this.element.classList.add('restored')
    this.element.setAttribute('aria-busy', 'false')
    this.element.insertBefore(h('p', { class: 'model' }, exchange.model === 'extractive' || exchange.model === null ? 'Extractive answer (from the conversation so far).' : `Written by ${exchange.model} (from the conversation so far).`), this.body)
  }

  on(event: string, data: any): void {
    if (event === 'start') {
      this.progress.textContent = `Searching ${(data.sources as string[]).map((s) => SOURCE_LABELS[s] ?? s).join(', ').toLowerCase()}…`
      // The conversation resolved a pronoun: say what was asked in the end.
      if (data.resolved) this.element.prepend(h('p', { class: 'resolved dim' }, `Asked as “${data.question}” (${data.resolved})`))
    }
    else if (event === 'progress') {
      this.progressLabel = `${data.label}`
      this.progressTotal = data.total
      this.progressDone = 0
      this.showProgress(String(data.unit))
    } else if (event === 'tick') {
      this.progressDone += data.done
      this.showProgress('')
    } else if (event === 'progress-end') this.progress.textContent = 'Searching…'
    else if (event === 'stage' && STAGES[data.stage]) this.progress.textContent = STAGES[data.stage]!
    else if (event === 'tool') {
      // "searching code… (search_code)": the line is the progress, the name joins the list.
      this.progress.textContent = data.line
      this.tools.append(h('li', {}, data.line))
    } else if (event === 'warning') this.warnings.append(h('li', {}, data.message))
    else if (event === 'token') this.token(data.text)
    else if (event === 'answer') this.answer(data as Response)
    else if (event === 'error') this.failed(data.message)
  }

  private showProgress(unit: string): void {
    this.progress.textContent = `${this.progressLabel}: ${this.progressDone}/${this.progressTotal}${unit ? ` ${unit}` : ''}`
  }

  private token(text: string): void {
    if (this.text === '') this.progress.textContent = 'Writing the answer…'
    this.text += text
    const wait = RENDER_MS - (performance.now() - this.lastRender)
    if (wait <= 0) this.render()
    else this.pendingRender ??= window.setTimeout(() => this.render(), wait)
  }

  private render(known?: KnownSources): void {
    this.pendingRender = undefined
    this.lastRender = performance.now()
    this.body.innerHTML = renderMarkdown(this.text)
    linkCitations(this.body, known)
  }

  private answer(response: Response): void {
    window.clearTimeout(this.pendingRender)
    this.text = response.answer
    const known: KnownSources = new Map(response.sources.map((s) => [citationOf(s), s.sourceType]))
    this.render(known)
    this.progress.remove()
    this.element.setAttribute('aria-busy', 'false')
    const extractive = response.model === 'extractive'
    this.element.classList.toggle('extractive', extractive)
    this.element.insertBefore(
      h('p', { class: 'model' }, extractive
        ? 'Extractive answer: the evidence itself, quoted — no model wrote it.'
        : `Written by ${response.model} from the evidence below · ${response.tokensUsed} tokens · ${(response.durationMs / 1000).toFixed(1)} s`),
      this.body,
    )
    if (response.sources.length > 0) this.element.append(sourcesList(response.sources, known))
    if (response.traces) this.element.append(h('details', { class: 'trace' }, h('summary', {}, 'Explain trace'), h('pre', {}, formatTrace(response.traces))))
  }

  stopped(): void {
    this.finish('Stopped.')
  }

  failed(message: string): void {
    this.finish(`Failed: ${message}`)
    this.progress.setAttribute('role', 'alert')
  }

  private finish(status: string): void {
    window.clearTimeout(this.pendingRender)
    if (this.text) this.render()
    this.element.append(this.progress)
    this.progress.textContent = status
    this.progress.classList.add('ended')
    this.element.setAttribute('aria-busy', 'false')
  }
}

function citationOf(source: Source): string {
  return source.sourceType === 'git' ? source.sourcePath.slice(0, 12) : source.sourcePath
}

function sourcesList(sources: Source[], known: KnownSources): HTMLElement {
  const items = sources.map((source) => {
    const wrapper = h('span', {}, citationOf(source))
    linkCitations(wrapper, known)
    const blame = (source.metadata.blame ?? []) as Array<{ commit: string; author: string; date: string; boundary: boolean }>
    return h(
      'li',
      {},
      h('span', { class: `badge ${source.sourceType}` }, SOURCE_LABELS[source.sourceType] ?? source.sourceType),
      ' ',
      source.sourceType === 'git' ? h('a', { href: route('commit', { hash: source.sourcePath }), class: 'citation' }, shortHash(source.sourcePath)) : wrapper,
      h('span', { class: 'dim' }, ` ${source.retrievalMethod} · ${source.score.toFixed(2)}`),
      blame[0] ? h('span', { class: 'dim' }, ' · last changed in ', h('a', { href: route('commit', { hash: blame[0].commit }) }, shortHash(blame[0].commit)), ` by ${blame[0].boundary ? 'unknown (shallow clone)' : blame[0].author}, ${blame[0].date}`) : null,
    )
  })
  return h('details', { class: 'sources-used', open: true }, h('summary', {}, `Sources (${sources.length})`), h('ol', {}, items))
}

/** The --explain trace as the CLI prints it. */
function formatTrace(traces: any): string {
  const lines = [`classification: ${traces.classification.queryType}; symbol: ${traces.classification.symbol ?? '-'}; searched: ${JSON.stringify(traces.classification.searchText)}`]
  for (const path of traces.paths) {
    lines.push('', `path ${path.path}: ${path.results.length} result(s)${path.note ? ` — ${path.note}` : ''}`)
    for (const result of path.results) lines.push(`  ${result.score.toFixed(3)}  relevance ${result.relevance?.toFixed(2) ?? '-'}  ${result.sourcePath}`)
  }
  lines.push('', 'fusion and rerank decisions')
  for (const d of traces.decisions) lines.push(`  ${d.decision.padEnd(11)} ${d.score.toFixed(3)}  ${d.sourcePath}${d.by ? ` (merged into ${d.by})` : ''}`)
  const b = traces.budget
  lines.push('', `context budget: ${b.used}/${b.maxTokens} tokens: repo map ${b.repoMap}, evidence ${b.sources}; ${b.dropped} dropped`)
  return lines.join('\n')
}
