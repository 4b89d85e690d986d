import type { ReliabilityProfile } from './target.js';

/** What one scenario found on one profile: the runner's table shows one row per result. */
export interface ScenarioResult {
  scenario: string;
  profile: ReliabilityProfile;
  passed: boolean;
  requests: number;
  seconds: number;
  /** What was measured, in a few words each (`0 × 5xx`, `seed 1234`, `RSS 81 → 83 MiB`). */
  facts: string[];
  /** Why it failed; empty when it passed. */
  problems: string[];
}

/** Collects a scenario's counts and problems, then makes its result. */
export class ResultBuilder {
  readonly #started = performance.now();
  requests = 0;
  readonly facts: string[] = [];
  readonly problems: string[] = [];

  constructor(
    readonly scenario: string,
    readonly profile: ReliabilityProfile,
  ) {}

  /** Records a problem; the first few of a kind are kept with their detail, the rest counted. */
  problem(text: string): void {
    if (this.problems.length < 20) this.problems.push(text);
    else if (this.problems.length === 20) this.problems.push('… more problems not listed');
  }

  check(ok: boolean, text: string): void {
    if (!ok) this.problem(text);
  }

  finish(): ScenarioResult {
    return {
      scenario: this.scenario,
      profile: this.profile,
      passed: this.problems.length === 0,
      requests: this.requests,
      seconds: (performance.now() - this.#started) / 1000,
      facts: this.facts,
      problems: this.problems,
    };
  }
}
