/** DOM building with text only: strings become text nodes, never markup (repository text is untrusted). */
type Child = Node | string | null | undefined | false
type Props = Record<string, string | number | boolean | EventListener | undefined>

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Array<Child | Child[]>): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value)
    else if (name === 'class') element.className = String(value)
    else element.setAttribute(name, value === true ? '' : String(value))
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue
    element.append(typeof child === 'string' ? document.createTextNode(child) : child)
  }
  return element
}

/** A link inside the app (hash route). */
export function route(path: string, params: Record<string, string | number | undefined> = {}): string {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value))
  const text = query.toString()
  return `#/${path}${text ? `?${text}` : ''}`
}

export function shortHash(hash: string): string {
  return hash.slice(0, 12)
}
