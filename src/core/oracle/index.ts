/**
 * The oracle (issue 4): a question in, an honest cited answer out. Classify the question, run the
 * applicable retrieval paths in parallel (exact definition and reference indexes, code search,
 * notes, threads, agent conversations, git history), drop what is not about the question, merge
 * duplicates, rerank, fit the evidence and a repo-map slice to the token budget, add blame, then
 * answer — with the configured LLM (streamed), or extractively from the evidence itself.
 */
import { performance } from 'node:perf_hooks'
import type { SimpleGit } from 'simple-git'
import { loadConfig, type VltConfig } from '../config/index.js'
import { UsageError, VltError } from '../errors.js'
import { blameRange, lineHistory, messageSearch, openGit, openRepo, shallowBoundary, symbolChanges, type Repo } from '../git/index.js'
import { answerRebuildingDamage, isAggregateDamage, openIndexContext } from '../index/index.js'
import { createLlmClient, LlmUnavailableError, type LlmClient } from '../llm/index.js'
import { citedCodeFiles, diagnosticsOf, LspServers } from '../lsp/index.js'
import { openQueryContextIn, type QueryContext } from '../query/context.js'
import { isTestPath } from '../query/search/index.js'
import { buildRepoMap, countTokens } from '../repomap/index.js'
import { contextBlock, Conversation, openContext, recallAnswer } from '../conversation/index.js'
import { unlessUnwritable } from '../store/index.js'
import { NO_MEMORY, readOnlyTools, type ToolEnv } from '../tools/index.js'
import { defaultAuthor } from '../threads/index.js'
import type { Candidate } from './candidate.js'
import { round } from './candidate.js'
import { classifyQuestion, withDefinedNames, type Classification } from './classify.js'
import { definitionPath, localizationPath, referencesPath, searchPath } from './code-paths.js'
import { extractiveAnswer, noEvidenceAnswer } from './extractive.js'
import { FileLines } from './file-lines.js'
import { commitCandidate } from './git-context.js'
import { historyPath, threadsPath, vaultPath } from './knowledge-paths.js'
import { runAgent, type AgentSpend } from './agent.js'
import { ANSWER_TOKENS, buildMessages } from './llm-answer.js'
import { isBehaviourQuestion, rankCandidates, type Ranked } from './rank.js'
import { questionTerms } from './relevance.js'
import { absentFromText, missingNote, missingSymbols, type MissingSymbol } from './missing-symbols.js'
import { logSession } from './session-log.js'
import { testCandidates } from './test-files.js'
import { ORACLE_SOURCES, type OracleAgentTrace, type OracleOptions, type OracleResponse, type OracleSource, type OracleSourceName, type OracleTraces, type RoleUsage } from './types.js'

export { classifyQuestion, type Classification } from './classify.js'
export { sessionThreadName } from './session-log.js'
/** The agent loop, for the Librarian's own run over its own tools. */
export { runAgent, type AgentSpend } from './agent.js'
export {
  ORACLE_SOURCES,
  type AgentStop,
  type OracleAgentTrace,
  type OracleOptions,
  type OracleResponse,
  type OracleSource,
  type OracleSourceName,
  type OracleStage,
  type OracleToolCall,
  type OracleTraces,
  type QueryType,
  type RoleUsage,
} from './types.js'

export const DEFAULT_MAX_TOKENS = 16_000
/** Share of the budget the repo-map slice may take, and its ceiling. */
const MAP_SHARE = 0.1
const MAP_MAX_TOKENS = 1024
/** No single piece of evidence may take more than this share of the budget. */
const SOURCE_SHARE = 0.25
/** Code ranges blamed, and (for history questions) followed through `git log -L`. */
const BLAMED = 6
const LINE_HISTORIES = 2

/**
 * Answers `asked` from the sources wanted. Damage a source finds in the stored symbol table or graph
 * is no partial answer: the question is asked once more over the rebuilt index (index/damage.ts,
 * one warning line), or, when the caller gave its own context (`queryContext`), thrown for the
 * caller to drop it and ask again.
 */
