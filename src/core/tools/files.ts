/**
 * read_file_range: lines of a file the index holds, as they are in the working tree. Only indexed
 * files can be read — the selection already left out credentials files, binaries and whatever
 * vlt.toml excludes — the path is resolved inside the repository (no `..`, no symlink out), and
 * the text is redacted as the index redacts it, so no secret is quoted.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { quotedName } from '../display/index.js'
import { UsageError } from '../errors.js'
import { redactSecrets, resolveInRepo } from '../files/index.js'
import { countTokens } from '../repomap/index.js'
import { defineTool, footer, freshnessOf, freshnessSchema, READ_ONLY, type AnyToolSpec, type ToolEnv } from './kit.js'

/** Lines one call returns at most (a model asks for a window, not a whole file). */
export const MAX_RANGE_LINES = 400
const FRAME_TOKENS = 100

export function fileTools(env: ToolEnv): AnyToolSpec[] {
  const readFileRange = defineTool({
    name: 'read_file_range',
    title: 'Read file range',
    description: `Lines of an indexed file as they are now (uncommitted edits included), numbered; at most ${MAX_RANGE_LINES} lines per call.`,
    input: {
      path: z.string().min(1).max(500).describe('File path inside the repo.'),
      start_line: z.number().int().min(1).describe('First line (1-based).'),
      end_line: z.number().int().min(1).optional().describe(`Last line, inclusive (default start_line + 99; at most ${MAX_RANGE_LINES} lines).`),
    },
    output: {
      path: z.string(),
      startLine: z.number(),
      endLine: z.number(),
      totalLines: z.number(),
      text: z.string(),
      note: z.string().optional(),
      freshness: freshnessSchema,
    },
    annotations: READ_ONLY,
    run: async (args) => {
      const qctx = await env.index.get()
      const path = resolveInRepo(env.index.root, args.path, 'path')
      if (!qctx.files.has(path)) throw new UsageError(`${quotedName(path)} is not an indexed file (read_file_range reads only files the index holds)`)
      let raw: string
      try {
        raw = readFileSync(join(env.index.root, path), 'utf8')
      } catch (error) {
        throw new UsageError(`${quotedName(path)} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
      }
      const lines = redactSecrets(raw, { keepColumns: true }).text.split('\n')
      const start = args.start_line
      if (start > lines.length) throw new UsageError(`${quotedName(path)} has ${lines.length} line(s); start_line ${start} is past its end`)
      const wantedEnd = Math.min(args.end_line ?? start + 99, start + MAX_RANGE_LINES - 1, lines.length)
      if (wantedEnd < start) throw new UsageError(`end_line ${args.end_line} is before start_line ${start}`)
      // Whole lines, in order, until the output cap.
      let end = start - 1
      let used = FRAME_TOKENS
      const numbered: string[] = []
      for (let n = start; n <= wantedEnd; n++) {
        const line = `${n}: ${lines[n - 1]}`
        used += countTokens(line) + 1
        if (used > env.maxTokens && numbered.length > 0) break
        numbered.push(line)
        end = n
      }
      const note = end < wantedEnd ? `Output capped at line ${end} of the ${wantedEnd} asked for; call again from start_line ${end + 1}.` : undefined
      const text = numbered.join('\n')
      return {
        structured: { path, startLine: start, endLine: end, totalLines: lines.length, text, ...(note ? { note } : {}), freshness: freshnessOf(qctx.freshness) },
        text: [`${quotedName(path)}:${start}-${end} (of ${lines.length} lines)`, text, footer(undefined, note, qctx.freshness)].join('\n'),
        remember: { summary: `read ${path}:${start}-${end}`, insights: [], symbols: [], files: [path] },
      }
    },
  })
  return [readFileRange]
}
