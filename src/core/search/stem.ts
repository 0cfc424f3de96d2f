/**
 * The Porter2 ("English") stemmer of the Snowball project, written out by hand so the analyzer
 * needs no package and runs unchanged inside index workers. Follows the published algorithm
 * step by step; input must already be lowercase ASCII letters.
 */

const EXCEPTIONS = new Map(Object.entries({
  skis: 'ski', skies: 'sky', dying: 'die', lying: 'lie', tying: 'tie',
  idly: 'idl', gently: 'gentl', ugly: 'ugli', early: 'earli', only: 'onli', singly: 'singl',
  sky: 'sky', news: 'news', howe: 'howe', atlas: 'atlas', cosmos: 'cosmos', bias: 'bias', andes: 'andes',
}))

/** Left alone once step 1a has run. */
const INVARIANT_AFTER_1A = new Set(['inning', 'outing', 'canning', 'herring', 'earring', 'proceed', 'exceed', 'succeed'])

const DOUBLES = new Set(['bb', 'dd', 'ff', 'gg', 'mm', 'nn', 'pp', 'rr', 'tt'])
const LI_ENDINGS = 'cdeghkmnrt'

// Lists are ordered longest first so the first match is the longest, as the algorithm requires.
const STEP2: Array<[string, string]> = [
  ['ization', 'ize'], ['ational', 'ate'], ['fulness', 'ful'], ['ousness', 'ous'], ['iveness', 'ive'],
  ['tional', 'tion'], ['biliti', 'ble'], ['lessli', 'less'],
  ['entli', 'ent'], ['ation', 'ate'], ['alism', 'al'], ['aliti', 'al'], ['ousli', 'ous'], ['iviti', 'ive'], ['fulli', 'ful'],
  ['enci', 'ence'], ['anci', 'ance'], ['abli', 'able'], ['izer', 'ize'], ['ator', 'ate'], ['alli', 'al'],
  ['bli', 'ble'], ['ogi', 'og'], ['li', ''],
]
const STEP3: Array<[string, string]> = [
  ['ational', 'ate'], ['tional', 'tion'], ['alize', 'al'], ['icate', 'ic'], ['iciti', 'ic'], ['ative', ''],
  ['ical', 'ic'], ['ness', ''], ['ful', ''],
]
const STEP4 = [
  'ement', 'ance', 'ence', 'able', 'ible', 'ment', 'ant', 'ent', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize', 'ion',
  'al', 'er', 'ic',
]

function isVowel(c: string): boolean {
  return c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || c === 'y'
}

/** Start of the region after the first non-vowel that follows a vowel, from `from` on. */
function regionAfter(w: string, from: number): number {
  for (let i = from + 1; i < w.length; i++) {
    if (!isVowel(w[i]) && isVowel(w[i - 1])) return i + 1
  }
  return w.length
}

function endsWithShortSyllable(w: string): boolean {
  const n = w.length
  if (n === 2) return isVowel(w[0]) && !isVowel(w[1])
  if (n < 3) return false
  const c = w[n - 1]
  return !isVowel(w[n - 3]) && isVowel(w[n - 2]) && !isVowel(c) && c !== 'w' && c !== 'x' && c !== 'Y'
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (isVowel(w[i])) return true
  return false
}

export function stem(word: string): string {
  if (word.length <= 2) return word
  const exception = EXCEPTIONS.get(word)
  if (exception !== undefined) return exception

  let w = word.charCodeAt(0) === 39 /* ' */ ? word.slice(1) : word
  // y as a consonant is marked Y so vowel tests treat it so.
  if (w[0] === 'y') w = 'Y' + w.slice(1)
  for (let i = 1; i < w.length; i++) {
    if (w[i] === 'y' && isVowel(w[i - 1])) w = w.slice(0, i) + 'Y' + w.slice(i + 1)
  }

  let r1: number
  if (w.startsWith('gener') || w.startsWith('arsen')) r1 = 5
  else if (w.startsWith('commun')) r1 = 6
  else r1 = regionAfter(w, 0)
  const r2 = regionAfter(w, r1)

  // Step 0: possessives.
  if (w.endsWith("'s'")) w = w.slice(0, -3)
  else if (w.endsWith("'s")) w = w.slice(0, -2)
  else if (w.endsWith("'")) w = w.slice(0, -1)

  // Step 1a: plurals.
  if (w.endsWith('sses')) w = w.slice(0, -2)
  else if (w.endsWith('ied') || w.endsWith('ies')) w = w.length > 4 ? w.slice(0, -2) : w.slice(0, -1)
  else if (w.endsWith('us') || w.endsWith('ss')) { /* kept */ }
  else if (w.endsWith('s') && hasVowel(w, w.length - 2)) w = w.slice(0, -1)

  if (INVARIANT_AFTER_1A.has(w)) return w

  // Step 1b: -ed, -ing and friends.
  const eed = w.endsWith('eedly') ? 5 : w.endsWith('eed') ? 3 : 0
  if (eed) {
    if (w.length - eed >= r1) w = w.slice(0, -eed) + 'ee'
  } else {
    const ed = w.endsWith('ingly') ? 5 : w.endsWith('edly') ? 4 : w.endsWith('ing') ? 3 : w.endsWith('ed') ? 2 : 0
    if (ed && hasVowel(w, w.length - ed)) {
      w = w.slice(0, -ed)
      if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e'
      else if (DOUBLES.has(w.slice(-2))) w = w.slice(0, -1)
      else if (r1 >= w.length && endsWithShortSyllable(w)) w += 'e'
    }
  }

  // Step 1c: terminal y after a consonant that is not the first letter.
  const last = w[w.length - 1]
  if ((last === 'y' || last === 'Y') && w.length > 2 && !isVowel(w[w.length - 2])) w = w.slice(0, -1) + 'i'

  // Step 2.
  for (const [suffix, replacement] of STEP2) {
    if (!w.endsWith(suffix)) continue
    const at = w.length - suffix.length
    if (at >= r1) {
      if (suffix === 'ogi') { if (w[at - 1] === 'l') w = w.slice(0, at) + replacement }
      else if (suffix === 'li') { if (at > 0 && LI_ENDINGS.includes(w[at - 1])) w = w.slice(0, at) }
      else w = w.slice(0, at) + replacement
    }
    break
  }

  // Step 3.
  for (const [suffix, replacement] of STEP3) {
    if (!w.endsWith(suffix)) continue
    const at = w.length - suffix.length
    if (at >= r1 && (suffix !== 'ative' || at >= r2)) w = w.slice(0, at) + replacement
    break
  }

  // Step 4.
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue
    const at = w.length - suffix.length
    if (at >= r2 && (suffix !== 'ion' || w[at - 1] === 's' || w[at - 1] === 't')) w = w.slice(0, at)
    break
  }

  // Step 5.
  const end = w[w.length - 1]
  if (end === 'e') {
    const at = w.length - 1
    if (at >= r2 || (at >= r1 && !endsWithShortSyllable(w.slice(0, at)))) w = w.slice(0, at)
  } else if (end === 'l' && w.length - 1 >= r2 && w[w.length - 2] === 'l') {
    w = w.slice(0, -1)
  }

  return w.includes('Y') ? w.replace(/Y/g, 'y') : w
}
