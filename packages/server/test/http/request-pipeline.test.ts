/**
 * The request steps are one list (src/http/request-steps.ts) that fastify installs as hooks and
 * the hot path runs itself. A hook that is neither a step of that list nor one of the few hooks
 * only fastify needs (FRAMEWORK_ONLY_HOOKS, each with its reason) would run on one path only:
 * these tests fail when the app registers one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, createStorage, loadConfig, serverDeps } from '@pkg/server';
import { startRegistry, type TestRegistry } from '@pkg/testkit';
import { FRAMEWORK_ONLY_HOOKS, type RequestPipeline } from '../../src/http/request-steps.js';

/**
 * Each route's hooks, from fastify's route tree (`printRoutes`): `GET /:name` → {onRequest:
 * [names], ...}. A node's path is its parents' segments and its own; a line without a branch
 * is another method of the node above.
 */
function hooksByRoute(listing: string): Map<string, Record<string, string[]>> {
  const routes = new Map<string, Record<string, string[]>>();
  const segments: string[] = [];
  let current: Record<string, string[]>[] = [];
  for (const line of listing.split('\n')) {
    const hooks = /• \((\w+)\) (\[.*\])\s*$/.exec(line);
    if (hooks) {
      const names = (JSON.parse(hooks[2]!) as string[]).map((name) => name.replace(/\(\)$/, ''));
      for (const route of current) route[hooks[1]!] = names;
      continue;
    }
    const node = /^(.*?)(?:├── |└── )(\S+) \(([A-Z, ]+)\)\s*$/.exec(line);
    const sibling = node ? undefined : /^[│ ]*(\S+) \(([A-Z, ]+)\)\s*$/.exec(line);
    if (node) segments.splice(node[1]!.length / 4, Infinity, node[2]!);
    const methods = node?.[3] ?? sibling?.[2];
    if (methods === undefined) continue;
    const routePath = segments.join('');
    current = methods.split(', ').map((method) => {
      const route = {};
      routes.set(`${method} ${routePath}`, route);
      return route;
    });
  }
  return routes;
}

/** What is wrong with the hooks of every route, as one line each (nothing: the app keeps the rule). */
function hookProblems(listing: string, pipeline: RequestPipeline): string[] {
  const steps = {
    onRequest: pipeline.beforeHandler.map((step) => step.name),
    onSend: pipeline.beforeSend.map((step) => step.name),
    onResponse: pipeline.afterResponse.map((step) => step.name),
  };
  const problems: string[] = [];
  for (const [route, hooks] of hooksByRoute(listing)) {
    for (const [phase, names] of Object.entries(hooks)) {
      const expected: string[] = steps[phase as keyof typeof steps] ?? [];
      // The pipeline's steps come first, in order (they are installed on the root before any route).
      if (names.slice(0, expected.length).join() !== expected.join()) {
        problems.push(`${route}: ${phase} hooks ${names.join(', ')} do not start with the steps ${expected.join(', ')}`);
      }
      for (const name of names.slice(expected.length)) {
        if (!(name in FRAMEWORK_ONLY_HOOKS)) problems.push(`${route}: ${phase} hook '${name}' is not a request step`);
      }
    }
    for (const [phase, expected] of Object.entries(steps)) {
      if (expected.length > 0 && !(phase in hooks) && !route.startsWith('HEAD')) {
        problems.push(`${route}: no ${phase} hooks`);
      }
    }
  }
  return problems;
}

describe('the request pipeline', () => {
  let registry: TestRegistry;

  beforeAll(async () => {
    registry = await startRegistry({ captureLogs: true, settings: { rateLimitAnonymous: 1000 } });
  });
  afterAll(async () => {
    await registry.close();
  });

  it('lists the steps in the order both paths run them', () => {
    const names = (steps: readonly { name: string }[]) => steps.map((step) => step.name);
    expect(names(registry.pipeline.beforeHandler)).toEqual([
      'refuseWhileDraining',
      'requestContext',
      'rateLimit',
      'readAccess',
      'tokenLimits',
    ]);
    expect(names(registry.pipeline.beforeSend)).toEqual(['closeWhileDraining']);
    expect(names(registry.pipeline.afterResponse)).toEqual(['responseDone', 'requestLog', 'requestMetrics']);
  });

  it('is what every route of the app runs, besides the hooks only fastify needs', () => {
    const listing = registry.app.printRoutes({ includeHooks: true, commonPrefix: false });
    const routes = hooksByRoute(listing);
    // The listing was read: the registry's routes, the web pages' among them, are all there.
    expect([...routes.keys()]).toEqual(expect.arrayContaining(['GET /:name', 'PUT /:name', 'GET /-/whoami', 'GET /']));
    expect(routes.get('GET /:name')!.onRequest).toEqual(registry.pipeline.beforeHandler.map((step) => step.name));
    expect(routes.get('GET /')!.onSend).toContain('htmlResponses');
    expect(hookProblems(listing, registry.pipeline)).toEqual([]);
  });

  it('runs on fastify for a request the hot path never sees (inject)', async () => {
    const lines = registry.logLines.length;
    const res = await registry.app.inject({ method: 'GET', url: '/com.acme.nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
    // Log lines go out once per turn of the event loop.
    const logged = () =>
      registry.logLines
        .slice(lines)
        .join('')
        .split('\n')
        .filter((line) => line.includes('"msg":"request"'))
        .map((line) => JSON.parse(line) as { url: string; status: number });
    await vi.waitFor(() => expect(logged()).toMatchObject([{ url: '/com.acme.nothing-here', status: 404 }]));
  });
});

describe('a hook outside the list', () => {
  it('is found, on the root or inside a plugin', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-pipeline-'));
    const config = loadConfig({ flags: { data: dir, logLevel: 'silent' }, env: {} });
    const storage = await createStorage(config);
    try {
      const built = await buildApp(serverDeps(config, storage));
      built.app.addHook('onRequest', function countVisitors(_request, _reply, done) {
        done();
      });
      await built.app.register(async (child) => {
        child.addHook('onResponse', async function auditTrail() {});
        child.get('/-/audited', async () => ({}));
      });
      await built.app.ready();
      const problems = hookProblems(built.app.printRoutes({ includeHooks: true, commonPrefix: false }), built.pipeline);
      expect(problems).toContain("GET /:name: onRequest hook 'countVisitors' is not a request step");
      expect(problems).toContain("GET /-/audited: onResponse hook 'auditTrail' is not a request step");
      await built.app.close();
    } finally {
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
