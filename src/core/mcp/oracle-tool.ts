/**
 * ask_oracle: a question answered from every source (code, notes, threads, history, git) with
 * citations — the oracle's answer, never more than the evidence. Pronouns resolve from the
 * conversation ("how does it reach the database?" after find_definition("UserService")).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { askOracle, ORACLE_SOURCES, type OracleSourceName } from '../oracle/index.js'
import { APPENDS, currentFreshness, fitItems, freshnessSchema } from '../tools/index.js'
import { registerVltTool, type McpToolEnv } from './tool-kit.js'

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
    },
    output: {
      question: z.string().describe('As asked (pronouns resolved from the conversation).'),
      answer: z.string(),
      queryType: z.string(),
      sources: z.array(sourceSchema),
      model: z.string(),
      warnings: z.array(z.string()),
      freshness: freshnessSchema,
    },
    // The oracle writes the day's session thread: not read-only, but asking again does no harm.
    annotations: APPENDS,
    run: async (args, conversation) => {
      const question = conversation.expandQuery(args.question).query
      const response = await askOracle(env.index.root, question, { sources: args.sources, warn: env.warn, author: env.clientId() })
      const sources = response.sources.map(({ sourceType, sourcePath, retrievalMethod, score, content, tokenCount }) => ({ sourceType, sourcePath, retrievalMethod, score, content, tokenCount }))
      const kept = fitItems(sources, (source) => source.content, FRAME_TOKENS + Math.ceil(response.answer.length / 4), env.maxTokens)
      const freshness = await currentFreshness(env)
      const cut = kept < sources.length ? [`(${sources.length - kept} more source(s) cut to fit the output cap; their citations are in the answer)`] : []
      return {
        structured: { question, answer: response.answer, queryType: response.queryType, sources: sources.slice(0, kept), model: response.model, warnings: [...response.warnings, ...cut], freshness },
        text: [response.answer, ...response.warnings.map((w) => `warning: ${w}`), ...cut].join('\n'),
        remember: {
          summary: `answered (${response.queryType}) from ${response.sources.length} source(s)`,
          insights: response.sources[0] ? [`${question} → ${response.sources[0].sourcePath}`] : [],
          symbols: [],
          files: [...new Set(response.sources.filter((s) => s.sourceType === 'code').map((s) => s.sourcePath.replace(/:\d+(-\d+)?$/, '')))].slice(0, 5),
        },
      }
    },
  })
}
