import assert from 'node:assert/strict'
import { definitions, referencesIn, signatureOf, tagsOf, type Tags } from './tags-helpers.js'

/** A kernel-style driver: attribute macros (`__init`, `__read_mostly`) and macro-defined globals. */
const SOURCE = `// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/slab.h>
#include "ring.h"
#include "../common/util.h"

#define RING_MAX	64
#define RING_DEBUG
#define ring_idx(r, i)	((i) & ((r)->size - 1))

enum ring_state {
	RING_IDLE,
	RING_BUSY = 4,
};

typedef unsigned int ring_flags_t;
typedef int (*ring_cb_t)(struct ring *ring, void *data);

struct ring_ops {
	int (*push)(struct ring *ring, void *item);
	void *(*pop)(struct ring *ring);
};

struct ring {
	const struct ring_ops *ops;
	void **slots;
	unsigned int head, tail;
	ring_flags_t flags;
	char name[RING_MAX];
};

typedef struct {
	int hits;
	int misses;
} ring_stats_t;

static ring_stats_t stats;
static unsigned long ring_count __read_mostly;
static DEFINE_MUTEX(ring_lock);

int ring_push(struct ring *ring, void *item);
void ring_free(struct ring *ring);

static struct ring *ring_alloc(unsigned int size, const char *name)
{
	struct ring *ring = kzalloc(sizeof(*ring), GFP_KERNEL);
	int i;

	if (!ring)
		return NULL;
	for (i = 0; i < RING_MAX; i++)
		ring->slots = kcalloc(size, sizeof(void *), GFP_KERNEL);
	strscpy(ring->name, name, RING_MAX);
	ring_count++;
	return ring;
}

int ring_push(struct ring *ring, void *item)
{
	int err;

	mutex_lock(&ring_lock);
	err = ring->ops->push(ring, item);
	if (err == -ENOSPC)
		stats.misses++;
	mutex_unlock(&ring_lock);
	return err;
}

static int __init ring_init(void)
{
	struct ring *ring = ring_alloc(RING_MAX, "default");

	return ring ? 0 : -ENOMEM;
}

static const struct ring_ops default_ops = {
	.push = ring_push,
};

module_init(ring_init);
MODULE_LICENSE("GPL");
`