export async function askOracle(cwd: string, asked: string, options: OracleOptions = {}): Promise<OracleResponse> {
  if (options.queryContext) return answerQuestion(cwd, asked, options)
  return answerRebuildingDamage(() => answerQuestion(cwd, asked, options))
}

async function answerQuestion(cwd: string, asked: string, options: OracleOptions): Promise<OracleResponse> {
  const started = performance.now()
  if (asked.trim() === '') throw new UsageError('the question is empty')
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS
  if (!Number.isInteger(maxTokens) || maxTokens < 256) throw new UsageError(`--max-tokens must be an integer ≥ 256, not ${maxTokens}`)
  const wanted = new Set<OracleSourceName>(options.sources ?? ORACLE_SOURCES)
  const warnings: string[] = []
  const warn = (message: string): void => {
    warnings.push(message)
    options.warn?.(message)
  }
  // The code source's index context reads the repository; the other sources share that reading.
  const index = wanted.has('code') ? await openIndexContext(cwd) : null
  const repo = index?.repo ?? (await openRepo(cwd))
  // With [lsp] enabled, one set of language servers serves the whole question (the diagnostics of the cited files and
  // the agent's tools): the caller's kept ones, else servers started on first need and killed once the answer is done.
  const ownServers = options.lsp === undefined && index?.config.lsp.enabled && repo.root !== null ? new LspServers(repo.root) : undefined
  const servers = options.lsp ?? ownServers
  try {
    // The conversation this question continues: "it" means what it talked about last, and the answer joins it.
    const context = await continuedContext(repo, options, warn)
    const expanded = context?.expandQuery(asked) ?? { query: asked }
    const question = expanded.query
    const recall = context ? recallAnswer(context.state, question) : undefined
    const cls = classifyQuestion(question)
    const terms = questionTerms(cls.searchText)
    const behaviour = isBehaviourQuestion(question)
    const traces: OracleTraces = {
      classification: { queryType: cls.queryType, symbol: cls.symbol, searchText: cls.searchText },
      paths: [],
      decisions: [],
      budget: { maxTokens, used: 0, repoMap: 0, sources: 0, dropped: 0 },
    }
    const files = new FileLines(repo.root)
    const git = wanted.has('git') && repo.root !== null && repo.head.commit !== null ? openGit(repo.root) : null
    if (wanted.has('git') && !git) warn('git: skipped (no commits or no working tree)')
    const boundary = shallowBoundary(repo)
    if (git && boundary.size > 0) {
      warn(
        `note: this is a shallow clone: git history stops at ${boundary.size} boundary commit(s), and blame and log credit them with every older line and change. ` +
          'That is not authorship: such lines and commits are marked as the boundary (`git fetch --unshallow` fetches the rest)',
      )
    }

    const run = async (name: string, task: () => Promise<Candidate[] | null>): Promise<Candidate[]> => {
      try {
        const found = await task()
        if (found === null) {
          // A source the repository never set up (no threads, no ingested history) is no fault to
          // report on every answer: it is listed in the warnings and traces, not told.
          warnings.push(`${name}: skipped (not initialised)`)
          traces.paths.push({ path: name, results: [], note: 'not initialised' })
          return []
        }
        traces.paths.push({ path: name, results: found.map((c) => ({ sourcePath: c.source.sourcePath, score: c.source.score, relevance: round(c.relevance) })) })
        return found
      } catch (error) {
        if (!(error instanceof Error) || isAggregateDamage(error)) throw error
        if (error instanceof UsageError && name.startsWith('code')) throw error
        warn(`${name}: skipped (${error.message.split('\n')[0]})`)
        traces.paths.push({ path: name, results: [], note: error.message })
        return []
      }
    }

    let qctx: QueryContext | null = null
    /** Names the question gives that the code has not: said first, whatever the evidence. */
    let missing: MissingSymbol[] = []
    let claimed: string[] = []
    const code = index
      ? (options.queryContext?.() ?? openQueryContextIn(index, { warn, progress: options.progress })).then((opened) => (qctx = opened))
      : Promise.resolve(null)
    code.catch(() => {})
    // The question with the words the index defines as its symbols ("when was setupmethod added"): the code and git paths ask about them.
    const definedNames = code.then((opened) => (opened ? withDefinedNames(cls, question, (name) => opened.aggregates.symbols.byName(name).length > 0) : cls))
      .catch((error: unknown) => {
        if (isAggregateDamage(error)) throw error
        return cls
      })
    // Damage is thrown where the code paths await it; a question that stops before then leaves it unheard.
    definedNames.catch(() => {})
    const codePaths = async (): Promise<Candidate[]> => {
      const opened = await code
      if (!opened) return []
      const named = await definedNames
      claimed = claimedNames(cls)
      missing = await absentFromText(opened.index.repo, missingSymbols(opened, claimed))
      const symbol = named.symbol
      traces.classification.symbol = symbol
      const paths: Array<Promise<Candidate[]>> = []
      if (symbol) paths.push(run('code:definition', async () => definitionPath(opened, symbol, files)))
      if (symbol && cls.queryType === 'references') paths.push(run('code:references', async () => referencesPath(opened, symbol, files)))
      paths.push(run('code:search', async () => {
        const found = await searchPath(opened, named, terms, options.explain === true)
        for (const warning of found.warnings) warn(`code: ${warning}`)
        if (found.explain) traces.codeSearch = found.explain
        return found.candidates
      }))
      // A question in words (no symbol asked about): the files it is about, with the commits behind them.
      if (cls.queryType === 'conceptual') {
        paths.push(run('code:files', async () => {
          const found = await localizationPath(opened, cls, terms, wanted.has('git'), boundary)
          for (const warning of found.warnings) warn(`code: ${warning}`)
          return found.candidates
        }))
      }
      return (await Promise.all(paths)).flat()
    }
    const historyQuestion = cls.queryType === 'history'
    options.stage?.('searching')
    const gathered = await Promise.all([
      index ? codePaths() : [],
      wanted.has('vault') ? run('vault', () => vaultPath(cwd, cls.searchText, terms)) : [],
      wanted.has('threads') ? run('threads', () => threadsPath(repo.root ?? repo.gitDir, repo.vltDir, cls.searchText, terms, warn)) : [],
      wanted.has('history') ? run('history', () => historyPath(cwd, cls.searchText, terms, [])) : [],
      git && historyQuestion ? run('git:pickaxe', async () => {
        const { symbol } = await definedNames
        return symbol ? pickaxeCandidates(git, symbol, asksOrigin(question), terms, boundary) : []
      }) : [],
      git && historyQuestion ? run('git:message', async () => messageCandidates(git, cls, terms, boundary)) : [],
    ])
    let candidates = gathered.flat()

    // Evidence that depends on what the first paths found: the history of the cited lines, and the
    // tests exercising the cited code.
    let ranked = rankCandidates(candidates, terms, behaviour, cls.queryType, [])
    if (git && historyQuestion) {
      options.stage?.('history')
      const ranges = historyRanges(candidates, ranked, (await definedNames).symbol !== null, LINE_HISTORIES)
      candidates = candidates.concat(await run('git:lines', async () => lineCandidates(git, ranges, terms, boundary)))
    }
    if (qctx) candidates = candidates.concat(await run('code:tests', async () => testCandidates(qctx!, ranked)))
    ranked = rankCandidates(candidates, terms, behaviour, cls.queryType, traces.decisions)
    ranked = dropTestsAlone(ranked, question, traces)

    const { sources, repoMapSlice } = assemble(ranked, qctx, maxTokens, traces)
    if (git) options.stage?.('blame')
    if (git) await addBlame(git, sources, boundary, warn)
    options.signal?.throwIfAborted()
    // With [lsp] enabled, the language servers' diagnostics of the cited code files (src/core/lsp).
    const lsp = index?.config.lsp
    const diagnostics = lsp?.enabled && qctx && repo.root ? await diagnosticsOf(citedCodeFiles(sources, (path) => qctx!.files.get(path)?.language), { root: repo.root, servers, timeoutMs: lsp.timeoutMs, idleMs: lsp.idleS * 1000, warn }) : []

    options.stage?.('answering')
    const said = { absent: missingOpening(missing, claimed), recall, conversation: context ? contextBlock(context.state) : '' }
    const answer = await synthesize(repo, index?.config, qctx, question, cls, sources, repoMapSlice, [...wanted], options, warn, said, servers)
    const response: OracleResponse = {
      answer: answer.text,
      queryType: cls.queryType,
      sources,
      repoMapSlice,
      model: answer.model,
      tokensUsed: answer.tokensUsed,
      costCents: answer.costCents,
      durationMs: 0,
      warnings,
      shallow: boundary.size > 0,
      ...(missing.length > 0 ? { missingSymbols: missing } : {}),
      ...(diagnostics.length > 0 ? { diagnostics } : {}),
      ...(answer.agent ? { agent: answer.agent } : {}),
      ...(answer.usageByRole ? { usageByRole: answer.usageByRole } : {}),
    }
    if (options.explain) response.traces = traces
    if (context) {
      context.record({ tool: 'ask_oracle', via: options.via ?? 'cli', input: { question }, tokens: countTokens(response.answer), question, answer: response.answer, model: response.model, ...remembered(question, response) })
      await context.flush()
      const { state } = context
      response.context = { name: context.name, exchanges: state.exchanges.length + state.compressedExchanges, ...(expanded.resolved ? { resolved: expanded.resolved } : {}) }
    }
    if (!options.noLog) {
      try {
        const author = options.author ?? (await defaultAuthor(repo))
        // A `.vlt/` that cannot be written is told once, by the query or the command (store/fault.ts).
        await unlessUnwritable(() => logSession(repo.vltDir, question, response, { author, symbol: cls.symbol, logHistory: options.logHistory }))
      } catch (error) {
        if (!(error instanceof VltError)) throw error
        warn(`session log: ${error.message}`)
      }
    }
    response.durationMs = Math.round(performance.now() - started)
    return response
  } finally {
    ownServers?.close()
  }
}

