import { Args, Flags } from '@oclif/core'
import { searchCli } from '../../core/cli/query-cli.js'
import { QueryCommand } from '../../core/cli/query-command.js'
import type { FileSearchResponse, SearchResponse } from '../../core/query/search/index.js'
import { SEARCH_KINDS, SEARCH_LANGUAGES } from '../../core/query/search/types.js'

export default class CoderagSearch extends QueryCommand {
  static override summary = 'Search the code: keywords, exact identifiers, their callers and callees, and embeddings when configured.'
  static override description = `Runs several retrieval paths over the index of HEAD plus uncommitted edits (synced first)
and fuses them: BM25 over code chunks, exact lookup of identifiers the query names
(\`authenticate_user\`, \`UserService.login\` — their definitions come first), the callers and
callees of those symbols, and vector similarity when [embedding] is configured in your own config
(~/.config/git-vlt/config.toml, or the file GIT_VLT_CONFIG names; never a repository's vlt.toml).
Results are then reranked offline (path match, definitions over module glue, PageRank,
tests demoted unless the query mentions them, duplicates removed).

Each result lists the paths that found it in \`methods\`. If the embedding endpoint fails, search
falls back to the other paths with one warning.

With \`--rerank llm\` (or \`[search] rerank = "llm"\` in either config) the [llm] model of your own config reorders the
offline top \`[search] llm_candidates\` (20), seeing each one's location, name and snippet; scores
stay the offline ones and \`--json\` adds \`rerank\` ("llm", or "offline" when it fell back). If the
model fails or answers nonsense, the offline order stays with one warning. \`--rerank llm\`
without [llm] configured is a usage error; \`rerank = "llm"\` in a repository's vlt.toml without it
is ignored with a warning.

With \`--files\` it ranks files instead of chunks — the files a request in words is about, the
ones to read or change — fusing three paths: today's code (the search above, a file scoring as its
best chunk), HEAD's history (past commits whose messages resemble the query vote for the files they
changed: one-file commits count more than sweeping ones) and co-change (files that changed together
with the strongest candidates). Each path's weight depends on how sure it is for this query, so a
path that matches many files alike moves the result little. Each file comes with its best chunks and
the past commits that support it; \`--paths\` runs only some of the paths (code, history, cochange).
Only commits reachable from HEAD are used, never other branches.`

  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> "where do we check the password of authenticate_user"', description: 'Prose with an identifier: its definition first.' },
    { command: '<%= config.bin %> <%= command.id %> "retry with backoff" --lang python --path "src/**" --no-tests', description: 'Only Python files under src/, tests excluded.' },
    { command: '<%= config.bin %> <%= command.id %> "how are expired sessions cleaned up" --rerank llm', description: 'Let the configured LLM reorder the top 20 candidates.' },
    { command: '<%= config.bin %> <%= command.id %> "where would I change how retries back off" --files', description: 'The files to change, with their best chunks and the past commits behind them.' },
    {
      command: '<%= config.bin %> <%= command.id %> "fix the streaming renderer when Suspense is nested" --files --json',
      description: 'Print {query, freshness: {treeHash, stale}, files: [{path, language, score, methods: ["code" | "history" | "cochange"], chunks: [{startLine, endLine, name, qualifiedName, kind, snippet}], commits: [{hash, subject, date, author}]}], warnings}.',
    },
    { command: '<%= config.bin %> <%= command.id %> "cookie domain matching" --files --paths history', description: 'Only what similar past commits changed.' },
    {
      command: '<%= config.bin %> <%= command.id %> UserService.login --kind method --json',
      description: 'Print {query, freshness: {treeHash, stale}, results: [{path, startLine, endLine, name, qualifiedName, kind, language, score, methods, snippet}], warnings} (plus rerank: "llm" | "offline" when an LLM rerank was asked for).',
    },
  ]

  static override args = {
    query: Args.string({ description: 'What to look for: words, identifiers, or both.', required: true }),
  }

  static override flags = {
    limit: Flags.integer({ char: 'n', description: 'Number of results.', default: 10, min: 1 }),
    lang: Flags.string({ description: 'Only files of this language.', options: [...SEARCH_LANGUAGES] }),
    path: Flags.string({ description: 'Only paths matching this gitignore-style glob (e.g. "src/**", "*.py").' }),
    kind: Flags.string({ description: 'Only chunks of this kind.', options: [...SEARCH_KINDS] }),
    'no-tests': Flags.boolean({ description: 'Exclude test files (by default they are only ranked lower, unless the query mentions tests).' }),
    files: Flags.boolean({ description: 'Rank files (with their best chunks and supporting past commits) instead of chunks.' }),
    paths: Flags.string({ description: 'With --files: only these paths, comma-separated: code, history, cochange (default all).' }),
    rerank: Flags.string({ description: 'Order results offline, or let the [llm] model reorder the top candidates (default: [search] rerank of the config, else offline).', options: ['offline', 'llm'] }),
  }

  async run(): Promise<SearchResponse | FileSearchResponse> {
    const { args, flags } = await this.parse(CoderagSearch)
    return this.query('search', searchCli, args, flags)
  }
}
