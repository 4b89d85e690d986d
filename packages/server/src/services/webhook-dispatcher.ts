import type { ServerDeps } from '../deps.js';
import { isoAfter } from '../storage/change-log-rules.js';
import type { ClaimedDelivery, DeliveryAttempt } from '../storage/ports.js';
import { SIGNATURE_HEADER, signatureHeader } from './webhook-signature.js';

/** The first retry waits this long; each next one twice as long, up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 30_000;
const MAX_BACKOFF_MS = 2 * 3_600_000;
/** How many deliveries one pass claims. */
const BATCH = 20;

export interface WebhookDispatcherOptions {
  /** How often the outbox is looked at (other nodes' events, retries that came due). */
  pollMs?: number;
  /** How long a claimed delivery is this node's alone; longer than an attempt can take. */
  leaseMs?: number;
  /** How long the receiver has to answer. */
  timeoutMs?: number;
  onError?: (err: unknown) => void;
}

/** The delay before attempt `attempts + 1`, after `attempts` failed ones. */
export function backoffMs(attempts: number): number {
  return Math.min(FIRST_BACKOFF_MS * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_MS);
}

/**
 * Sends webhook deliveries from the outbox in the shared store. Every node runs one: each claims
 * due deliveries with a lease (so two nodes never send the same one), POSTs the payload to the
 * hook's URL and nowhere else (redirects are not followed), and records the attempt. A failed
 * delivery is retried with exponential backoff until a day after it was made. A node that stops
 * mid-attempt leaves its claim to expire, and another node (or it, restarted) sends it.
 * Receivers tell a repeat from a new event by `X-Pkg-Delivery`.
 */
export class WebhookDispatcher {
  readonly #deps: Pick<ServerDeps, 'webhooks' | 'now'>;
  readonly #pollMs: number;
  readonly #leaseMs: number;
  readonly #timeoutMs: number;
  readonly #onError: (err: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(deps: Pick<ServerDeps, 'webhooks' | 'now'>, options: WebhookDispatcherOptions = {}) {
    this.#deps = deps;
    this.#pollMs = options.pollMs ?? 2000;
    this.#leaseMs = options.leaseMs ?? 60_000;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#onError = options.onError ?? (() => undefined);
  }

  start(): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setInterval(() => this.poke(), this.#pollMs);
    this.#timer.unref();
    this.poke();
  }

  /** Looks at the outbox now (a delivery was just added). */
  poke(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        try {
          await this.deliverDue();
        } catch (err) {
          this.#onError(err);
        }
      } while (this.#again && !this.#stopped);
    })().finally(() => (this.#running = undefined));
  }

  /** One pass: claims the deliveries due now and attempts each. Returns how many were attempted. */
  async deliverDue(): Promise<number> {
    let attempted = 0;
    for (;;) {
      const claimed = await this.#deps.webhooks.claimDeliveries(this.#deps.now().toISOString(), this.#leaseMs, BATCH);
      for (const item of claimed) await this.#attempt(item);
      attempted += claimed.length;
      if (claimed.length < BATCH || this.#stopped) return attempted;
    }
  }

  /** Resolves once no pass is running (a pass started by a poke included). */
  async settled(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#running;
  }

  async #attempt({ delivery, url, secrets, claim }: ClaimedDelivery): Promise<void> {
    const body = delivery.payload;
    let status: number | null = null;
    let error: string | null = null;
    try {
      const response = await fetch(url, {
        method: 'POST',
        body,
        // The configured URL only: a redirect is an answer like any other, never followed.
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'pkg-registry-webhook',
          'x-pkg-event': delivery.event,
          'x-pkg-delivery': delivery.id,
          [SIGNATURE_HEADER]: signatureHeader(body, secrets, this.#deps.now().toISOString()),
        },
      });
      status = response.status;
      await response.body?.cancel();
      if (status < 200 || status > 299) error = `the receiver answered HTTP ${status}`;
    } catch (err) {
      error = describeFailure(err);
    }
    const at = this.#deps.now().toISOString();
    let result: DeliveryAttempt;
    if (error === null) result = { at, status: 'delivered', nextAttemptAt: at, lastStatus: status, lastError: null };
    else {
      const next = isoAfter(at, backoffMs(delivery.attempts + 1));
      const givenUp = next > delivery.giveUpAt;
      result = {
        at,
        status: givenUp ? 'failed' : 'pending',
        nextAttemptAt: givenUp ? at : next,
        lastStatus: status,
        lastError: error,
      };
    }
    await this.#deps.webhooks.finishDelivery(delivery.id, claim, result);
  }
}

/** A network failure in words an operator can act on (undici hides the cause under "fetch failed"). */
function describeFailure(err: unknown): string {
  const error = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (error.name === 'TimeoutError') return 'the receiver did not answer in time';
  const cause = error.cause;
  return (cause?.code ?? cause?.message ?? error.message ?? String(err)).slice(0, 200);
}
