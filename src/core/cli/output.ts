/** Where commands print: results to stdout, progress and warnings to stderr. */
export const stdoutIsTTY = (): boolean => Boolean(process.stdout.isTTY)
export const stderrIsTTY = (): boolean => Boolean(process.stderr.isTTY) && !process.env.CI
