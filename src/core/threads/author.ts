import { GitError } from '../git/index.js'
import { runInRepo } from '../git/repo.js'
import type { Repo } from '../git/index.js'

/** Who pushes when --author is not given: the git user (name, else e-mail), else plain `user`. */
export async function defaultAuthor(repo: Repo): Promise<string> {
  for (const key of ['user.name', 'user.email']) {
    const value = await gitConfig(repo, key)
    if (value) return value.replace(/[\r\n·<>]/g, ' ').trim().slice(0, 100)
  }
  return 'user'
}

async function gitConfig(repo: Repo, key: string): Promise<string | undefined> {
  try {
    return (await runInRepo(repo, ['config', '--get', key])).toString('utf8').trim()
  } catch (error) {
    // Exit status 1: the key is not set.
    if (error instanceof GitError && error.status === 1) return undefined
    throw error
  }
}
