import { Args, Flags } from '@oclif/core'
import { terminalProgress } from '../core/cli/progress.js'
import { VltCommand } from '../core/cli/vlt-command.js'
import { quotedName, visibleText } from '../core/display/index.js'
import { contextTtlDays, deleteContext, listContexts, validateContextName, type ContextListing } from '../core/conversation/index.js'
import { UsageError, VltError } from '../core/errors.js'
import { openRepo } from '../core/git/index.js'
import { askOracle, DEFAULT_MAX_TOKENS, ORACLE_SOURCES, type OracleResponse, type OracleSourceName } from '../core/oracle/index.js'
import { diagnosticLine } from '../core/lsp/index.js'

export default class Oracle extends VltCommand {
  static override summary = 'Answer a question about the repository from its code, notes, threads, agent history and git, citing the evidence.'
  static override description = `Classifies the question (definition, references, history, conceptual), runs the applicable
retrieval paths in parallel — the exact definition and reference indexes for a symbol the question
names, code search, notes, threads, agent conversations, git history — keeps only evidence that is
about the question, merges duplicates, reranks, and fits it with a repo-map slice into the token
budget. Cited code ranges get their blame; history questions get the commits that touched the
symbol or lines, with their messages. In a shallow clone, git credits the boundary commit with all
older lines and changes: those are marked as the boundary, never as authorship (--json: shallow).

With [llm] configured in your own config (~/.config/git-vlt/config.toml, or the file GIT_VLT_CONFIG
names; a repository's vlt.toml cannot set it) the answer is written by the model and streamed;
otherwise it is the evidence itself, grouped and cited, each piece quoted so that no text from the
repository can pass for the answer. When nothing relevant is found, it says so. A question that
names an identifier the code neither defines nor references ("where is UserService used" where there
is none) is told so first, with the nearest defined names (by spelling, then by shared words), and
whatever follows is labelled as loosely related (--json: missingSymbols [{name, nearest}]).

The model starts from that evidence and may call tools to look further — search_code,
find_definition, find_references, get_repo_map, read_file_range, git_log, git_blame, git_show,
search_notes, search_history, thread_read (the MCP server's tools, read-only) — several at once,
each shown on a terminal as it runs. It stops after llm.max_turns requests (default 10),
llm.agent_tokens tokens or llm.agent_timeout_ms, and then answers from what it has and says so.
[llm.models] may give the tool-calling turns (agent) and the answer (answer) models of their own.
--json adds, when a model answered, agent: {turns, toolCalls: [{id, name, arguments, result,
status (ok, error, timeout), durationMs}], stopped (null, max_turns, token_budget, deadline)} and
usageByRole: {agent, answer: {model, requests, inputTokens, outputTokens, costCents (a number, or
"unknown" when neither the server nor [llm.prices] gives one)}}. Any failure of the model falls
back to the offline answer with a warning.
The oracle keeps a conversation context per name in .vlt/contexts/ (this clone's, never committed),
shared with \`git vlt mcp\` and \`git vlt ui\`: each question continues the current one (\`default\`
at first) unless --new starts a fresh one or --context NAME picks (or creates) one, which then
becomes current. It keeps the recent questions and answers verbatim (secrets redacted), a summary
of older ones, the decisions stated ("we decided to …") and the symbols and files talked about. A
follow-up's "it" or "that function" means the symbol talked about last; the model reads the
summary and decisions; "what did we decide about X" is answered from them first, each line cited
as [context NAME#EXCHANGE]. --list shows the contexts. --json adds context: {name, exchanges,
resolved?}.
Each question and answer is appended to the thread oracle-session-YYYY-MM-DD unless --no-log.
That thread is committed: secrets are redacted from it, and excerpts of agent conversations
(private transcripts) are left out of it unless --log-history.`

  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> "where is openQueryContext defined"', description: 'A definition question: the exact file:line first.' },
    { command: '<%= config.bin %> <%= command.id %> "why was the lock timeout changed" --source code,git', description: 'A history question over code and commits only.' },
    { command: '<%= config.bin %> <%= command.id %> "what did we decide about retries" --log-history', description: 'Also log the agent-conversation excerpts the answer quotes in the session thread.' },
    { command: '<%= config.bin %> <%= command.id %> "who calls it"', description: 'A follow-up: "it" is the symbol the last answer of the current context was about.' },
    { command: '<%= config.bin %> <%= command.id %> "what did we decide about the cache" --context perf', description: 'Continue (or start) the context named perf and ask what it decided.' },
    { command: '<%= config.bin %> <%= command.id %> "where are locks taken" --new', description: 'Start a fresh context (named after the time) and make it current.' },
    { command: '<%= config.bin %> <%= command.id %> --list --json', description: 'The contexts: [{name, current, exchanges, compressedExchanges, decisions, status, lastModel, updated}].' },
    { command: '<%= config.bin %> <%= command.id %> --delete perf', description: 'Delete the context named perf (--json: {deleted}).' },
    {
      command: '<%= config.bin %> <%= command.id %> "how are blob records written" --json',
      description:
        'Print {answer, queryType, sources: [{sourceType, sourcePath, retrievalMethod, score, content, tokenCount, metadata}], repoMapSlice, model, tokensUsed, costCents, durationMs, warnings, shallow}, and with a model agent and usageByRole.',
    },
  ]

  static override args = {
    question: Args.string({ description: 'The question, in plain words (required unless --list).' }),
  }

  static override flags = {
    source: Flags.string({ description: `Sources to consult, comma-separated (${ORACLE_SOURCES.join(',')}).`, default: ORACLE_SOURCES.join(',') }),
    explain: Flags.boolean({ description: "Print each retrieval path's raw results, the fusion and rerank decisions, and the context budget use." }),
    'max-tokens': Flags.integer({ description: 'Token budget of the evidence given to the answer.', default: DEFAULT_MAX_TOKENS, min: 256 }),
    model: Flags.string({ description: 'The LLM model (overrides llm.model of your config).' }),
    'no-log': Flags.boolean({ description: 'Do not append the question and answer to the oracle-session thread.' }),
    'log-history': Flags.boolean({
      description: 'Log the agent-conversation excerpts the answer quotes in the oracle-session thread too (left out by default: the thread is committed, transcripts are private).',
      exclusive: ['no-log'],
    }),
    author: Flags.string({ char: 'a', description: 'Author of the session entry (default: git config user.name).' }),
    context: Flags.string({ description: 'Continue the conversation context NAME (created when new) and make it current.' }),
    new: Flags.boolean({ description: 'Start a fresh conversation context (with --context: start that one afresh) and make it current.' }),
    list: Flags.boolean({ description: 'List the conversation contexts instead of asking.', exclusive: ['context', 'new'] }),
    delete: Flags.string({ description: 'Delete the conversation context NAME instead of asking (the current one: `default` becomes current).', exclusive: ['context', 'new', 'list'] }),
  }

  async run(): Promise<OracleResponse | ContextListing[] | { deleted: string }> {
    const { args, flags } = await this.parse(Oracle)
    const json = this.jsonEnabled()
    if (flags.delete !== undefined) {
      if (args.question !== undefined) throw new UsageError('--delete takes no question')
      validateContextName(flags.delete)
      const repo = await openRepo(this.workDir(flags))
      if (!(await deleteContext(repo.vltDir, flags.delete))) throw new VltError(`no conversation context named ${quotedName(flags.delete)} (git vlt oracle --list shows them)`)
      this.log(`Deleted the conversation context ${quotedName(flags.delete)}.`)
      return { deleted: flags.delete }
    }
    if (flags.list) {
      if (args.question !== undefined) throw new UsageError('--list takes no question')
      return this.list(this.workDir(flags), json)
    }
    if (args.question === undefined) throw new UsageError('missing the question (or --list)')
    if (flags.context !== undefined) validateContextName(flags.context)
    let streamed = false
    const response = await askOracle(this.workDir(flags), args.question, {
      context: { name: flags.context, fresh: flags.new },
      sources: parseSources(flags.source),
      explain: flags.explain,
      maxTokens: flags['max-tokens'],
      model: flags.model,
      noLog: flags['no-log'],
      logHistory: flags['log-history'],
      author: flags.author,
      progress: json ? undefined : terminalProgress(),
      onProgress: json || !process.stderr.isTTY ? undefined : (line) => process.stderr.write(`${visibleText(line)}\n`),
      warn: (message) => this.note(message),
      onText: json
        ? undefined
        : (delta) => {
            streamed = true
            process.stdout.write(visibleText(delta))
          },
    })
    if (!json) {
      if (streamed && response.model !== 'extractive') process.stdout.write('\n')
      else this.log(response.answer)
      // With [lsp] enabled: what the language servers report on the cited files, as compilers print it.
      if (response.diagnostics?.length) this.log(['', 'Diagnostics of the cited files:', ...response.diagnostics.map(diagnosticLine)].join('\n'))
      if (flags.explain) this.log(`\n${formatExplain(response)}`)
    }
    return response
  }

  private async list(cwd: string, json: boolean): Promise<ContextListing[]> {
    const repo = await openRepo(cwd)
    const listed = await listContexts(repo.vltDir, { ttlDays: contextTtlDays(), warn: (message) => this.note(message) })
    if (!json) {
      if (listed.length === 0) this.log('No conversation context yet: the first question starts `default`.')
      for (const c of listed) this.log(`${c.current ? '*' : ' '} ${quotedName(c.name)}  ${c.exchanges + c.compressedExchanges} exchange(s), ${c.decisions} decision(s), ${c.status}, updated ${c.updated}${c.lastModel ? `, last model ${c.lastModel}` : ''}`)
    }
    return listed
  }
}