/** "When was X added", "who introduced X": the question is about the commit that brought the name in. */
function asksOrigin(question: string): boolean {
  return /\b(?:added|introduced|created|written|wrote|first|origin|originally)\b/i.test(question)
}

/** The score of the commit that introduced a symbol when the question asks about its changes: below its definition's history. */
const LATE = 0.3

/**
 * The commits that added or removed the symbol, newest first — except the one that introduced it
 * (the oldest), which leads when the question asks for the origin and comes last otherwise: "why
 * was X changed" is about its changes (its definition's lines come before it), not its birth.
 */
async function pickaxeCandidates(git: SimpleGit, symbol: string, origin: boolean, terms: readonly string[], boundary: ReadonlySet<string>): Promise<Candidate[]> {
  const commits = await symbolChanges(git, symbol, boundary)
  const first = commits.at(-1)
  return commits.map((commit, i) => {
    const score = commit !== first ? 1 - (i + 1) / (commits.length + 1) : origin ? 1 : LATE
    return commitCandidate(commit, 'pickaxe', score, terms)
  })
}

/** Commits whose messages mention the question's words, best covered first. */
async function messageCandidates(git: SimpleGit, cls: Classification, terms: readonly string[], boundary: ReadonlySet<string>): Promise<Candidate[]> {
  const words = cls.searchText.split(/[^\w$]+/).filter((word) => word.length >= 3 && questionTerms(word).length > 0)
  const commits = await messageSearch(git, [...new Set([...words, ...cls.identifiers])], boundary)
  return commits.map((commit, i) => commitCandidate(commit, 'message', 1 - i / (commits.length + 1), terms))
}

