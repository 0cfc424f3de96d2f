/** Syntax highlighting: highlight.js's core with the languages the index parses (and a few file formats). */
import hljs from 'highlight.js/lib/core'
import bash from 'highlight.js/lib/languages/bash'
import c from 'highlight.js/lib/languages/c'
import cpp from 'highlight.js/lib/languages/cpp'
import diff from 'highlight.js/lib/languages/diff'
import go from 'highlight.js/lib/languages/go'
import java from 'highlight.js/lib/languages/java'
import javascript from 'highlight.js/lib/languages/javascript'
import json from 'highlight.js/lib/languages/json'
import markdown from 'highlight.js/lib/languages/markdown'
import python from 'highlight.js/lib/languages/python'
import ruby from 'highlight.js/lib/languages/ruby'
import rust from 'highlight.js/lib/languages/rust'
import typescript from 'highlight.js/lib/languages/typescript'
import yaml from 'highlight.js/lib/languages/yaml'

for (const [name, language] of Object.entries({ bash, c, cpp, diff, go, java, javascript, json, markdown, python, ruby, rust, typescript, yaml })) hljs.registerLanguage(name, language)

/** The index's language ids (and file extensions for the rest) as highlight.js names. */
const BY_LANGUAGE: Record<string, string> = { tsx: 'typescript', typescript: 'typescript', javascript: 'javascript', python: 'python', go: 'go', rust: 'rust', java: 'java', c: 'c', cpp: 'cpp', ruby: 'ruby' }
const BY_EXTENSION: Record<string, string> = { json: 'json', md: 'markdown', markdown: 'markdown', yml: 'yaml', yaml: 'yaml', sh: 'bash', bash: 'bash', toml: 'yaml', diff: 'diff', patch: 'diff' }

export function languageOf(path: string, language: string | null): string | null {
  if (language && BY_LANGUAGE[language]) return BY_LANGUAGE[language]!
  return BY_EXTENSION[path.slice(path.lastIndexOf('.') + 1).toLowerCase()] ?? null
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * The file as one HTML string per line: highlight.js escapes the text and wraps tokens in spans,
 * which may run over several lines (a block comment); each line reopens the spans open at its start
 * and closes them at its end, so that every line stands alone.
 */
export function highlightLines(text: string, language: string | null): string[] {
  const html = language && text.length < 1_000_000 ? hljs.highlight(text, { language, ignoreIllegals: true }).value : escapeHtml(text)
  const lines: string[] = []
  const open: string[] = []
  let line = ''
  for (const token of html.match(/<span[^>]*>|<\/span>|\n|[^<\n]+/g) ?? []) {
    if (token === '\n') {
      lines.push(line + '</span>'.repeat(open.length))
      line = open.join('')
    } else {
      if (token.startsWith('<span')) open.push(token)
      else if (token === '</span>') open.pop()
      line += token
    }
  }
  lines.push(line + '</span>'.repeat(open.length))
  return lines
}
