/** The app: the chat on the left, the viewer on the right (stacked on a narrow window), routed by the URL's hash. */
import { api } from './api.js'
import { Chat } from './chat.js'
import { h, route } from './dom.js'
import { VIEWS, type Info } from './views.js'

const THEME_KEY = 'vlt-ui-theme'

function applyTheme(theme: string): void {
  document.documentElement.dataset.theme = theme
  const toggle = document.getElementById('theme-toggle')!
  toggle.setAttribute('aria-label', theme === 'dark' ? 'Switch to light theme' : 'Switch to dark theme')
}

async function main(): Promise<void> {
  applyTheme(localStorage.getItem(THEME_KEY) ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'))
  document.getElementById('theme-toggle')!.addEventListener('click', () => {
    const theme = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark'
    localStorage.setItem(THEME_KEY, theme)
    applyTheme(theme)
  })
  const info = await api<Info>('info')
  const name = info.root.split('/').pop() ?? info.root
  document.getElementById('repo-name')!.textContent = `${name}${info.head.branch ? ` · ${info.head.branch}` : ''}`
  document.title = `${name} — git vlt`
  const chat = new Chat(info.sources)
  const viewer = document.getElementById('viewer')!
  let shown = 0
  const show = async (): Promise<void> => {
    const [path = '', query = ''] = location.hash.replace(/^#\/?/, '').split('?')
    const view = VIEWS[path]
    const mine = ++shown
    viewer.setAttribute('aria-busy', 'true')
    let element: HTMLElement
    try {
      element = view ? await view(new URLSearchParams(query), info) : h('p', {}, `Nothing here: ${path}`)
    } catch (error) {
      element = h('p', { class: 'error', role: 'alert' }, (error as Error).message)
    }
    // A slower earlier view must not replace the one asked for last.
    if (mine !== shown) return
    viewer.replaceChildren(element)
    viewer.setAttribute('aria-busy', 'false')
  }
  window.addEventListener('hashchange', () => void show())
  document.getElementById('search-form')!.addEventListener('submit', (event) => {
    event.preventDefault()
    const q = (document.getElementById('search-input') as HTMLInputElement).value.trim()
    if (q) location.hash = route('search', { q })
  })
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && chat.stop()) event.preventDefault()
    const typing = event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement || event.target instanceof HTMLSelectElement
    if (event.key === '/' && !typing) {
      event.preventDefault()
      chat.focus()
    }
  })
  await show()
  // A context that cannot be read leaves the chat empty, not the app broken.
  await chat.restore().catch((error: unknown) => console.warn(`the conversation could not be restored: ${(error as Error).message}`))
  chat.focus()
  document.body.dataset.ready = 'true'
}

void main()
