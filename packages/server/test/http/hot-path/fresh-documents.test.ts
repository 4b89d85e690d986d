/** Documents, tarballs and tokens no request has read yet: the hot path reads the store as fastify does. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser } from '@pkg/testkit';
import {
  bearer,
  closeTarget,
  comparePair,
  DEPENDENCIES,
  NPM_ACCEPT,
  publishOn,
  README,
  startGlobalRegistry,
  type Target,
} from './harness.js';

describe('on the global registry', () => {
  let target: Target;
  let token: string;

  beforeAll(async () => {
    ({ target, token } = await startGlobalRegistry());
  });
  afterAll(async () => {
    await closeTarget(target);
  });

  describe('a document not yet in the cache (right after a publish)', () => {
    let serial = 0;
    /** A package published just now, so that no request has read it yet. */
    async function fresh(): Promise<string> {
      const name = `com.acme.fresh${++serial}`;
      const { url } = target.registry;
      await publishOn(url, new URL(url).host, token, name, '1.0.0', { manifest: { dependencies: DEPENDENCIES }, readme: README });
      return name;
    }

    it('full document: the hot path reads the store, fastify then the cache', async () => {
      await comparePair(target, { path: `/${await fresh()}` }, { status: 200 });
    });

    it('gzip: the hot path compresses it first', async () => {
      await comparePair(target, { path: `/${await fresh()}`, headers: { 'accept-encoding': 'gzip' } }, { status: 200 });
    });

    it('abbreviated with br', async () => {
      const name = await fresh();
      await comparePair(target, { path: `/${name}`, headers: { accept: NPM_ACCEPT, 'accept-encoding': 'br' } }, { status: 200 });
    });

    it('the tarball before any document read', async () => {
      const name = await fresh();
      await comparePair(target, { path: `/${name}/-/${name}-1.0.0.tgz` }, { status: 200 });
    });

    it('fastify reads the store first, the hot path then the cache', async () => {
      const name = await fresh();
      await comparePair(target, { path: `/${name}` }, { status: 200, fastifyFirst: true });
      const other = await fresh();
      await comparePair(target, { path: `/${other}`, headers: { 'accept-encoding': 'br' } }, { status: 200, fastifyFirst: true });
    });

    it('a new version: both answer the new document', async () => {
      const name = await fresh();
      await comparePair(target, { path: `/${name}` }, { status: 200 });
      const { url } = target.registry;
      await publishOn(url, new URL(url).host, token, name, '1.1.0', { manifest: { dependencies: DEPENDENCIES }, readme: README });
      const { fastify } = await comparePair(target, { path: `/${name}` }, { status: 200 });
      expect(Object.keys(JSON.parse(fastify.body.toString('utf8')).versions)).toEqual(['1.0.0', '1.1.0']);
    });

    it('whoami with a token no request has used yet', async () => {
      const fresher = await loginUser(target.registry.url, `fresh-user-${++serial}`);
      await comparePair(target, { path: '/-/whoami', headers: bearer(fresher) }, { status: 200 });
    });
  });
});