async function lineCandidates(
  git: SimpleGit,
  ranges: Array<{ path: string; start: number; end: number }>,
  terms: readonly string[],
  boundary: ReadonlySet<string>,
): Promise<Candidate[]> {
  const histories = await Promise.all(ranges.map((range) => lineHistory(git, range.path, range.start, range.end, boundary)))
  return histories.flatMap((commits) => commits.map((commit, i) => commitCandidate(commit, 'lines', 0.9 - i / (commits.length + 1), terms)))
}

/** Benchmarks and fixtures hold sample inputs (questions, queries) the way tests do. */
const SAMPLE_DATA_PATH = /(^|\/)(bench|benchmarks?|fixtures?)\//

/**
 * Tests, benchmarks and fixtures illustrate code; when they are the only evidence and the question
 * is not about them, they matched sample data (fixture strings, benchmark questions), not an answer.
 */
function dropTestsAlone(ranked: Ranked[], question: string, traces: OracleTraces): Ranked[] {
  const isTest = ({ candidate }: Ranked): boolean =>
    candidate.range !== undefined && candidate.source.sourceType === 'code' && (isTestPath(candidate.range.path) || SAMPLE_DATA_PATH.test(candidate.range.path))
  if (ranked.length === 0 || !ranked.every(isTest) || /\b(?:tests?|spec|specs|tested|testing|bench(?:mark)?s?|fixtures?)\b/i.test(question)) return ranked
  for (const { candidate, score } of ranked) traces.decisions.push({ sourcePath: candidate.source.sourcePath, score: round(score), decision: 'irrelevant' })
  return []
}

