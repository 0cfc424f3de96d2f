/**
 * At most `limit` pieces of work running at once, for many producers. A producer waits in line for
 * a slot, and a finished piece wakes one waiter, which checks again: the bound holds whatever the
 * number of producers. (`if (size >= limit) await Promise.race(set)` does not: one settling wakes
 * every waiter at once, so the set drifts upward whenever producers outpace the work, and each race
 * leaves a reaction on every piece still running. A write-back init of the Linux tree grew to 5,000
 * PUTs in flight and four million promise reactions, 4 GB of heap, within 25 s.)
 */
export class InFlightLimit {
  private running = 0
  private readonly waiting: Array<() => void> = []
  private readonly idle: Array<() => void> = []

  constructor(private readonly limit: number) {}

  /** Pieces running now. */
  get size(): number {
    return this.running
  }

  /**
   * Starts `work` once a slot is free; resolves when it started, not when it finished. `work` must
   * not reject: its failure would have no one to report to.
   */
  async start(work: () => Promise<void>): Promise<void> {
    while (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve))
    this.running++
    void work().finally(() => this.finished())
  }

  /** Resolves when nothing is running. */
  async drain(): Promise<void> {
    while (this.running > 0) await new Promise<void>((resolve) => this.idle.push(resolve))
  }

  private finished(): void {
    this.running--
    this.waiting.shift()?.()
    if (this.running === 0) for (const wake of this.idle.splice(0)) wake()
  }
}
