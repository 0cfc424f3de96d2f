import { gitVersion } from '../git/index.js'
import { failed, passed, type DoctorCheck } from './types.js'

/** package.json's engines.node. */
const NODE_MAJOR = 20

export async function checkGit(): Promise<DoctorCheck> {
  try {
    return passed('git', await gitVersion())
  } catch (error) {
    return failed('git', `git does not run: ${(error as Error).message.split('\n')[0]}`, 'install git and put it on PATH')
  }
}

export function checkNode(version = process.versions.node): DoctorCheck {
  const major = Number(version.split('.')[0])
  return major >= NODE_MAJOR
    ? passed('node', `Node ${version}`)
    : failed('node', `Node ${version} is older than ${NODE_MAJOR}`, `install Node ${NODE_MAJOR} or later`)
}