/**
 * The code whose line history a history question gets: when it names a symbol, the symbol's
 * definitions as the definition index found them (the commits that changed X are those that changed
 * its lines, followed through renames by `git log -L`; a search hit's lines changed other code, and
 * a name the index does not define is left to the pickaxe); for a question in words, the best code
 * ranges.
 */
function historyRanges(candidates: readonly Candidate[], ranked: readonly Ranked[], namesSymbol: boolean, count: number): Array<{ path: string; start: number; end: number }> {
  const code = namesSymbol
    ? candidates.filter((candidate) => candidate.source.metadata.role === 'definition')
    : ranked.map(({ candidate }) => candidate).filter((candidate) => candidate.source.sourceType === 'code')
  return code.filter((candidate) => candidate.range && !isTestPath(candidate.range.path)).slice(0, count).map((candidate) => candidate.range!)
}

/**
 * The context under the budget: a repo-map slice focused on the cited files, then the evidence
 * best first, each piece cut to a share of the budget so one huge file cannot crowd out the rest.
 */
function assemble(ranked: readonly Ranked[], qctx: QueryContext | null, maxTokens: number, traces: OracleTraces): { sources: OracleSource[]; repoMapSlice: string } {
  let repoMapSlice = ''
  const focus = [...new Set(ranked.filter(({ candidate }) => candidate.source.sourceType === 'code').map(({ candidate }) => candidate.range!.path))].slice(0, 5)
  if (qctx && focus.length > 0) {
    const map = buildRepoMap(qctx, { tokens: Math.min(MAP_MAX_TOKENS, Math.floor(maxTokens * MAP_SHARE)), focus })
    repoMapSlice = map.map
    traces.budget.repoMap = map.tokens
  }
  let left = maxTokens - traces.budget.repoMap
  const cap = Math.floor(maxTokens * SOURCE_SHARE)
  const sources: OracleSource[] = []
  for (const { candidate, score } of ranked) {
    let source: OracleSource = { ...candidate.source, score: round(score) }
    if (source.tokenCount > cap) source = truncate(source, cap)
    if (source.tokenCount > left) {
      traces.decisions.push({ sourcePath: source.sourcePath, score: source.score, decision: 'over-budget' })
      traces.budget.dropped++
      continue
    }
    left -= source.tokenCount
    traces.budget.sources += source.tokenCount
    traces.decisions.push({ sourcePath: source.sourcePath, score: source.score, decision: 'kept' })
    sources.push(source)
  }
  traces.budget.used = traces.budget.repoMap + traces.budget.sources
  return { sources, repoMapSlice }
}

function truncate(source: OracleSource, tokens: number): OracleSource {
  const chars = tokens * 4
  const content = source.content.slice(0, source.content.lastIndexOf('\n', chars) > 0 ? source.content.lastIndexOf('\n', chars) : chars)
  return { ...source, content, tokenCount: Math.ceil(content.length / 4), metadata: { ...source.metadata, truncated: true } }
}