function parseSources(value: string): OracleSourceName[] {
  const names = value.split(',').map((s) => s.trim()).filter(Boolean)
  const unknown = names.filter((name) => !(ORACLE_SOURCES as readonly string[]).includes(name))
  if (unknown.length > 0 || names.length === 0) throw new UsageError(`--source takes ${ORACLE_SOURCES.join(', ')} (comma-separated), not ${JSON.stringify(value)}`)
  return names as OracleSourceName[]
}

function formatExplain(response: OracleResponse): string {
  const traces = response.traces!
  const lines = [`## Explain`, `classification: ${traces.classification.queryType}; symbol: ${traces.classification.symbol ?? '-'}; searched: ${JSON.stringify(traces.classification.searchText)}`]
  for (const path of traces.paths) {
    lines.push(`\n### path ${path.path}: ${path.results.length} result(s)${path.note ? ` — ${path.note}` : ''}`)
    for (const result of path.results) lines.push(`  ${result.score.toFixed(3)}  relevance ${result.relevance?.toFixed(2) ?? '-'}  ${quotedName(result.sourcePath)}`)
  }
  if (traces.codeSearch) {
    lines.push('\n### code search fusion (top 10)')
    for (const fused of traces.codeSearch.fusion.slice(0, 10)) lines.push(`  ${fused.score.toFixed(4)}  ${quotedName(fused.path)}#${fused.chunkIndex}  ranks ${JSON.stringify(fused.ranks)}`)
  }
  lines.push('\n### fusion and rerank decisions')
  for (const decision of traces.decisions) lines.push(`  ${decision.decision.padEnd(11)} ${decision.score.toFixed(3)}  ${quotedName(decision.sourcePath)}${decision.by ? ` (merged into ${quotedName(decision.by)})` : ''}`)
  const b = traces.budget
  lines.push(`\n### context budget\n  ${b.used}/${b.maxTokens} tokens: repo map ${b.repoMap}, evidence ${b.sources}; ${b.dropped} piece(s) dropped for budget`)
  return lines.join('\n')
}
