import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, startRegistry, type TestRegistry } from '@pkg/testkit';
import { launchChromium } from './browser.js';

/**
 * Accessibility of every page type in Chromium: axe-core (WCAG 2.0, 2.1 and 2.2 A and AA, and
 * its best practices) finds nothing at 320, 768 and 1280 px wide in the light and the dark
 * scheme; and the rest the audit asked for, which axe does not measure: titles, Copy button
 * names, focus order against the layout, form errors, chart text, bidi isolation, long words,
 * and a keyboard path for every action.
 */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
const WIDTHS = [320, 768, 1280] as const;
const SCHEMES = ['light', 'dark'] as const;
/** The six views: each width in each scheme. */
const VIEWS = WIDTHS.flatMap((width) => SCHEMES.map((scheme) => ({ width, scheme })));
/**
 * `npm test` checks each page type once, in one of the six views taken in turn (so each view
 * checks two or three page types); `npm run test:a11y` checks every page type in every view, six
 * times the browser time.
 */
const EVERY_VIEW = process.env.PKG_TEST_A11Y === 'every-view';

let registry: TestRegistry;
let limited: TestRegistry;
let browser: Browser;
let axeSource: string;
let loginUrl: string;
let invitationUrl: string;
/** Visits of the budget-limited registry so far. */
let visitors = 0;

const README = `# Quest Log

A quest journal for Unity, Godot and Unreal projects. Supercalifragilisticexpialidociousquestlogentrywithoutanybreaksatall.

<details><summary>Why another quest log?</summary>

Because <kbd>Ctrl</kbd>+<kbd>J</kbd> opens it.

</details>

<p align="center">Centred text</p>

\`\`\`csharp
public sealed class QuestLog : MonoBehaviour { public string Title = "A very long line of code that certainly does not fit on a phone's screen at all"; }
\`\`\`

| Setting | Default | Meaning of the setting, which is a long sentence that would crush a narrow column |
|--|--|--|
| autosave | true | Saves the log whenever a quest changes state, so that nothing is lost on a crash |

See the [changelog](CHANGELOG.md).
`;