/** Who last changed each cited code range (the first few; blame costs a git process each). */
async function addBlame(git: SimpleGit, sources: OracleSource[], boundary: ReadonlySet<string>, warn: (message: string) => void): Promise<void> {
  const code = sources.filter((s) => s.sourceType === 'code' && typeof s.metadata.path === 'string').slice(0, BLAMED)
  await Promise.all(code.map(async (source) => {
    const { path, startLine, endLine } = source.metadata as { path: string; startLine: number; endLine: number }
    try {
      source.metadata.blame = await blameRange(git, path, startLine, endLine, boundary)
    } catch (error) {
      // A file not yet committed has no blame; anything else is worth saying.
      if (!/no such path|fatal: file .* has only|no such ref/i.test(String((error as Error).message))) warn(`git blame ${path}: ${(error as Error).message.split('\n')[0]}`)
      source.metadata.blame = []
    }
  }))
}

/** What the answer is told besides the evidence: the missing-symbols note and the recall (said first, by us), and the conversation so far (for the model). */
interface Said {
  absent: string | undefined
  recall: string | undefined
  conversation: string
}

/** The context a question continues: the one given, or opened as chosen; none when the caller wants none. */
async function continuedContext(repo: Repo, options: OracleOptions, warn: (message: string) => void): Promise<Conversation | undefined> {
  const choice = options.context
  if (choice === undefined) return undefined
  const context = choice instanceof Conversation ? choice : await openContext(repo.vltDir, repo.root ?? repo.gitDir, { ...choice, makeCurrent: true, warn, env: options.env })
  await context.refresh()
  return context
}

/**
 * What the context keeps of an answer besides its text: the top source as an insight, the code
 * files cited, and the symbols whose definitions it cites, so that a follow-up's "it" means them.
 */
function remembered(question: string, response: OracleResponse): { summary: string; insights: string[]; symbols: string[]; files: string[] } {
  const top = response.sources[0]
  const defined = response.sources.filter((s) => s.retrievalMethod === 'symbol' && typeof s.metadata.name === 'string').map((s) => s.metadata.name as string)
  return {
    summary: `answered (${response.queryType}) from ${response.sources.length} source(s)`,
    insights: top ? [`${question} → ${top.sourcePath}`] : [],
    symbols: [...new Set(defined)].slice(0, 2),
    files: [...new Set(response.sources.filter((s) => s.sourceType === 'code').map((s) => s.sourcePath.replace(/:\d+(-\d+)?$/, '')))].slice(0, 5),
  }
}

interface Answer {
  text: string
  model: string
  tokensUsed: number
  costCents: number
  agent?: OracleAgentTrace
  usageByRole?: OracleResponse['usageByRole']
}

/** Cap of one tool result given to the agent's model, in tokens. */
const TOOL_RESULT_TOKENS = 4000

