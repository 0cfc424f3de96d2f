/**
 * Markdown from the repository (notes, thread entries) and from the model is untrusted: raw HTML in
 * it is shown as text, links may only lead to web pages, mail or inside the app, and images are
 * never fetched (shown as their alt text). The page's Content-Security-Policy stops scripts anyway;
 * this keeps markup from the repository from even looking like the app's own.
 */
import { Marked, type Tokens } from 'marked'
import { h, route } from './dom.js'

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const SAFE_HREF = /^(?:https?:|mailto:|#)/i

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(text)
    },
    link({ href, title, tokens }: Tokens.Link): string {
      const text = this.parser.parseInline(tokens)
      if (!SAFE_HREF.test(href)) return `<a data-md-href="${escapeHtml(href)}">${text}</a>`
      const external = !href.startsWith('#')
      return `<a href="${escapeHtml(href)}"${title ? ` title="${escapeHtml(title)}"` : ''}${external ? ' target="_blank" rel="noopener noreferrer"' : ''}>${text}</a>`
    },
    image({ text }: Tokens.Image): string {
      return `<span class="image-alt">[image: ${escapeHtml(text)}]</span>`
    },
  },
})

/** Sanitised HTML of `markdown`: see the module comment. */
export function renderMarkdown(markdown: string): string {
  return marked.parse(markdown, { async: false }) as string
}

/** How a citation is known from the answer's sources (sourcePath → sourceType); empty while streaming. */
export type KnownSources = Map<string, string>

const CITATION = new RegExp(
  [
    String.raw`(?<thread>(?<![\w-])[a-z0-9](?:[a-z0-9-]*[a-z0-9])?#[0-9a-z]{9}-[0-9a-f]{8})`,
    String.raw`(?<file>(?<![\w/.@-])(?:[\w@+.-]+\/)*[\w@+-][\w@+.-]*\.[A-Za-z0-9]+:\d+(?:-\d+)?)`,
    String.raw`(?<commit>\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b)`,
  ].join('|'),
  'g',
)

const NOTE_FILE = /\.(?:md|markdown|mdx)$/i

/** The in-app link of a citation as the oracle writes it, or null when it is not one. */
export function citationHref(text: string, known: KnownSources = new Map()): string | null {
  CITATION.lastIndex = 0
  const match = CITATION.exec(text)
  if (!match || match.index !== 0 || match[0].length !== text.length) return null
  const groups = match.groups!
  if (groups.thread) {
    const [name, entry] = text.split('#')
    return route('thread', { name, entry })
  }
  if (groups.file) {
    const [, path, start, end] = /^(.*):(\d+)(?:-(\d+))?$/.exec(text)!
    const type = known.get(text)
    if (type === 'vault' || (type === undefined && NOTE_FILE.test(path!))) return route('note', { path, line: start })
    return route('code', { path, start, end: end ?? start })
  }
  return route('commit', { hash: text })
}

/** Turns the citations in `root`'s text (outside code blocks and links) into links to the viewers. */
export function linkCitations(root: HTMLElement, known: KnownSources = new Map()): void {
  // An inline code span that is exactly a citation becomes a link as a whole.
  for (const code of root.querySelectorAll('code')) {
    if (code.closest('pre, a')) continue
    const href = citationHref(code.textContent ?? '', known)
    if (href) code.replaceWith(h('a', { href, class: 'citation' }, code.cloneNode(true)))
  }
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT)
  const texts: Text[] = []
  while (walker.nextNode()) {
    const node = walker.currentNode as Text
    if (!node.parentElement?.closest('pre, a, code')) texts.push(node)
  }
  for (const node of texts) {
    const text = node.data
    CITATION.lastIndex = 0
    if (!CITATION.test(text)) continue
    const parts: Array<Node | string> = []
    let last = 0
    CITATION.lastIndex = 0
    for (const match of text.matchAll(CITATION)) {
      const href = citationHref(match[0], known)
      if (!href) continue
      parts.push(text.slice(last, match.index), h('a', { href, class: 'citation' }, match[0]))
      last = match.index + match[0].length
    }
    parts.push(text.slice(last))
    node.replaceWith(...parts)
  }
}
