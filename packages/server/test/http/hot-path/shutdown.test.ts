/** A request in flight when the server begins to shut down. */
import { describe, expect, it } from 'vitest';
import { eventually, header, headerView, HIGH_LIMITS, send, startTarget, UNKNOWN, type Reply } from './harness.js';

describe('a request in flight when shutdown begins', () => {
  it('is answered alike, with Connection: close', async () => {
    const replies: Partial<Record<'hot' | 'fastify', Reply>> = {};
    for (const mode of ['hot', 'fastify'] as const) {
      // A registry each (shutting down ends it), so both start with the same counters.
      const target = await startTarget({ settings: HIGH_LIMITS });
      const { registry } = target;
      registry.hotPath.enabled = mode === 'hot';
      const reads = registry.services.packageReads;
      const read = reads.document.bind(reads);
      let entered!: () => void;
      let release!: () => void;
      const reading = new Promise<void>((resolve) => (entered = resolve));
      const gate = new Promise<void>((resolve) => (release = resolve));
      reads.document = async (...args) => {
        entered();
        await gate;
        return read(...args);
      };
      const served = registry.hotPath.served;
      const pending = send(target, { path: `/${UNKNOWN}` });
      await reading;
      expect(registry.hotPath.served - served).toBe(mode === 'hot' ? 1 : 0);
      const closing = registry.close();
      // Fastify stops listening once its preClose hooks (draining begins) have run.
      await eventually(
        () => registry.app.server.listening,
        (listening) => !listening,
      );
      expect(registry.app.server.listening).toBe(false);
      release();
      replies[mode] = await pending;
      await closing;
      target.agent.destroy();
    }
    const { hot, fastify } = replies as Record<'hot' | 'fastify', Reply>;
    expect(fastify.status).toBe(404);
    expect(header(fastify, 'connection')).toBe('close');
    expect.soft(hot.status, 'status of the hot path answer').toBe(fastify.status);
    expect.soft(headerView(hot), 'headers of the hot path answer: names, order, values').toEqual(headerView(fastify));
    expect.soft(header(hot, 'x-ratelimit-remaining')).toBe(header(fastify, 'x-ratelimit-remaining'));
    expect.soft(hot.body.toString('utf8'), 'body of the hot path answer').toBe(fastify.body.toString('utf8'));
  });
});
