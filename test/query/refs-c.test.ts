import { strict as assert } from 'node:assert'
import { findReferences, type RefsResult } from '../../src/core/query/refs.js'
import { indexedRepo } from '../helpers/indexed-repo.js'

// Linux's shape: the kernel's schedule_work reached through a header that never names it, and a
// same-named stub in a tools/ test harness seen only by the files including it.
const FILES = {
  'include/linux/workqueue.h': ['static inline int schedule_work(int work)', '{', '\treturn work;', '}', ''].join('\n'),
  'include/linux/slab.h': ['#include <linux/workqueue.h>', 'void *kmalloc(int size);', ''].join('\n'),
  'drivers/net/card.c': ['#include <linux/slab.h>', '', 'void card_irq(void)', '{', '\tschedule_work(1);', '}', ''].join('\n'),
  'tools/cbmc/src/workqueues.h': ['static inline int schedule_work(int work)', '{', '\treturn 0;', '}', ''].join('\n'),
  'tools/cbmc/src/glue.h': ['#include "workqueues.h"', 'int glue(void);', ''].join('\n'),
  'tools/cbmc/src/harness.c': ['#include "glue.h"', '', 'int harness(void)', '{', '\treturn schedule_work(2);', '}', ''].join('\n'),
  // A static helper of the same name is its own file's only.
  'drivers/misc/local.c': ['static int schedule_work(int work)', '{', '\treturn work;', '}', '', 'int local(void)', '{', '\treturn schedule_work(4);', '}', ''].join('\n'),
  // Two headers end in workqueues.h equally near: the include resolves to neither, and may mean the stub.
  'tools/cbmc/alt/workqueues.h': ['int alt(void);', ''].join('\n'),
  'tools/cbmc/either.c': ['#include <workqueues.h>', '', 'int either(void)', '{', '\treturn schedule_work(3);', '}', ''].join('\n'),
}

describe('refs in C', function () {
  this.timeout(60_000)
  const fx = indexedRepo(FILES)

  const at = (refs: RefsResult['references'] | undefined): string[] => (refs ?? []).map((r) => `${r.path}:${r.line}`)

  it('keeps a use that cannot see the same-named definitions: no chain of includes reaches their files', () => {
    const result = findReferences(fx.qctx, 'include/linux/workqueue.h:schedule_work')
    assert.deepEqual(result.definitions.map((d) => d.path), ['include/linux/workqueue.h'])
    assert.deepEqual(at(result.references), ['drivers/net/card.c:5'])
    // harness.c includes the stub through glue.h; either.c's include may be the stub's header.
    assert.deepEqual(at(result.ambiguous), ['tools/cbmc/either.c:5', 'tools/cbmc/src/harness.c:5'])
  })
})
