/**
 * ask_oracle: a question answered from every source (code, notes, threads, history, git) with
 * citations — the oracle's answer, never more than the evidence, by the same agent loop as
 * `git vlt oracle` when a model is configured. It continues the same oracle context as the CLI:
 * pronouns resolve from it ("how does it reach the database?" after find_definition("UserService")),
 * and the question and answer join it.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { askOracle, ORACLE_SOURCES, type OracleSourceName } from '../oracle/index.js'
import { APPENDS, currentFreshness, fitItems, freshnessSchema } from '../tools/index.js'
import type { Conversation } from '../conversation/index.js'
import { diagnosticLine, type Diagnostic } from '../lsp/index.js'
import { countTokens } from '../repomap/index.js'
import { registerVltTool, type McpToolEnv } from './tool-kit.js'

const roleUsageSchema = z.object({ model: z.string(), requests: z.number(), inputTokens: z.number(), outputTokens: z.number(), costCents: z.union([z.number(), z.literal('unknown')]) })
const toolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.unknown(), status: z.enum(['ok', 'error', 'timeout']), durationMs: z.number() })

const diagnosticSchema = z.object({
  path: z.string(),
  line: z.number().describe('1-based.'),
  column: z.number().describe('0-based.'),
  severity: z.enum(['error', 'warning', 'information', 'hint']),
  message: z.string(),
  source: z.string().optional().describe('The tool that reported it (typescript, Pyright), when it says.'),
})

const sourceSchema = z.object({ sourceType: z.string(), sourcePath: z.string(), retrievalMethod: z.string(), score: z.number(), content: z.string(), tokenCount: z.number() })

/** An answer's citations are short; the evidence text behind them is what the cap has to cut. */
const FRAME_TOKENS = 400

export function registerOracleTool(server: McpServer, env: McpToolEnv): void {
  registerVltTool(server, env, {
    name: 'ask_oracle',
    title: 'Ask the oracle',
    description: 'Answer a question about this repository from code, notes, threads, agent history and git, with citations.',
    input: {
      question: z.string().min(1).max(4000),
      sources: z.array(z.enum(ORACLE_SOURCES as unknown as [OracleSourceName, ...OracleSourceName[]])).optional().describe('Default: all.'),
      context: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/).optional().describe("The conversation context to continue (default: the one `git vlt oracle` continues)."),
    },
    output: {
      question: z.string().describe('As asked (pronouns resolved from the conversation).'),
      answer: z.string(),
      queryType: z.string(),
      sources: z.array(sourceSchema),
      model: z.string(),
      warnings: z.array(z.string()),
      freshness: freshnessSchema,
      context: z.object({ name: z.string(), exchanges: z.number(), resolved: z.string().optional() }).optional().describe('The conversation context the question continued.'),
      usageByRole: z.record(z.string(), roleUsageSchema).optional().describe('When a model answered: tokens and cost by role (agent, answer).'),
      toolCalls: z.array(toolCallSchema).optional().describe("When a model answered: the agent loop's tool calls (results left out)."),
      diagnostics: z.array(diagnosticSchema).optional().describe('With [lsp] enabled (your config) and when the language servers reported some: the diagnostics of the cited code files.'),
    },
    // The oracle writes the day's session thread: not read-only, but asking again does no harm.
    annotations: APPENDS,
    run: async (args, conversation) => {
      // As the oracle will expand it (the wrapper has just re-read the context).
      const question = conversation.expandQuery(args.question).query
      const response = await askOracle(env.index.root, args.question, {
        sources: args.sources,
        warn: env.warn,
        author: env.clientId(),
        context: conversation as Conversation,
        via: `mcp:${env.clientId()}`,
        // The servers find_definition uses: one start per repository, not one per question.
        lsp: env.index.lsp,
        // The server's warm context: a question asked during its warm-up joins that build.
        queryContext: () => env.index.get(),
      })
      const diagnostics = fitDiagnostics(response.diagnostics ?? [], env.maxTokens)
      const sources = response.sources.map(({ sourceType, sourcePath, retrievalMethod, score, content, tokenCount }) => ({ sourceType, sourcePath, retrievalMethod, score, content, tokenCount }))
      const kept = fitItems(sources, (source) => source.content, FRAME_TOKENS + Math.ceil(response.answer.length / 4) + countTokens(diagnostics.lines.join('\n')), env.maxTokens)
      const freshness = await currentFreshness(env)
      const cut = [
        ...(kept < sources.length ? [`(${sources.length - kept} more source(s) cut to fit the output cap; their citations are in the answer)`] : []),
        ...(diagnostics.cut > 0 ? [`(${diagnostics.cut} more diagnostic(s) cut to fit the output cap)`] : []),
      ]
      return {
        structured: {
          question,
          answer: response.answer,
          queryType: response.queryType,
          sources: sources.slice(0, kept),
          model: response.model,
          warnings: [...response.warnings, ...cut],
          freshness,
          ...(response.context ? { context: response.context } : {}),
          ...(response.usageByRole ? { usageByRole: response.usageByRole } : {}),
          ...(response.agent ? { toolCalls: response.agent.toolCalls.map(({ id, name, arguments: input, status, durationMs }) => ({ id, name, arguments: input, status, durationMs })) } : {}),
          ...(response.diagnostics ? { diagnostics: diagnostics.kept } : {}),
        },
        text: [response.answer, ...diagnostics.lines, ...response.warnings.map((w) => `warning: ${w}`), ...cut].join('\n'),
        remember: {
          summary: `answered (${response.queryType}) from ${response.sources.length} source(s)`,
          insights: response.sources[0] ? [`${question} → ${response.sources[0].sourcePath}`] : [],
          symbols: [],
          files: [...new Set(response.sources.filter((s) => s.sourceType === 'code').map((s) => s.sourcePath.replace(/:\d+(-\d+)?$/, '')))].slice(0, 5),
        },
      }
    },
  }, { recordsItself: true })
}

/** Diagnostics take at most this share of the output cap: the answer and its evidence come first. */
const DIAGNOSTICS_SHARE = 0.25

/**
 * The diagnostics that fit their share of the output cap (a file can have hundreds), in the
 * servers' order, and their lines under the answer as compilers print them:
 * `path:line:column: severity: message (source)`.
 */
export function fitDiagnostics(diagnostics: readonly Diagnostic[], maxTokens: number): { kept: Diagnostic[]; lines: string[]; cut: number } {
  const kept = diagnostics.slice(0, fitItems(diagnostics, diagnosticLine, 0, Math.floor(maxTokens * DIAGNOSTICS_SHARE)))
  return { kept, lines: kept.length === 0 ? [] : ['', 'Diagnostics of the cited files:', ...kept.map(diagnosticLine)], cut: diagnostics.length - kept.length }
}
