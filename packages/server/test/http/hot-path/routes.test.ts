/** The parity table: each request the hot path answers, or leaves to fastify, on the global registry, compared with fastify's answer. */
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  bearer,
  closeTarget,
  comparePair,
  HOT,
  NPM_ACCEPT,
  SIGNED,
  startGlobalRegistry,
  UNKNOWN,
  type Case,
  type GlobalRegistry,
  type Target,
} from './harness.js';

describe('on the global registry', () => {
  let target: Target;
  let token: string;
  let otherToken: string;
  let tags: GlobalRegistry['tags'];

  beforeAll(async () => {
    ({ target, token, otherToken, tags } = await startGlobalRegistry());
  });
  afterAll(async () => {
    await closeTarget(target);
  });

  /** Every kind of request the hot path answers, by route: documents, tarballs, whoami. */
  const parity: Case[] = [
    { label: 'full document', exchange: () => ({ path: `/${HOT}` }), status: 200 },
    {
      label: "abbreviated document (npm's Accept)",
      exchange: () => ({ path: `/${HOT}`, headers: { accept: NPM_ACCEPT } }),
      status: 200,
    },
    {
      label: 'abbreviated document (bare install type)',
      exchange: () => ({ path: `/${HOT}`, headers: { accept: 'application/vnd.npm.install-v1+json' } }),
      status: 200,
    },
    { label: 'gzip', exchange: () => ({ path: `/${HOT}`, headers: { 'accept-encoding': 'gzip' } }), status: 200 },
    { label: 'br', exchange: () => ({ path: `/${HOT}`, headers: { 'accept-encoding': 'br' } }), status: 200 },
    { label: 'gzip and br', exchange: () => ({ path: `/${HOT}`, headers: { 'accept-encoding': 'gzip, br' } }), status: 200 },
    { label: 'any coding', exchange: () => ({ path: `/${HOT}`, headers: { 'accept-encoding': '*' } }), status: 200 },
    {
      label: 'abbreviated, gzip, deflate, br (npm)',
      exchange: () => ({ path: `/${HOT}`, headers: { accept: NPM_ACCEPT, 'accept-encoding': 'gzip, deflate, br' } }),
      status: 200,
    },
    {
      label: 'If-None-Match with the etag',
      exchange: () => ({ path: `/${HOT}`, headers: { 'if-none-match': tags.identity } }),
      status: 304,
    },
    {
      label: 'If-None-Match with the gzip etag, gzip accepted',
      exchange: () => ({ path: `/${HOT}`, headers: { 'if-none-match': tags.gzip, 'accept-encoding': 'gzip' } }),
      status: 304,
    },
    {
      label: 'If-None-Match with the gzip etag, no coding accepted',
      exchange: () => ({ path: `/${HOT}`, headers: { 'if-none-match': tags.gzip } }),
      status: 304,
    },
    {
      label: 'If-None-Match with the abbreviated etag',
      exchange: () => ({ path: `/${HOT}`, headers: { accept: NPM_ACCEPT, 'if-none-match': tags.abbreviated } }),
      status: 304,
    },
    {
      label: 'If-None-Match with another etag',
      exchange: () => ({ path: `/${HOT}`, headers: { 'if-none-match': '"something-else"' } }),
      status: 200,
    },
    {
      label: 'If-Modified-Since the last modification',
      exchange: () => ({ path: `/${HOT}`, headers: { 'if-modified-since': tags.lastModified } }),
      status: 304,
    },
    {
      label: 'If-Modified-Since long ago',
      exchange: () => ({ path: `/${HOT}`, headers: { 'if-modified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' } }),
      status: 200,
    },
    {
      label: 'an Accept-Version header (a fastify route constraint)',
      exchange: () => ({ path: `/${HOT}`, headers: { 'accept-version': '1.0.0' } }),
      status: 200,
    },
    { label: 'unknown package', exchange: () => ({ path: `/${UNKNOWN}` }), status: 404 },
    { label: 'unknown package, asked again (remembered 404)', exchange: () => ({ path: `/${UNKNOWN}` }), status: 404 },
    { label: 'a name that looks like a file', exchange: () => ({ path: '/favicon.ico' }), status: 404 },
    { label: 'document with a token', exchange: () => ({ path: `/${HOT}`, headers: bearer(token) }), status: 200 },
    {
      label: 'document with a garbage token (anonymous)',
      exchange: () => ({ path: `/${HOT}`, headers: bearer('not-a-real-token-0123456789') }),
      status: 200,
    },
    { label: 'tarball', exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz` }), status: 200 },
    { label: 'tarball over 1 MiB (streamed)', exchange: () => ({ path: `/${HOT}/-/${HOT}-1.1.0.tgz` }), status: 200 },
    {
      label: 'tarball with a token',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz`, headers: bearer(otherToken) }),
      status: 200,
    },
    {
      label: 'tarball, If-None-Match with its integrity',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz`, headers: { 'if-none-match': tags.tarball } }),
      status: 304,
    },
    {
      label: 'tarball with gzip accepted (sent as stored)',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz`, headers: { 'accept-encoding': 'gzip, br' } }),
      status: 200,
    },
    { label: 'tarball of an unknown version', exchange: () => ({ path: `/${HOT}/-/${HOT}-9.9.9.tgz` }), status: 404 },
    { label: 'missing .sigstore', exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.sigstore` }), status: 404 },
    { label: '.sigstore', exchange: () => ({ path: `/${SIGNED}/-/${SIGNED}-1.0.0.sigstore` }), status: 200 },
    { label: 'tarball of an unknown package', exchange: () => ({ path: `/${UNKNOWN}/-/${UNKNOWN}-1.0.0.tgz` }), status: 404 },
    { label: "another package's file name", exchange: () => ({ path: `/${HOT}/-/${SIGNED}-1.0.0.tgz` }), status: 404 },
    { label: 'a file name that is no tarball', exchange: () => ({ path: `/${HOT}/-/package.json` }), status: 404 },
    { label: 'a file name of 500 characters', exchange: () => ({ path: `/${HOT}/-/${'x'.repeat(500)}` }), status: 404 },
    { label: 'a file name with a semicolon', exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz;x=1` }), status: 404 },
    { label: 'whoami with a token', exchange: () => ({ path: '/-/whoami', headers: bearer(token) }), status: 200 },
    { label: 'whoami without a token', exchange: () => ({ path: '/-/whoami' }), status: 401 },
    {
      label: 'whoami with a garbage token',
      exchange: () => ({ path: '/-/whoami', headers: bearer('not-a-real-token-0123456789') }),
      status: 401,
    },
    {
      label: 'whoami with Basic credentials',
      exchange: () => ({
        path: '/-/whoami',
        headers: { authorization: `Basic ${Buffer.from('alice:secret-password').toString('base64')}` },
      }),
      status: 200,
    },
    {
      label: 'a document with a wrong Basic password',
      exchange: () => ({
        path: `/${HOT}`,
        headers: { authorization: `Basic ${Buffer.from('alice:wrong-password').toString('base64')}` },
      }),
      status: 401,
    },
  ];

  it.each(parity)('$label: the hot path answers as fastify does', async (c) => {
    await comparePair(target, c.exchange(), { status: c.status });
  });

  const fallThrough: Case[] = [
    { label: 'HEAD of a document', exchange: () => ({ method: 'HEAD', path: `/${HOT}` }), status: 200 },
    { label: 'HEAD of a tarball', exchange: () => ({ method: 'HEAD', path: `/${HOT}/-/${HOT}-1.0.0.tgz` }), status: 200 },
    { label: '?write=true', exchange: () => ({ path: `/${HOT}?write=true` }), status: 200 },
    { label: 'a query string on whoami', exchange: () => ({ path: '/-/whoami?x=1', headers: bearer(token) }), status: 200 },
    { label: 'a trailing slash', exchange: () => ({ path: `/${HOT}/` }), status: 200 },
    { label: 'whoami with a trailing slash', exchange: () => ({ path: '/-/whoami/', headers: bearer(token) }), status: 200 },
    { label: 'percent-encoding', exchange: () => ({ path: `/com.acme%2ehot` }), status: 200 },
    { label: 'percent-encoding in a file name', exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0%2etgz` }), status: 200 },
    { label: 'an invalid name (uppercase)', exchange: () => ({ path: '/Com.Acme.Hot' }), status: 422 },
    { label: 'an invalid name (one segment)', exchange: () => ({ path: '/hot' }), status: 422 },
    {
      label: 'a file name over 500 characters',
      exchange: () => ({ path: `/${HOT}/-/${'x'.repeat(501)}` }),
      status: 400,
      uncounted: true,
    },
    {
      label: 'bad percent-encoding',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz%E0%A4%A` }),
      status: 400,
      uncounted: true,
    },
    { label: 'a document name followed by a fragment', exchange: () => ({ path: `/${HOT}#fragment` }), status: 200 },
    {
      label: 'Content-Encoding: br (unsupported) without a body',
      exchange: () => ({ path: `/${HOT}`, headers: { 'content-encoding': 'br' } }),
      status: 415,
    },
    {
      label: 'Content-Encoding: gzip without a body',
      exchange: () => ({ path: `/${HOT}`, headers: { 'content-encoding': 'gzip' } }),
      status: 200,
    },
    {
      label: 'a file name followed by a fragment',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz#fragment` }),
      status: 200,
    },
    { label: 'a version', exchange: () => ({ path: `/${HOT}/1.0.0` }), status: 200 },
    { label: 'POST', exchange: () => ({ method: 'POST', path: `/${HOT}` }), status: 404 },
    {
      label: 'PUT without a token',
      exchange: () => ({ method: 'PUT', path: `/${HOT}`, headers: { 'content-type': 'application/json' }, body: '{}' }),
      status: 401,
    },
    { label: '/-/ping', exchange: () => ({ path: '/-/ping' }), status: 200 },
    { label: 'a GET with a body', exchange: () => ({ path: `/${HOT}`, body: 'x' }), status: 200 },
    { label: 'a GET with a chunked body', exchange: () => ({ path: `/${HOT}`, body: 'x', chunked: true }), status: 200 },
    {
      label: 'whoami with a body',
      exchange: () => ({ path: '/-/whoami', headers: bearer(token), body: '{}' }),
      status: 200,
    },
  ];

  it.each(fallThrough)('$label: left to fastify', async (c) => {
    await comparePair(target, c.exchange(), { status: c.status, hot: false, uncounted: c.uncounted });
  });
});
