import assert from 'node:assert/strict'
import { blankAttributeMacros } from '../../src/core/parse/c-attribute-macros.js'
import { createExtractor } from '../../src/core/parse/index.js'

const KERNEL = `#define __init __section(".init.text")
#ifdef __user
#endif
static int __init ring_init(void)
{
\treturn copy_to_user((char __user *)buf, src, len);
}
static unsigned long ring_count __read_mostly;
struct ring_stats {
\tu64 hits;
} __aligned(
\t8);
static void __printf(2, 3) ring_log(int level, const char *fmt, ...);
`

describe('C attribute macros', () => {
  it('blanks them, arguments included, keeping every offset and line; directives keep their text', () => {
    const blanked = blankAttributeMacros(KERNEL)
    assert.equal(blanked.length, KERNEL.length)
    assert.deepEqual(blanked.split('\n').map((line) => line.length), KERNEL.split('\n').map((line) => line.length))
    assert.deepEqual(blanked.split('\n'), [
      '#define __init __section(".init.text")',
      '#ifdef __user',
      '#endif',
      'static int        ring_init(void)',
      '{',
      '\treturn copy_to_user((char        *)buf, src, len);',
      '}',
      'static unsigned long ring_count              ;',
      'struct ring_stats {',
      '\tu64 hits;',
      '}           ',
      '   ;',
      'static void                ring_log(int level, const char *fmt, ...);',
      '',
    ])
  })

  it('reads string and character literals in an argument list as such', () => {
    const section = ' __section(".data;(hot)")'
    const attribute = ' __attribute__((alias("a\\")")))'
    const source = `static int x${section} = 1;\nchar c${attribute} = ';';\n`
    assert.equal(blankAttributeMacros(source), `static int x${' '.repeat(section.length)} = 1;\nchar c${' '.repeat(attribute.length)} = ';';\n`)
  })

  it('leaves names that only start like one, and sources without any, as they are', () => {
    const source = 'int __initialise(void);\nint my__init;\nint x = __user_count;\n'
    assert.equal(blankAttributeMacros(source), source)
  })

  it('lets the C extractor read definitions the macros used to break, with signatures from the real text', async () => {
    const extractor = await createExtractor()
    await extractor.prepare('c')
    const artifact = extractor.extract(KERNEL, 'c')
    assert.equal(artifact.parseErrors, 0)
    assert.deepEqual(
      artifact.symbols.map((s) => [s.name, s.kind, s.line, s.endLine, s.signature]),
      [
        ['__init', 'constant', 1, 1, '#define __init __section(".init.text")'],
        ['ring_init', 'function', 4, 7, 'static int __init ring_init(void)'],
        ['ring_count', 'variable', 8, 8, 'static unsigned long ring_count'],
        ['ring_stats', 'struct', 9, 11, 'struct ring_stats'],
        ['hits', 'field', 10, 10, 'u64 hits'],
        ['ring_log', 'function', 13, 13, 'static void __printf(2, 3) ring_log(int level, const char *fmt, ...);'],
      ],
    )
    // Only the directive still names one.
    assert.deepEqual(artifact.references.filter((r) => r.name.startsWith('__')).map((r) => [r.name, r.line]), [['__user', 2]])
    assert.equal(artifact.chunks[0]!.body.split('\n')[3], 'static int __init ring_init(void)')
  })
})
