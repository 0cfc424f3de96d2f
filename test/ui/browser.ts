/** Debian's chromium, headless, driven by playwright-core (no browser download: .ci/run installs chromium with apt). */
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

export const CHROMIUM = process.env.VLT_CHROMIUM ?? '/usr/bin/chromium'

export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM) ? null : `${CHROMIUM} is missing (apt-get install chromium, or set VLT_CHROMIUM)`
}

export function launchChromium(): Promise<Browser> {
  // --no-sandbox: CI runs as root in a container, where chromium's sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] })
}
