/**
 * Stored blob records are reused for as long as EXTRACTOR_VERSION stays the same, and a record
 * saying extraction redacted nothing (`redacted: false`) is never scanned for credentials again
 * when its text is read back from git. So a change to what the detector finds must come with a
 * new extractor version, or records written under the old rules keep whatever the new rules would
 * catch. This pins the detector's sources to the extractor version they were released with: a
 * change to them fails here until the version is bumped (parse/version.ts) and the new digest
 * recorded, or — for a change that cannot alter what is found, such as a comment — the digest is
 * recorded for the same version with a word on why.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { EXTRACTOR_VERSION } from '../../src/core/parse/version.js'

/** Every source that decides what counts as a credential and how it is replaced. */
const DETECTOR_SOURCES = ['secrets.ts', 'keyword-index.ts', 'secret-rules.ts', 'go-regex.ts', 'gitleaks/gitleaks.toml', 'content.ts']

/** The detector's digest at each extractor version. */
const RELEASED: Record<number, string> = {
  10: 'd0d48b9cc9a263cc331d704882c16ba5c0087e74005425fbdf0c3e53b35be257',
  // The keyword prefilter made exact (keyword-index.ts, an automaton where hashed character
  // n-grams let a collision run a rule on text without its keywords): a rule now runs on a subset
  // of the texts it ran on, so nothing is found that version 11's records could have missed (same
  // findings on every file of Linux 10k).
  11: 'a9fdee60500555d42d75cf1b47e18281594fe2d9721ffffb2364d04d3e2e2b07',
}

describe('the credential detector and the extractor version', () => {
  it('changes only with a new extractor version, so records made under older rules are not reused', () => {
    const hash = createHash('sha256')
    for (const source of DETECTOR_SOURCES) hash.update(source).update('\0').update(readFileSync(new URL(`../../src/core/files/${source}`, import.meta.url))).update('\0')
    const digest = hash.digest('hex')
    assert.equal(
      digest,
      RELEASED[EXTRACTOR_VERSION],
      `src/core/files/{${DETECTOR_SOURCES.join(',')}} changed (digest ${digest}) while EXTRACTOR_VERSION is still ${EXTRACTOR_VERSION}: bump it in src/core/parse/version.ts and record the digest here`,
    )
  })
})
