/**
 * Linux's shape for paging `refs`: files that see only the kernel's schedule_work (their uses are
 * kept) alternate, by path, with files whose `#include <workqueues.h>` may name a test harness's
 * same-named stub (their uses are ambiguous), so a page can fill either list first.
 */
export const INTERLEAVED_SYMBOL = 'include/linux/workqueue.h:schedule_work'

export function interleavedUses(files = 12, callsPerFile = 3): Record<string, string> {
  const repo: Record<string, string> = {
    'include/linux/workqueue.h': ['static inline int schedule_work(int work)', '{', '\treturn work;', '}', ''].join('\n'),
    'include/linux/slab.h': ['#include <linux/workqueue.h>', 'void *kmalloc(int size);', ''].join('\n'),
    'tools/cbmc/src/workqueues.h': ['static inline int schedule_work(int work)', '{', '\treturn 0;', '}', ''].join('\n'),
    // Two headers end in workqueues.h equally near: the include resolves to neither, and may mean the stub.
    'tools/cbmc/alt/workqueues.h': ['int alt(void);', ''].join('\n'),
  }
  for (let i = 0; i < files; i++) {
    const id = String(i).padStart(2, '0')
    const include = i % 2 === 0 ? '#include <linux/slab.h>' : '#include <workqueues.h>'
    const calls = Array.from({ length: callsPerFile }, (_, call) => `\tschedule_work(${call});`)
    repo[`drivers/d${id}.c`] = [include, '', `void d${id}(void)`, '{', ...calls, '}', ''].join('\n')
  }
  return repo
}
