/**
 * `git vlt doctor`: one check per thing a user would otherwise debug by hand, each with what was
 * found and, when something is wrong, the command or setting that fixes it.
 */
import { loadConfig } from '../config/index.js'
import { openRepo } from '../git/index.js'
import { checkEmbedding, checkLlm } from './endpoints.js'
import { checkGit, checkNode } from './environment.js'
import { checkDaemon, checkHooks, checkIndex, checkSize, checkWritable } from './repository.js'
import { failed, type DoctorCheck, type DoctorReport } from './types.js'

export type { CheckName, DoctorCheck, DoctorReport } from './types.js'

export async function runDoctor(cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [await checkGit(), checkNode()]
  let repo
  try {
    repo = await openRepo(cwd)
  } catch (error) {
    checks.push(failed('index', (error as Error).message.split('\n')[0]!, 'run git vlt doctor inside a git repository, or pass --cwd DIR'))
  }
  if (repo) {
    const config = await loadConfig(repo.root ?? repo.gitDir, env)
    checks.push(await settle('index', () => checkIndex(cwd)), await settle('hooks', () => checkHooks(cwd, repo)), await checkDaemon(cwd))
    if (config.llm.provider !== 'none') checks.push(await checkLlm(config.llm, env))
    if (config.embedding.provider !== 'none') checks.push(await checkEmbedding(config.embedding, env))
    checks.push(await checkWritable(repo), await checkSize(repo))
  }
  return { ok: checks.every((check) => check.ok), checks }
}

/** A check that throws (a refused .vlt/ link, an unreadable hook) fails with the error's first line. */
async function settle(name: DoctorCheck['name'], check: () => Promise<DoctorCheck>): Promise<DoctorCheck> {
  try {
    return await check()
  } catch (error) {
    return failed(name, (error as Error).message.split('\n')[0]!, 'see the message; git vlt coderag verify repairs the index')
  }
}
