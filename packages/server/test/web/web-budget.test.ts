import { afterEach, describe, expect, it } from 'vitest';
import { request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { SETTINGS } from '../../src/config/settings.js';
import { WebClient, decodeEntities } from './web-client.js';

let registry: TestRegistry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

/** The stylesheet a page links to. */
function stylesheetOf(html: string): string {
  const path = /<link rel="stylesheet" href="([^"]+)"/.exec(html)?.[1];
  if (!path) throw new Error('the page links no stylesheet');
  return path;
}

describe('the web budget', () => {
  it('is apart from the API limit: pages and assets do not use it up, nor does the API use up the pages', async () => {
    registry = await startRegistry({ settings: { rateLimitAnonymous: 3, rateLimitWeb: 50 } });
    const web = new WebClient(registry.url);
    const statuses: number[] = [];
    let stylesheet = '';
    for (let i = 0; i < 10; i++) {
      const page = await web.get(i % 2 === 0 ? '/' : '/-/web/search?q=x');
      statuses.push(page.status);
      expect(page.headers.get('x-ratelimit-limit')).toBe('50');
      expect(page.headers.get('x-ratelimit-remaining')).toBe(String(50 - i - 1));
      stylesheet = stylesheetOf(page.html);
      const css = await web.get(stylesheet);
      statuses.push(css.status);
      expect(css.headers.get('x-ratelimit-limit')).toBe('150');
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    // The API's own budget is untouched by twenty web requests…
    for (let i = 0; i < 3; i++) expect((await request(`${registry.url}/-/ping`)).status).toBe(200);
    expect((await request(`${registry.url}/-/ping`)).status).toBe(429);
    // …and its being used up does not limit the pages.
    expect((await web.get('/')).status).toBe(200);
  });

  it('past the page budget answers a styled 429 page that says when to come back, and its stylesheet still loads', async () => {
    registry = await startRegistry({ settings: { rateLimitWeb: 4 } });
    const web = new WebClient(registry.url);
    for (let i = 0; i < 4; i++) expect((await web.get('/')).status).toBe(200);
    const limited = await web.get('/-/web/search?q=widgets');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    const text = decodeEntities(limited.html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' '));
    expect(text).toContain('Too many requests');
    expect(text).toContain('Page limit of 4 web pages per hour per IP exceeded from your network address');
    expect(text).toMatch(/Please come back in \d+ (minutes|seconds), at \d\d:\d\d UTC ?\./);
    expect(limited.html).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[^"]+">\d\d:\d\d UTC<\/time>/);
    // The page is styled: its stylesheet, icon and the API are all served past the page budget.
    const css = await web.get(stylesheetOf(limited.html));
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await request(`${registry.url}/-/ping`)).status).toBe(200);
    // A package page and an unknown page are pages too.
    expect((await web.get('/-/web/package/com.acme.none')).status).toBe(429);
    expect((await web.get('/-/web/nothing-here')).status).toBe(429);
  });

  it('counts per client address: another address keeps its own budget', async () => {
    registry = await startRegistry({ settings: { rateLimitWeb: 2, trustProxy: 'true' } });
    const office = new WebClient(registry.url);
    const home = new WebClient(registry.url);
    for (let i = 0; i < 2; i++) expect((await office.get('/', { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
    expect((await office.get('/', { 'x-forwarded-for': '203.0.113.7' })).status).toBe(429);
    expect((await home.get('/', { 'x-forwarded-for': '198.51.100.9' })).status).toBe(200);
  });

  it('assets have three times the page budget, so they are still bounded', async () => {
    registry = await startRegistry({ settings: { rateLimitWeb: 1 } });
    const web = new WebClient(registry.url);
    const stylesheet = stylesheetOf((await web.get('/')).html);
    for (let i = 0; i < 3; i++) expect((await web.get(stylesheet)).status).toBe(200);
    const over = await web.get(stylesheet);
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('0 disables it', async () => {
    registry = await startRegistry({ settings: { rateLimitWeb: 0 } });
    const web = new WebClient(registry.url);
    for (let i = 0; i < 5; i++) {
      const page = await web.get('/');
      expect(page.status).toBe(200);
      expect(page.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

  it('defaults to a budget an office of a hundred people browsing all hour stays under', () => {
    const setting = SETTINGS.find((s) => s.key === 'rateLimitWeb');
    // A hundred people each opening a page every 20 seconds for an hour: 18,000 pages.
    expect(setting?.default).toBeGreaterThanOrEqual(100 * 180);
  });
});