async function synthesize(
  repo: Repo,
  loadedConfig: VltConfig | undefined,
  qctx: QueryContext | null,
  question: string,
  cls: Classification,
  sources: OracleSource[],
  repoMapSlice: string,
  consulted: string[],
  options: OracleOptions,
  warn: (message: string) => void,
  said: Said,
  servers: LspServers | undefined,
): Promise<Answer> {
  const { absent } = said
  const recalled = said.recall === undefined ? '' : `${said.recall}\n\n`
  const extractive = (): Answer => ({ text: recalled + extractiveAnswer(cls.queryType, cls.symbol, sources, absent), model: 'extractive', tokensUsed: 0, costCents: 0 })
  // Nothing to cite: no model is asked, so nothing can be made up.
  if (sources.length === 0) return { text: recalled + noEvidenceAnswer(question, consulted, absent), model: 'extractive', tokensUsed: 0, costCents: 0 }
  const config = loadedConfig ?? (await loadConfig(repo.root ?? repo.gitDir))
  let clients: { agent: LlmClient; answer: LlmClient } | null
  try {
    const overrides = { model: options.model, env: options.env }
    const answer = createLlmClient(config.llm, { ...overrides, role: 'answer' })
    clients = answer && { answer, agent: createLlmClient(config.llm, { ...overrides, role: 'agent' })! }
  } catch (error) {
    if (!(error instanceof VltError)) throw error
    warn(`warning: ${error.message}; answering extractively`)
    return extractive()
  }
  if (!clients) return extractive()
  // The tools read the code index this question opened; without it (--source without code) the model answers from the evidence alone.
  const tools = qctx ? readOnlyTools(oracleToolEnv(repo, qctx, servers, warn)) : []
  try {
    // Said first, by us rather than the model: it cannot be talked out of it.
    const opening = recalled + (absent === undefined ? '' : `${absent}\n\n`)
    if (opening) options.onText?.(opening)
    const result = await runAgent({
      messages: buildMessages(question, cls.queryType, sources, repoMapSlice, tools.length > 0, absent, said.conversation),
      tools,
      memory: NO_MEMORY,
      agent: clients.agent,
      answer: clients.answer,
      bounds: { maxTurns: config.llm.maxTurns, tokenBudget: config.llm.agentTokens, deadlineMs: config.llm.agentTimeoutMs },
      toolResultTokens: TOOL_RESULT_TOKENS,
      maxAnswerTokens: ANSWER_TOKENS,
      onText: options.onText,
      onProgress: options.onProgress,
      signal: options.signal,
      warn,
    })
    const usageByRole: NonNullable<OracleResponse['usageByRole']> = {}
    for (const role of ['agent', 'answer'] as const) if (result.spent[role].requests > 0) usageByRole[role] = roleUsage(result.spent[role], config.llm.prices)
    const roles = Object.values(usageByRole)
    return {
      text: opening + result.text,
      model: clients.answer.model,
      tokensUsed: roles.reduce((sum, role) => sum + role.inputTokens + role.outputTokens, 0),
      costCents: round4(roles.reduce((sum, role) => sum + (role.costCents === 'unknown' ? 0 : role.costCents), 0)),
      agent: { turns: result.turns, toolCalls: result.toolCalls, stopped: result.stopped },
      usageByRole,
    }
  } catch (error) {
    if (!(error instanceof LlmUnavailableError)) throw error
    warn(`warning: ${error.message}; answering extractively`)
    return extractive()
  }
}

/** What the answer opens with when the question names what the code has not, and how to take the rest. */
function missingOpening(missing: readonly MissingSymbol[], claimed: readonly string[]): string | undefined {
  if (missing.length === 0) return undefined
  const rest = missing.length < claimed.length ? 'What follows is the evidence for the rest of the question.' : "What follows is only loosely related, found by the question's other words."
  return `${missingNote(missing)} ${rest}`
}

/**
 * The names a question claims the code has: identifiers only code can be, and the symbol a
 * definition or references question frames ("where is Frobnicator used") unless it is a plain word.
 */
function claimedNames(cls: Classification): string[] {
  const framed = (cls.queryType === 'definition' || cls.queryType === 'references') && cls.symbol !== null && /[A-Z_.]|::/.test(cls.symbol) ? [cls.symbol] : []
  return [...new Set([...cls.identifiers, ...framed])]
}

/**
 * The tools' view of the index this question opened: no conversation, results capped for a model;
 * definitions carry the language servers' hover types with [lsp] enabled.
 */
function oracleToolEnv(repo: Repo, qctx: QueryContext, servers: LspServers | undefined, warn: (message: string) => void): ToolEnv {
  return {
    index: { root: repo.root ?? repo.gitDir, repo, get: async () => qctx, ...(servers ? { lsp: servers } : {}) },
    maxTokens: TOOL_RESULT_TOKENS,
    clientId: () => 'oracle',
    warn,
  }
}

/** What a role spent: the cost the server reported, else the configured price, else unknown. */
export function roleUsage(spent: AgentSpend, prices: VltConfig['llm']['prices']): RoleUsage {
  const { model, requests, inputTokens, outputTokens, costCents } = spent
  const price = prices[model]
  const priced = price ? ((inputTokens * price.input + outputTokens * price.output) / 1e6) * 100 : null
  const cost = costCents ?? priced
  return { model, requests, inputTokens, outputTokens, costCents: cost === null ? 'unknown' : round4(cost) }
}

/** Cents to four places: sums of float prices print as 0.67, not 0.6699999999999999. */
function round4(cents: number): number {
  return Math.round(cents * 1e4) / 1e4
}
