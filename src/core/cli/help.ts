import { Help, type Interfaces } from '@oclif/core'

/** What users type: git finds `git-vlt` on PATH and runs it for `git vlt`. */
export const INVOCATION = 'git vlt'

/**
 * oclif's help with usage lines and examples as users type them, `git vlt …`, not as the
 * executable is named (`git-vlt`, oclif's `bin`, which also names our GIT_VLT_* variables). The
 * man pages are rendered by this same class (scripts/man.ts), so they never drift from `--help`.
 */
export default class VltHelp extends Help {
  constructor(config: Interfaces.Config, opts?: Partial<Interfaces.HelpOptions>) {
    super(Object.create(config, { bin: { value: INVOCATION } }) as Interfaces.Config, opts)
  }
}