beforeAll(async () => {
  axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  [registry, limited, browser] = await Promise.all([
    startRegistry(),
    // Each visit comes from an address of its own (X-Forwarded-For, trusted here), with a fresh budget.
    startRegistry({ settings: { rateLimitWeb: 1, trustProxy: 'true' } }),
    launchChromium(),
  ]);
  const token = await loginUser(registry.url, 'alice', 'pw-alice');
  await loginUser(registry.url, 'erin', 'pw-erin');
  const publish = async (name: string, version: string, manifest: Record<string, unknown>, readme?: string) => {
    const res = await publishVersion(registry.url, token, name, version, { manifest, ...(readme ? { readme } : {}) });
    if (res.status !== 201) throw new Error(`publish ${name}@${version}: ${res.status} ${res.text}`);
  };
  const repository = { type: 'git', url: 'git+https://github.com/studio/questlog.git' };
  await publish('com.studio.core', '1.0.0', { description: 'Core', unity: '2021.3' });
  await publish('com.studio.questlog', '1.0.0', { description: 'Quest log', unity: '2021.3', repository }, README);
  await publish(
    'com.studio.questlog',
    '1.1.0',
    {
      displayName: 'Quest Log',
      // A right-to-left override in a description must not turn the rest of the page around.
      description: 'Quest journal \u202Egol tseuq\u202C with Arabic: سجل المهام',
      unity: '2022.3',
      godot: '4.2',
      unreal: '5.3',
      license: 'MIT',
      keywords: ['quests', 'ui'],
      repository,
      bugs: { url: 'https://github.com/studio/questlog/issues' },
      dependencies: { 'com.studio.core': '1.0.0' },
    },
    README,
  );
  await publish('com.studio.bare', '0.1.0', { description: 'No readme at all', godot: '4.2' });
  // The account page shows alice's teams and their namespaces.
  await loginUser(registry.url, 'bob', 'pw-bob');
  await registry.storage.teams.create('', 'studio', new Date().toISOString(), ['alice', 'bob']);
  await registry.storage.teams.claim('', 'studio', 'com.studio.*');
  await registry.storage.teams.claim('', 'studio', 'com.studio-labs.*');
  for (let i = 0; i < 3; i++)
    await (await fetch(`${registry.url}/com.studio.questlog/-/com.studio.questlog-1.1.0.tgz`)).arrayBuffer();
  await registry.services.downloads.flush();
  const login = await fetch(`${registry.url}/-/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  loginUrl = ((await login.json()) as { loginUrl: string }).loginUrl;
  // alice administers the registry (its webhooks and audit log pages) and maintains questlog (its advisories).
  await registry.storage.registry.users.update('', 'alice', { admin: true });
  const advisory = await fetch(`${registry.url}/-/pkg/v1/advisories/com.studio.questlog`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      id: 'CVE-2026-1111',
      severity: 'high',
      vulnerable_versions: '<1.1.0',
      patched_versions: '>=1.1.0',
      title: 'Quest files run scripts',
      description: 'Opening a quest file runs the scripts it holds.',
      url: 'https://example.com/CVE-2026-1111',
    }),
  });
  if (advisory.status !== 201) throw new Error(`advisory: ${advisory.status}`);
  const hook = await registry.services.webhooks.add('', { url: 'http://127.0.0.1:9/ci', events: ['*'], createdBy: 'alice' });
  // A delivery for the hook's log (it fails: nothing listens there).
  await publish('com.studio.hooked', '1.0.0', { description: 'Published after the webhook was added' });
  if ((await registry.services.webhooks.deliveries('', hook.hook.id)).length === 0) throw new Error('no delivery');
  const invitation = await registry.services.invitations.create('', { invitedBy: 'alice', email: 'new@example.com' });
  invitationUrl = `${registry.url}/-/web/invitation/${invitation.secret}`;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await registry?.close();
  await limited?.close();
});

async function openPage(
  width: number,
  colorScheme: 'light' | 'dark' = 'light',
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height: 800 }, colorScheme });
  const page = await context.newPage();
  page.on('dialog', (dialog) => {
    throw new Error(`unexpected dialog: ${dialog.message()}`);
  });
  return { context, page };
}

async function signIn(page: Page, base = registry.url): Promise<void> {
  await page.goto(`${base}/-/web/signin`);
  await page.getByLabel('User name').fill('alice');
  await page.getByLabel('Password', { exact: true }).fill('pw-alice');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/-\/web\/account$/);
}

interface AxeResult {
  violations: { id: string; impact: string; nodes: { target: string[]; failureSummary: string }[] }[];
  passes: unknown[];
}

/** axe's violations on the page, one line each (injected through the DevTools protocol: the page's CSP allows no inline script). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate(
    (tags) =>
      (window as unknown as { axe: { run: (ctx: Document, o: unknown) => Promise<unknown> } }).axe.run(document, {
        runOnly: { type: 'tag', values: tags },
      }),
    AXE_TAGS,
  );
  // A run that checked nothing would pass anything.
  expect((result as AxeResult).passes.length).toBeGreaterThan(10);
  return (result as AxeResult).violations.flatMap((v) =>
    v.nodes.map((n) => `${v.id} (${v.impact}) at ${n.target.join(' ')}: ${n.failureSummary}`),
  );
}

/** Every page type, each reached as a user would, with what it needs (a sign-in, a failed one). */
const PAGES: { name: string; open: (page: Page) => Promise<unknown> }[] = [
  { name: 'home', open: (page) => page.goto(`${registry.url}/`) },
  { name: 'search', open: (page) => page.goto(`${registry.url}/-/web/search?q=quest`) },
  {
    name: 'search by engine, nothing found',
    open: (page) => page.goto(`${registry.url}/-/web/search?q=nothing+engine%3Aunreal`),
  },
  { name: 'package', open: (page) => page.goto(`${registry.url}/-/web/package/com.studio.questlog`) },
  { name: 'older version', open: (page) => page.goto(`${registry.url}/-/web/package/com.studio.questlog?version=1.0.0`) },
  { name: 'package without readme', open: (page) => page.goto(`${registry.url}/-/web/package/com.studio.bare`) },
  { name: 'sign-in', open: (page) => page.goto(`${registry.url}/-/web/signin`) },
  {
    name: 'failed sign-in',
    open: async (page) => {
      await page.goto(`${registry.url}/-/web/signin`);
      await page.getByLabel('User name').fill('alice');
      await page.getByLabel('Password', { exact: true }).fill('wrong');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('#signin-error').waitFor();
    },
  },
  {
    name: 'account',
    open: (page) => signIn(page),
  },
  {
    // Another account, so that alice's account page stays as it is. The first run sets
    // enrolment up; later ones find it waiting for its first code, its QR code shown.
    name: 'two-factor enrolment',
    open: async (page) => {
      await page.context().clearCookies();
      await page.goto(`${registry.url}/-/web/signin`);
      await page.getByLabel('User name').fill('erin');
      await page.getByLabel('Password', { exact: true }).fill('pw-erin');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/-\/web\/account$/);
      const password = page.locator('#two-factor-password');
      if (await password.isVisible()) {
        await password.fill('pw-erin');
        await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
      }
      await page.locator('.qr-code svg').waitFor();
    },
  },
  {
    // A maintainer's view, with a refused publish: the error tied to the fields.
    name: 'advisories',
    open: async (page) => {
      await page.context().clearCookies();
      await signIn(page);
      await page.goto(`${registry.url}/-/web/package/com.studio.questlog/advisories`);
      await page.getByLabel('Affected versions').fill('not a range');
      await page.getByLabel('Title').fill('Another flaw');
      await page.getByRole('button', { name: 'Publish advisory' }).click();
      await page.locator('#publish-error').waitFor();
    },
  },
  {
    name: 'webhooks',
    open: async (page) => {
      await page.context().clearCookies();
      await signIn(page);
      await page.goto(`${registry.url}/-/web/webhooks`);
    },
  },
  {
    name: 'audit log',
    open: async (page) => {
      await page.context().clearCookies();
      await signIn(page);
      await page.goto(`${registry.url}/-/web/audit`);
    },
  },
  { name: 'invitation', open: (page) => page.goto(invitationUrl) },
  { name: 'npm login', open: (page) => page.goto(loginUrl) },
  { name: 'not found', open: (page) => page.goto(`${registry.url}/-/web/package/com.studio.missing`) },
  {
    name: 'too many requests',
    open: async (page) => {
      await page.setExtraHTTPHeaders({ 'x-forwarded-for': `198.51.100.${++visitors}` });
      await page.goto(`${limited.url}/`);
      const response = await page.goto(`${limited.url}/-/web/search?q=x`);
      expect(response?.status()).toBe(429);
    },
  },
];

describe('axe finds nothing', () => {
  for (const [view, { width, scheme }] of VIEWS.entries()) {
    const pages = () => (EVERY_VIEW ? PAGES : PAGES.filter((_, i) => i % VIEWS.length === view));
    it(`at ${width} px, ${scheme}, on ${EVERY_VIEW ? 'every page type' : 'its share of the page types'}`, async () => {
      const { context, page } = await openPage(width, scheme);
      const found: string[] = [];
      const checked: string[] = [];
      for (const { name, open } of pages()) {
        await open(page);
        checked.push(name);
        found.push(...(await axeViolations(page)).map((v) => `${name}: ${v}`));
        // Nothing scrolls the page sideways, whatever the words.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        if (overflow > 0) found.push(`${name}: the page scrolls sideways by ${overflow} px`);
      }
      expect(checked.length).toBeGreaterThanOrEqual(2);
      expect(found).toEqual([]);
      await context.close();
    }, 240_000);
  }

  it('checks every page type in some view', () => {
    const covered = VIEWS.flatMap((_, view) => PAGES.filter((__, i) => i % VIEWS.length === view));
    expect(covered.map((p) => p.name).sort()).toEqual(PAGES.map((p) => p.name).sort());
  });
});

describe('what axe does not measure', () => {
  it('gives every page a title of its own', async () => {
    const { context, page } = await openPage(1280);
    const titles: string[] = [];
    for (const { name, open } of PAGES.filter((p) => p.name !== 'too many requests')) {
      await open(page);
      titles.push(`${await page.title()}`);
      expect(await page.title(), name).not.toBe('');
    }
    expect(new Set(titles).size).toBe(titles.length);
    await context.close();
  });

  it('names each Copy button after what it copies', async () => {
    const { context, page } = await openPage(1280);
    await page.goto(`${registry.url}/-/web/package/com.studio.questlog`);
    const names = await page
      .getByRole('button', { name: /^Copy/ })
      .evaluateAll((buttons) => buttons.map((b) => (b.textContent ?? '').replace(/\s+/g, ' ').trim()));
    expect(names).toEqual(['Copy the pkg command', 'Copy the manifest snippet', 'Copy the npm command']);
    await context.close();
  });

  it('moves focus in the order the columns are read: the readme, then the sidebar', async () => {
    const { context, page } = await openPage(1280);
    await page.goto(`${registry.url}/-/web/package/com.studio.questlog`);
    const order: string[] = [];
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      const where = await page.evaluate(() => {
        const el = document.activeElement;
        if (!el || el === document.body) return 'body';
        return el.closest('.readme') ? 'readme' : el.closest('aside') ? 'aside' : el.closest('footer') ? 'footer' : 'other';
      });
      if (where === 'body') break;
      order.push(where);
    }
    const firstAside = order.indexOf('aside');
    expect(order.indexOf('readme')).toBeGreaterThan(-1);
    expect(firstAside).toBeGreaterThan(order.lastIndexOf('readme'));
    // and on the screen the readme is the left column
    const readme = await page.locator('.readme').boundingBox();
    const aside = await page.locator('aside').boundingBox();
    expect(readme!.x).toBeLessThan(aside!.x);
    await context.close();
  });

  it('ties a failed sign-in to its fields and moves the focus to them', async () => {
    const { context, page } = await openPage(768);
    await page.goto(`${registry.url}/-/web/signin`);
    await page.getByLabel('User name').fill('alice');
    await page.getByLabel('Password', { exact: true }).fill('wrong');
    await page.keyboard.press('Enter');
    await page.locator('#signin-error').waitFor();
    // The browser moves the focus to an autofocus field after the page renders, not as it parses:
    // wait for it (a timeout here is the focus never arriving).
    await page.locator('#name:focus').waitFor();
    const focus = await page.evaluate(() => {
      const el = document.activeElement as HTMLInputElement;
      const described = document.getElementById(el.getAttribute('aria-describedby') ?? '');
      return { id: el.id, invalid: el.getAttribute('aria-invalid'), description: described?.textContent?.trim() };
    });
    expect(focus.id).toBe('name');
    expect(focus.invalid).toBe('true');
    expect(focus.description).toMatch(/\S/);
    await expect(page.locator('#password').getAttribute('aria-invalid')).resolves.toBe('true');
    await context.close();
  });

  it('ties a refused token form and refused audit filters to their fields, which look like the other forms’', async () => {
    const { context, page } = await openPage(768, 'dark');
    /**
     * Each text field of the page's forms: whether it is marked invalid, what describes it last,
     * and whether it looks like the header's search field (one stylesheet rule styles both, by type).
     */
    const fields = () =>
      page.evaluate(() => {
        const look = (el: Element) => {
          const style = getComputedStyle(el);
          return [style.borderTopStyle, style.borderTopWidth, style.borderRadius, style.paddingTop].join(' ');
        };
        const searchLook = look(document.getElementById('header-q')!);
        const inputs = Array.from(document.querySelectorAll('main form input')).filter(
          (el) => !['hidden', 'radio', 'checkbox'].includes(el.getAttribute('type') ?? ''),
        );
        return inputs.map((el) => {
          const described = (el.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
          return {
            id: el.id,
            invalid: el.getAttribute('aria-invalid'),
            lastDescription: document.getElementById(described.at(-1) ?? '')?.getAttribute('role') ?? null,
            styled: look(el) === searchLook,
          };
        });
      });

    await signIn(page);
    await page.getByLabel('Address ranges').fill('nowhere');
    await page.locator('#token-password').fill('pw-alice');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.locator('#token-error').waitFor();
    const account = await fields();
    const tokenFields = account.filter((f) => f.id.startsWith('token-'));
    expect(tokenFields.map((f) => f.id)).toEqual([
      'token-name',
      'token-packages',
      'token-cidr',
      'token-expires',
      'token-password',
    ]);
    for (const field of tokenFields)
      expect(field).toEqual({ id: field.id, invalid: 'true', lastDescription: 'alert', styled: true });
    // the two-factor form was not the one refused
    expect(account.find((f) => f.id === 'two-factor-password')).toMatchObject({ invalid: null, styled: true });
    expect(await axeViolations(page)).toEqual([]);

    await page.goto(`${registry.url}/-/web/audit?since=yesterday`);
    await page.locator('#audit-error').waitFor();
    const filters = await fields();
    expect(filters.map((f) => f.id)).toEqual([
      'audit-user',
      'audit-package',
      'audit-action',
      'audit-outcome',
      'audit-since',
      'audit-until',
    ]);
    for (const field of filters) expect(field).toEqual({ id: field.id, invalid: 'true', lastDescription: 'alert', styled: true });
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });

  it('draws the chart’s text at 12 px or more on a phone, and reads its summary once', async () => {
    const { context, page } = await openPage(320);
    await page.goto(`${registry.url}/-/web/package/com.studio.questlog`);
    const sizes = await page
      .locator('.chart p, .chart figcaption')
      .evaluateAll((els) => els.map((e) => parseFloat(getComputedStyle(e).fontSize)));
    expect(sizes.length).toBeGreaterThan(0);
    for (const size of sizes) expect(size).toBeGreaterThanOrEqual(12);
    const aria = await page.locator('.chart').ariaSnapshot();
    expect(aria.match(/3 downloads in the last 12 weeks/g)).toHaveLength(1);
    expect(aria).not.toContain('per week at most');
    await context.close();
  });

  it('isolates user text for direction and keeps a right-to-left override inside it', async () => {
    const { context, page } = await openPage(1280);
    await page.goto(`${registry.url}/-/web/package/com.studio.questlog`);
    const description = page.locator('.package-head p[dir="auto"]');
    await expect(description.evaluate((el) => getComputedStyle(el).unicodeBidi)).resolves.toBe('isolate');
    await expect(page.locator('h1 bdi').evaluate((el) => getComputedStyle(el).unicodeBidi)).resolves.toBe('isolate');
    // The paragraph after it still reads left to right.
    await expect(page.locator('.jump').evaluate((el) => getComputedStyle(el).direction)).resolves.toBe('ltr');
    await context.close();
  });
});

describe('keyboard paths', () => {
  /** Presses Tab until the focused element matches, at most `max` times; fails otherwise. */
  async function tabTo(page: Page, matches: (el: Element) => boolean, what: string, max = 150): Promise<void> {
    for (let i = 0; i < max; i++) {
      await page.keyboard.press('Tab');
      const handle = await page.evaluateHandle(() => document.activeElement);
      const hit = await handle.evaluate(matches);
      await handle.dispose();
      if (hit) return;
    }
    throw new Error(`Tab never reached ${what}`);
  }

  it('search, filter by engine, open a package, jump to the install lines, copy, scroll a code block, unfold old versions', async () => {
    const { context, page } = await openPage(1280);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: registry.url });
    await page.goto(`${registry.url}/`);
    await tabTo(page, (el) => el.id === 'home-q', 'the search box');
    await page.keyboard.type('quest');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/-\/web\/search\?q=quest/);
    await tabTo(page, (el) => el.textContent === 'Godot' && el.closest('.engine-filter') !== null, 'the Godot filter');
    await page.keyboard.press('Enter');
    await page.waitForURL(/engine%3Agodot/);
    await tabTo(page, (el) => el.classList.contains('name'), 'a result');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/-\/web\/package\/com\.studio\.questlog$/);

    await tabTo(page, (el) => el.getAttribute('href') === '#install-h', 'the install link');
    await page.keyboard.press('Enter');
    await tabTo(page, (el) => el.getAttribute('data-copy') === 'install-command', 'the first Copy button', 10);
    await page.keyboard.press('Enter');
    await page.getByText('Copied the pkg command to the clipboard.').waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(
      `pkg add com.studio.questlog@1.1.0 --registry ${registry.url}`,
    );

    // A wide code block is a region the keyboard can reach and scroll.
    await page.goto(`${registry.url}/-/web/package/com.studio.questlog`);
    await tabTo(
      page,
      (el) => el.getAttribute('role') === 'region' && (el.getAttribute('aria-label') ?? '').startsWith('Code example'),
      'the code block',
    );
    const before = await page.evaluate(() => document.activeElement!.scrollLeft);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    // Arrow keys scroll smoothly: the position moves over a few frames.
    await expect.poll(() => page.evaluate(() => document.activeElement!.scrollLeft)).toBeGreaterThan(before);

    // The readme's folded section opens from the keyboard.
    await tabTo(page, (el) => el.tagName === 'SUMMARY', 'the readme’s summary');
    await page.keyboard.press('Enter');
    await expect(page.locator('.readme details').getAttribute('open')).resolves.toBe('');
    await context.close();
  });

  it('sign in, revoke a token and sign out', async () => {
    const token = await loginUser(registry.url, 'bob', 'pw-bob');
    expect(token).toBeTruthy();
    const { context, page } = await openPage(768);
    await page.goto(`${registry.url}/`);
    await tabTo(page, (el) => el.textContent === 'Sign in' && el.tagName === 'A', 'the sign-in link');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/-\/web\/signin/);
    await tabTo(page, (el) => el.id === 'name', 'the name field');
    await page.keyboard.type('bob');
    await page.keyboard.press('Tab');
    await page.keyboard.type('pw-bob');
    await page.keyboard.press('Enter');
    // Signed in, the account page opens; its link in the header leads back to it from anywhere.
    await page.waitForURL(/\/-\/web\/account$/);
    await page.goto(`${registry.url}/`);
    await tabTo(page, (el) => el.textContent === 'bob', 'the account link');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/-\/web\/account$/);
    await tabTo(page, (el) => el.tagName === 'BUTTON' && /Revoke/.test(el.textContent ?? ''), 'a Revoke button');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect((await fetch(`${registry.url}/-/whoami`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    await tabTo(page, (el) => el.tagName === 'BUTTON' && /Sign out/.test(el.textContent ?? ''), 'the Sign out button');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    await expect(page.locator('.account a').textContent()).resolves.toBe('Sign in');
    await context.close();
  });

  it('publish and withdraw an advisory; add and delete a webhook', async () => {
    const { context, page } = await openPage(1280);
    await signIn(page);
    await page.goto(`${registry.url}/-/web/package/com.studio.bare`);
    await tabTo(page, (el) => el.tagName === 'A' && el.textContent === 'Security advisories', 'the advisories link');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/-\/web\/package\/com\.studio\.bare\/advisories$/);
    await tabTo(page, (el) => el.id === 'advisory-id', 'the id field');
    await page.keyboard.type('KEY-1');
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    await page.keyboard.type('<0.2.0');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Typed with the keyboard');
    await tabTo(page, (el) => el.tagName === 'BUTTON' && el.textContent === 'Publish advisory', 'the Publish button');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    await page.getByText('The advisory was published.').waitFor();
    await tabTo(
      page,
      (el) => el.tagName === 'BUTTON' && el.getAttribute('aria-label') === 'Withdraw advisory KEY-1',
      'its Withdraw button',
    );
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    await page.getByText('The advisory was withdrawn.').waitFor();

    await page.goto(`${registry.url}/-/web/webhooks`);
    await tabTo(page, (el) => el.id === 'add-url', 'the URL field');
    await page.keyboard.type('http://127.0.0.1:9/keyboard');
    await page.keyboard.press('Tab');
    await page.keyboard.type('advisory');
    await tabTo(page, (el) => el.tagName === 'BUTTON' && el.textContent === 'Add webhook', 'the Add button');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    await page.locator('#new-secret').waitFor();
    await tabTo(
      page,
      (el) => el.tagName === 'BUTTON' && el.getAttribute('aria-label') === 'Delete webhook to http://127.0.0.1:9/keyboard',
      'its Delete button',
      400,
    );
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    await page.getByText('The webhook was deleted.').waitFor();
    expect((await registry.services.webhooks.list('')).map((h) => h.url)).not.toContain('http://127.0.0.1:9/keyboard');
    await context.close();
  });
});
