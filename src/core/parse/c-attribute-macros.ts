/**
 * What the C parser reads: the source with well-known attribute macros blanked out, as
 * universal-ctags' `-I` option does. `static int __init foo(void)` or `char __user *buf` are not C
 * to a parser that has not expanded the macros: tree-sitter takes `__init` for the declarator and
 * recovers with ERROR nodes, which costs a wrong parse of the definition around it and time (on
 * Linux 10k, 6,928 of 10,000 files had errors; with these blanked, 4,180, and a cold init takes
 * about 10 % less CPU). Each macro becomes spaces of the same length (its argument list too,
 * newlines kept), so every offset, row and column stays that of the real source, which is what all
 * text is read from.
 */

/** Attribute-like macros that expand to nothing a parser needs (sections, address spaces, hints). */
const BARE = [
  '__init', '__exit', '__initdata', '__initconst', '__exitdata', '__meminit', '__meminitdata', '__ref', '__refdata',
  '__init_memblock', '__initdata_memblock', '__net_init', '__net_exit', '__cpuinit', '__devinit', '__devexit',
  '__devinitdata', '__head', '__irq_entry', '__kprobes', '__sched', '__ro_after_init', '__read_mostly',
  '__user', '__iomem', '__kernel', '__percpu', '__rcu', '__force', '__nocast', '__bitwise',
  'asmlinkage', 'notrace', 'noinline', '__noinline', '__always_inline', '__visible', '__cold', '__weak', '__pure',
  '__malloc', '__noreturn', '__must_check', '__maybe_unused', '__always_unused', '__used', '__latent_entropy',
  '__nocfi', '__noclone', '__naked', '__packed', '__attribute_const__',
  '__cacheline_aligned', '__cacheline_aligned_in_smp', '____cacheline_aligned', '____cacheline_aligned_in_smp',
  '__assume_kmalloc_alignment', '__assume_page_alignment', '__nonstring', '__randomize_layout', '__no_randomize_layout',
  '__designated_init',
]
/**
 * The same, taking arguments: `__aligned(8)`, `__printf(2, 3)`, `__acquires(&lock)`, `__alloc_size(1)`, and GCC's own
 * `__attribute__((…))`, which the grammar accepts in some places but not all (`int a[4]
 * __attribute__((aligned(8))) = { 0 };` breaks the function around it).
 */
const WITH_ARGUMENTS = [
  '__attribute__', '__attribute', '__aligned', '__printf', '__scanf', '__section', '__alias', '__acquires', '__releases', '__must_hold',
  // Allocation hints before the return type: `static __always_inline __alloc_size(1) void *kmalloc(…)`.
  '__alloc_size', '__realloc_size', '__assume_aligned', '__cond_acquires', '__counted_by', '__cleanup', '__copy', '__diagnose_as',
]

const MACRO = new RegExp(`\\b(?:${[...BARE, ...WITH_ARGUMENTS].join('|')})\\b`, 'g')
const TAKES_ARGUMENTS = new Set(WITH_ARGUMENTS)
/** A preprocessor line: the macros' own definitions and tests of them keep their names (a directive's text is not parsed as C anyway). */
const DIRECTIVE = /^[ \t]*#/

export function blankAttributeMacros(source: string): string {
  // Most C outside the kernel has none of these, and then the source itself is parsed.
  MACRO.lastIndex = 0
  let match = MACRO.exec(source)
  if (!match) return source
  let out = ''
  let copied = 0
  // The start of the match's line, found moving forward only: linear even on one huge line.
  let lineStart = 0
  let nextNewline = source.indexOf('\n')
  for (; match; match = MACRO.exec(source)) {
    const start = match.index
    while (nextNewline !== -1 && nextNewline < start) {
      lineStart = nextNewline + 1
      nextNewline = source.indexOf('\n', lineStart)
    }
    if (DIRECTIVE.test(source.slice(lineStart, start))) continue
    let end = start + match[0].length
    if (TAKES_ARGUMENTS.has(match[0])) end = argumentsEnd(source, end)
    out += source.slice(copied, start) + blanks(source.slice(start, end))
    copied = end
    MACRO.lastIndex = end
  }
  return out + source.slice(copied)
}

/** Where a balanced argument list right after `from` ends (past its `)`), or `from` when there is none. */
function argumentsEnd(source: string, from: number): number {
  let i = from
  while (source.charCodeAt(i) === 32 || source.charCodeAt(i) === 9) i++
  if (source.charCodeAt(i) !== 40) return from
  let depth = 0
  for (; i < source.length; i++) {
    const c = source.charCodeAt(i)
    if (c === 40) depth++
    else if (c === 41 && --depth === 0) return i + 1
    else if (c === 34 || c === 39) i = literalEnd(source, i) // `__section(".text;x")`
    else if (c === 59 || c === 123) return from // `;` or `{` first: not an argument list after all
  }
  return from
}

/** The index of the quote closing the string or character literal opened at `open` (the last index when unclosed). */
function literalEnd(source: string, open: number): number {
  const quote = source.charCodeAt(open)
  for (let i = open + 1; i < source.length; i++) {
    const c = source.charCodeAt(i)
    if (c === 92) i++
    else if (c === quote || c === 10) return i
  }
  return source.length - 1
}

function blanks(text: string): string {
  return text.replace(/[^\n]/g, ' ')
}
