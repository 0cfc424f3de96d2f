/** The names `git vlt doctor --json` reports its checks under: only ever added to. */
export type CheckName = 'git' | 'node' | 'index' | 'hooks' | 'daemon' | 'llm' | 'embedding' | 'writable' | 'size'

export interface DoctorCheck {
  name: CheckName
  ok: boolean
  /** What was found, one line. */
  detail: string
  /** What to do about it, one line; null when there is nothing to do. */
  fix: string | null
}

export interface DoctorReport {
  /** Every check passed. */
  ok: boolean
  checks: DoctorCheck[]
}

export function passed(name: CheckName, detail: string, fix: string | null = null): DoctorCheck {
  return { name, ok: true, detail, fix }
}

export function failed(name: CheckName, detail: string, fix: string): DoctorCheck {
  return { name, ok: false, detail, fix }
}
