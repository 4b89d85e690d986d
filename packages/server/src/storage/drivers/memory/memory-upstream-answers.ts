import { UPSTREAM_ANSWER_KEEP_MS, type UpstreamAnswer, type UpstreamAnswerStore } from '../../ports.js';

/** Bytes of upstream answers one process keeps. */
const DEFAULT_BUDGET = 48 * 1024 * 1024;

interface Held extends UpstreamAnswer {
  storedAt: number;
  weight: number;
}

/**
 * Upstream answers in this process: the store of a registry that runs as one node (the
 * embedded default), where no other node could read them. Kept in the order they were stored
 * (a put moves an answer to the end), so the oldest go first, past their keep time or past a
 * byte budget.
 */
export class MemoryUpstreamAnswers implements UpstreamAnswerStore {
  readonly #held = new Map<string, Held>();
  readonly #budget: number;
  #used = 0;

  constructor(budget = DEFAULT_BUDGET) {
    this.#budget = budget;
  }

  async get(keys: readonly string[]): Promise<Map<string, UpstreamAnswer>> {
    const found = new Map<string, UpstreamAnswer>();
    for (const key of keys) {
      const held = this.#held.get(key);
      if (held) found.set(key, { body: held.body, freshUntil: held.freshUntil });
    }
    return found;
  }

  async put(answers: ReadonlyMap<string, UpstreamAnswer>, now: number): Promise<void> {
    for (const [key, answer] of answers) {
      this.#drop(key);
      // Keys and bookkeeping count too: an empty answer is not free.
      const weight = answer.body.length + key.length + 64;
      this.#held.set(key, { body: answer.body, freshUntil: answer.freshUntil, storedAt: now, weight });
      this.#used += weight;
    }
    for (const [key, held] of this.#held) {
      if (this.#used <= this.#budget && held.storedAt >= now - UPSTREAM_ANSWER_KEEP_MS) break;
      this.#drop(key);
    }
  }

  #drop(key: string): void {
    const held = this.#held.get(key);
    if (!held) return;
    this.#held.delete(key);
    this.#used -= held.weight;
  }
}