describe('tags: C', () => {
  let tags: Tags

  before(async () => {
    tags = await tagsOf('c', SOURCE)
  })

  it('finds every definition; a prototype only when the function is not defined here', () => {
    assert.deepEqual(definitions(tags), [
      ['RING_MAX', 'RING_MAX', 'constant', 7, 7, ''],
      ['RING_DEBUG', 'RING_DEBUG', 'macro', 8, 8, ''],
      ['ring_idx', 'ring_idx', 'macro', 9, 9, ''],
      ['ring_state', 'ring_state', 'enum', 11, 14, ''],
      ['RING_IDLE', 'ring_state.RING_IDLE', 'constant', 12, 12, 'ring_state'],
      ['RING_BUSY', 'ring_state.RING_BUSY', 'constant', 13, 13, 'ring_state'],
      ['ring_flags_t', 'ring_flags_t', 'type', 16, 16, ''],
      ['ring_cb_t', 'ring_cb_t', 'type', 17, 17, ''],
      ['ring_ops', 'ring_ops', 'struct', 19, 22, ''],
      ['push', 'ring_ops.push', 'field', 20, 20, 'ring_ops'],
      ['pop', 'ring_ops.pop', 'field', 21, 21, 'ring_ops'],
      ['ring', 'ring', 'struct', 24, 30, ''],
      ['ops', 'ring.ops', 'field', 25, 25, 'ring'],
      ['slots', 'ring.slots', 'field', 26, 26, 'ring'],
      ['head', 'ring.head', 'field', 27, 27, 'ring'],
      ['tail', 'ring.tail', 'field', 27, 27, 'ring'],
      ['flags', 'ring.flags', 'field', 28, 28, 'ring'],
      ['name', 'ring.name', 'field', 29, 29, 'ring'],
      ['ring_stats_t', 'ring_stats_t', 'struct', 32, 35, ''],
      ['hits', 'ring_stats_t.hits', 'field', 33, 33, 'ring_stats_t'],
      ['misses', 'ring_stats_t.misses', 'field', 34, 34, 'ring_stats_t'],
      ['stats', 'stats', 'variable', 37, 37, ''],
      ['ring_count', 'ring_count', 'variable', 38, 38, ''],
      ['ring_lock', 'ring_lock', 'variable', 39, 39, ''],
      ['ring_free', 'ring_free', 'function', 42, 42, ''],
      ['ring_alloc', 'ring_alloc', 'function', 44, 56, ''],
      ['ring_push', 'ring_push', 'function', 58, 68, ''],
      ['ring_init', 'ring_init', 'function', 70, 75, ''],
      ['default_ops', 'default_ops', 'variable', 77, 79, ''],
    ])
  })

  it('gives signatures up to the body or initializer', () => {
    assert.equal(signatureOf(tags, 'ring_alloc'), 'static struct ring *ring_alloc(unsigned int size, const char *name)')
    assert.equal(signatureOf(tags, 'ring_free'), 'void ring_free(struct ring *ring);')
    assert.equal(signatureOf(tags, 'ring_ops.pop'), 'void *(*pop)(struct ring *ring)')
    assert.equal(signatureOf(tags, 'ring.tail'), 'unsigned int head, tail')
    assert.equal(signatureOf(tags, 'ring_idx'), '#define ring_idx(r, i) ((i) & ((r)->size - 1))')
    assert.equal(signatureOf(tags, 'ring'), 'struct ring')
    assert.equal(signatureOf(tags, 'ring_cb_t'), 'typedef int (*ring_cb_t)(struct ring *ring, void *data);')
    assert.equal(signatureOf(tags, 'default_ops'), 'static const struct ring_ops default_ops')
    // The attribute macro after the name is not part of the variable.
    assert.equal(signatureOf(tags, 'ring_count'), 'static unsigned long ring_count')
  })

  it('reports calls through function pointers with their receivers, and skips locals', () => {
    // The prototype and the definition of ring_push both name the type of their parameter `ring`.
    assert.deepEqual(referencesIn(tags, 'ring_push'), [
      ['ring', 41, 'type', undefined],
      ['ring', 58, 'type', undefined],
      ['mutex_lock', 62, 'call', undefined],
      ['ring_lock', 62, 'reference', undefined],
      ['push', 63, 'call', 'ring->ops'],
      ['ENOSPC', 64, 'reference', undefined],
      ['stats', 65, 'reference', undefined],
      ['mutex_unlock', 66, 'call', undefined],
      ['ring_lock', 66, 'reference', undefined],
    ])
    // `struct ring` is a type reference although a local is also called `ring`; the bare uses of
    // that local (`!ring`, `return ring`) are not references.
    assert.deepEqual(referencesIn(tags, 'ring_alloc'), [
      ['ring', 44, 'type', undefined],
      ['ring', 46, 'type', undefined],
      ['kzalloc', 46, 'call', undefined],
      ['GFP_KERNEL', 46, 'reference', undefined],
      ['RING_MAX', 51, 'reference', undefined],
      ['kcalloc', 52, 'call', undefined],
      ['GFP_KERNEL', 52, 'reference', undefined],
      ['strscpy', 53, 'call', undefined],
      ['RING_MAX', 53, 'reference', undefined],
      ['ring_count', 54, 'reference', undefined],
    ])
  })

  it('reports type uses, initializer callbacks and top-level macro invocations', () => {
    assert.deepEqual(referencesIn(tags, 'ring'), [
      ['ring_ops', 25, 'type', undefined],
      ['ring_flags_t', 28, 'type', undefined],
    ])
    assert.deepEqual(referencesIn(tags, 'ring.name'), [['RING_MAX', 29, 'reference', undefined]])
    assert.deepEqual(referencesIn(tags, 'default_ops'), [['ring_push', 78, 'reference', undefined]])
    assert.deepEqual(referencesIn(tags, ''), [
      ['ring_stats_t', 37, 'type', undefined],
      ['DEFINE_MUTEX', 39, 'call', undefined],
      ['ring_ops', 77, 'type', undefined],
      ['module_init', 81, 'call', undefined],
      ['ring_init', 81, 'reference', undefined],
      ['MODULE_LICENSE', 82, 'call', undefined],
    ])
  })

  it('recovers definitions from kernel macros the grammar does not know', async () => {
    const source = `static int ring_debug __initdata = 1;
static struct ring *ring_last __read_mostly;
static DEFINE_PER_CPU(int, ring_hits);
static int __initdata ring_seed = 7;
static void __iomem *ring_base;

SYSCALL_DEFINE2(ring_reset, unsigned int, id, int, flags)
{
\tint done = 0;
\tstruct ring *r = container_of(ring_last, struct ring, node);

\treturn done + ring_debug;
}
`
    const kernel = await tagsOf('c', source)
    assert.deepEqual(definitions(kernel), [
      ['ring_debug', 'ring_debug', 'variable', 1, 1, ''],
      ['ring_last', 'ring_last', 'variable', 2, 2, ''],
      ['ring_hits', 'ring_hits', 'variable', 3, 3, ''],
      ['ring_seed', 'ring_seed', 'variable', 4, 4, ''],
      ['ring_base', 'ring_base', 'variable', 5, 5, ''],
      ['ring_reset', 'ring_reset', 'function', 8, 13, ''],
    ])
    assert.equal(signatureOf(kernel, 'ring_reset'), 'SYSCALL_DEFINE2(ring_reset, unsigned int, id, int, flags)')
    assert.deepEqual(referencesIn(kernel, ''), [
      ['ring', 2, 'type', undefined],
      // The macro's other arguments are its parameters, which nothing marks as locals.
      ['SYSCALL_DEFINE2', 7, 'call', undefined],
      ['id', 7, 'reference', undefined],
      ['flags', 7, 'reference', undefined],
    ])
    // A macro that defines a variable is used by that definition.
    assert.deepEqual(referencesIn(kernel, 'ring_hits'), [['DEFINE_PER_CPU', 3, 'call', undefined]])
    assert.deepEqual(referencesIn(kernel, 'ring_reset'), [
      ['ring', 10, 'type', undefined],
      ['container_of', 10, 'call', undefined],
      ['ring_last', 10, 'reference', undefined],
      ['ring', 10, 'type', undefined],
      ['node', 10, 'reference', undefined],
      ['ring_debug', 12, 'reference', undefined],
    ])
  })

  it('reads local and system includes', () => {
    assert.deepEqual(tags.imports, [
      { module: 'linux/module.h', names: [], line: 2, relative: false },
      { module: 'linux/slab.h', names: [], line: 3, relative: false },
      { module: 'ring.h', names: [], line: 4, relative: true },
      { module: '../common/util.h', names: [], line: 5, relative: true },
    ])
  })
})

describe('tags: C attribute macros with arguments', () => {
  it("finds slab.h's kmalloc behind __alloc_size(1), and __kmalloc's prototype behind __assume_kmalloc_alignment", async () => {
    const slab = await tagsOf('c', [
      'void *__kmalloc(size_t size, gfp_t flags) __assume_kmalloc_alignment __alloc_size(1);',
      'static __always_inline __alloc_size(1) void *kmalloc(size_t size, gfp_t flags)',
      '{',
      '\treturn __kmalloc(size, flags);',
      '}',
      'static inline __realloc_size(2, 3) void *krealloc_array(void *p, size_t new_n, size_t new_size, gfp_t flags)',
      '{',
      '\treturn NULL;',
      '}',
      '',
    ].join('\n'))
    assert.deepEqual(definitions(slab).map(([name, , kind, line]) => [name, kind, line]), [
      ['__kmalloc', 'function', 1],
      ['kmalloc', 'function', 2],
      ['krealloc_array', 'function', 6],
    ])
  })
})
