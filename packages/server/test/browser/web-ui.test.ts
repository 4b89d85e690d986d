import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantAdmin } from '@pkg/server';
import {
  NpmClient,
  cliVersion,
  expectSuccess,
  loginOn,
  loginUser,
  publishBody,
  publishVersion,
  registryHost,
  request,
  startRegistry,
  systemNpmCli,
  type TestRegistry,
} from '@pkg/testkit';
import { Secret, TOTP } from 'otpauth';
import { launchChromium } from './browser.js';
import { startNpmLogin } from './npm-login-process.js';

// The functions given to page.evaluate run in Chromium. The tests are type-checked without the
// DOM library (its fetch and streams clash with Node's), so these are the page globals they use.
interface PageElement {
  textContent: string | null;
}
declare const navigator: { clipboard: { readText(): Promise<string> } };
declare const window: object;
declare const document: {
  body: PageElement;
  activeElement: PageElement | null;
  documentElement: { scrollWidth: number; clientWidth: number };
};
declare function getComputedStyle(element: PageElement): { backgroundColor: string; outlineStyle: string };

/**
 * The web interface in a real browser (Debian's Chromium driven by playwright-core): one
 * browser for the whole file, a fresh context per test. With PKG_WEB_SCREENSHOTS=<dir> the
 * tests also save screenshots of the main pages there (docs/screenshots is made this way).
 */
let registry: TestRegistry;
let browser: Browser;
const screenshotDir = process.env.PKG_WEB_SCREENSHOTS;

const WIDGETS_README = `# Acme Widgets

Ready-made UI widgets for Unity: buttons, sliders and toggles that follow your theme.

## Usage

\`\`\`csharp
var button = WidgetFactory.Button("Play");
\`\`\`

See the [documentation](https://example.com/widgets) for details.
`;

const EVIL_README = `# Hostile readme

<script>window.__pwned = 'script'</script>

<img src="x" onerror="window.__pwned = 'onerror'">

[click me](javascript:window.__pwned='link')

<a href="javascript:window.__pwned='html-link'">html link</a>
`;

beforeAll(async () => {
  // Tenants are `<name>.localhost`, which Chromium resolves to the loopback address by itself.
  [registry, browser] = await Promise.all([startRegistry({ settings: { registryDomain: 'localhost' } }), launchChromium()]);
  const token = await loginUser(registry.url, 'alice', 'pw-alice');
  const publish = async (name: string, version: string, manifest: Record<string, unknown>, readme?: string) => {
    const res = await publishVersion(registry.url, token, name, version, { manifest, ...(readme ? { readme } : {}) });
    if (res.status !== 201) throw new Error(`publish ${name}@${version}: ${res.status} ${res.text}`);
  };
  await publish('com.acme.core', '1.2.0', { description: 'Core types shared by Acme packages', unity: '2021.3', license: 'MIT' });
  await publish('com.acme.widgets', '1.0.0', {
    displayName: 'Acme Widgets',
    description: 'UI widgets for Unity',
    unity: '2021.3',
    license: 'MIT',
    keywords: ['ui', 'widgets'],
    dependencies: { 'com.acme.core': '1.2.0', 'com.unity.ugui': '1.0.0' },
  });
  await publish(
    'com.acme.widgets',
    '1.1.0',
    {
      displayName: 'Acme Widgets',
      description: 'UI widgets for Unity',
      unity: '2022.3',
      unityRelease: '0f1',
      license: 'MIT',
      author: 'Alice Doe <alice@example.com>',
      keywords: ['ui', 'widgets'],
      dependencies: { 'com.acme.core': '1.2.0', 'com.unity.ugui': '1.0.0' },
    },
    WIDGETS_README,
  );
  await publish('com.acme.hostile', '1.0.0', { description: 'Readme with script' }, EVIL_README);
  // Some downloads, so that the home page and the chart have something to show.
  for (const [file, times] of [
    ['com.acme.widgets/-/com.acme.widgets-1.1.0.tgz', 5],
    ['com.acme.widgets/-/com.acme.widgets-1.0.0.tgz', 2],
    ['com.acme.core/-/com.acme.core-1.2.0.tgz', 3],
  ] as const) {
    for (let i = 0; i < times; i++) await (await fetch(`${registry.url}/${file}`)).arrayBuffer();
  }
  await registry.services.downloads.flush();
  if (screenshotDir) await mkdir(screenshotDir, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await registry?.close();
});

/** A page in a fresh context; fails the test on any dialog (an alert would mean script ran). */
async function openPage(options: Parameters<Browser['newContext']>[0] = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 780 }, ...options });
  const page = await context.newPage();
  page.on('dialog', (dialog) => {
    throw new Error(`unexpected dialog: ${dialog.message()}`);
  });
  return { context, page };
}

async function screenshot(page: Page, name: string): Promise<void> {
  if (screenshotDir) await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: false });
}

describe('the web interface in Chromium', () => {
  it('searches from the home page and opens a package', async () => {
    const { context, page } = await openPage();
    await page.goto(`${registry.url}/`);
    await expect(page.title()).resolves.toContain('Packages');
    await screenshot(page, 'home');
    await page.getByLabel('Search packages').fill('widg');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/-\/web\/search\?q=widg/);
    const result = page.getByRole('link', { name: 'Acme Widgets' });
    await expect(result.count()).resolves.toBe(1);
    await screenshot(page, 'search');
    await result.click();
    await page.waitForURL(/\/-\/web\/package\/com\.acme\.widgets$/);
    await expect(page.locator('h1').textContent()).resolves.toBe('Acme Widgets');
    await expect(page.locator('.readme h2:not(.visually-hidden)').first().textContent()).resolves.toBe('Acme Widgets');
    await expect(page.locator('.chart figcaption').textContent()).resolves.toBe('7 downloads in the last 12 weeks, 7 this week');
    const facts = await page.locator('dl.facts').innerText();
    expect(facts).toMatch(/Unity\s+2022\.3\.0f1 or newer/);
    expect(facts).toMatch(/License\s+MIT/);
    expect(facts).toMatch(/Maintainers\s+alice/);
    await page.getByRole('link', { name: 'com.acme.core' }).click();
    await page.waitForURL(/\/-\/web\/package\/com\.acme\.core$/);
    await context.close();
  });

  it('copies the install command and the manifest snippet to the clipboard', async () => {
    const { context, page } = await openPage();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: registry.url });
    await page.goto(`${registry.url}/-/web/package/com.acme.widgets`);
    await screenshot(page, 'package');

    await page.locator('button[data-copy="install-manifest"]').click();
    await page.getByText('Copied the manifest snippet to the clipboard.').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(JSON.parse(copied)).toEqual({
      scopedRegistries: [
        { name: new URL(registry.url).hostname, url: registry.url, scopes: ['com.acme.core', 'com.acme.widgets'] },
      ],
      dependencies: { 'com.acme.widgets': '1.1.0' },
    });

    await page.locator('button[data-copy="install-command"]').click();
    await page.getByText('Copied the pkg command to the clipboard.').waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(
      `pkg add com.acme.widgets@1.1.0 --registry ${registry.url}`,
    );
    await context.close();
  });

  it('keeps a readme with script, event handlers and javascript: links inert', async () => {
    const { context, page } = await openPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${registry.url}/-/web/package/com.acme.hostile`);
    await page.locator('.readme').waitFor();
    // The sanitizer drops the script and the handler, so nothing even reaches the CSP.
    await expect(page.locator('.readme').innerText()).resolves.not.toContain('__pwned = ');
    await expect(page.locator('.readme script, .readme img, .readme [onerror], .readme [onclick]').count()).resolves.toBe(0);
    // The markdown link with a javascript: target stays text.
    await expect(page.locator('.readme').innerText()).resolves.toContain("[click me](javascript:window.__pwned='link')");
    const hrefs = await page.locator('.readme a').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    expect(hrefs.filter((href) => href && /^\s*javascript:/i.test(href))).toEqual([]);
    await expect(page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).resolves.toBeUndefined();
    expect(violations).toEqual([]);
    await context.close();
  });

  it('reads without JavaScript (the copy buttons stay hidden) and follows the dark colour scheme', async () => {
    const { context, page } = await openPage({ javaScriptEnabled: false, colorScheme: 'dark' });
    await page.goto(`${registry.url}/-/web/package/com.acme.widgets`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Acme Widgets');
    await expect(page.locator('#install-command').textContent()).resolves.toBe(
      `pkg add com.acme.widgets@1.1.0 --registry ${registry.url}`,
    );
    await expect(page.locator('button[data-copy]').first().isVisible()).resolves.toBe(false);
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe('rgb(13, 17, 23)');
    await screenshot(page, 'package-dark');
    await context.close();
  });

  it('is usable from the keyboard: skip link first, visible focus', async () => {
    const { context, page } = await openPage();
    await page.goto(`${registry.url}/-/web/package/com.acme.widgets`);
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement;
      return { text: el?.textContent, outline: el && getComputedStyle(el).outlineStyle };
    });
    expect(focused).toEqual({ text: 'Skip to content', outline: 'solid' });
    await context.close();
  });

  it('fits a phone screen without horizontal scrolling', async () => {
    const { context, page } = await openPage({ viewport: { width: 375, height: 740 } });
    await page.goto(`${registry.url}/-/web/package/com.acme.widgets`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'package-phone');
    await context.close();
  });
});

describe('two-factor sign-in in Chromium', () => {
  it('enrols from the account page: scan or type the secret, confirm with a code, see the recovery codes once', async () => {
    await loginUser(registry.url, 'tfa-user', 'pw-tfa-user');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${registry.url}/-/web/signin`);
    await page.getByLabel('User name').fill('tfa-user');
    await page.getByLabel('Password', { exact: true }).fill('pw-tfa-user');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/-\/web\/account$/);

    await page.getByLabel('only when signing in').check();
    await page.getByLabel('Your password').last().fill('pw-tfa-user');
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await expect(page.getByRole('img', { name: 'QR code of your two-factor secret' }).isVisible()).resolves.toBe(true);
    const secret = (await page.locator('#two-factor-secret').textContent())!;
    const code = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate();
    await page.getByLabel('Code from the app').fill(code);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect(page.locator('#recovery-codes li').count()).resolves.toBe(10);

    await page.reload();
    await expect(page.locator('#recovery-codes').count()).resolves.toBe(0);
    await expect(page.getByText('On: a code is asked when signing in.').isVisible()).resolves.toBe(true);
    await context.close();
  });
});

/** Signs `name` in through the form (their password is `pw-<name>`). */
async function signIn(page: Page, name: string): Promise<void> {
  await page.goto(`${registry.url}/-/web/signin`);
  await page.getByLabel('User name').fill(name);
  await page.getByLabel('Password', { exact: true }).fill(`pw-${name}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/-\/web\/account$/);
}

describe('the account page on a phone', () => {
  it('stacks each token as label/value pairs: nothing scrolls sideways, no word breaks, each Revoke button in view', async () => {
    const used = await loginUser(registry.url, 'dora', 'pw-dora');
    expect((await fetch(`${registry.url}/-/whoami`, { headers: { authorization: `Bearer ${used}` } })).status).toBe(200);
    // Its last use is written in batches: now, so that the page shows it.
    await registry.services.tokenUses.flush();
    const limited = await request(`${registry.url}/-/npm/v1/tokens`, {
      method: 'POST',
      token: used,
      body: {
        password: 'pw-dora',
        name: 'continuous integration of the studio',
        automation: true,
        packages: ['com.studio.*', 'com.studio-labs.questlog'],
        cidr_whitelist: ['10.0.0.0/8', '192.168.100.0/24'],
        expires: 30,
      },
    });
    expect(limited.status).toBe(201);
    const { context, page } = await openPage({ viewport: { width: 360, height: 740 } });
    await signIn(page, 'dora');
    const revokes = page.getByRole('button', { name: /^Revoke token/ });
    await expect(revokes.count()).resolves.toBe(2);
    // Squeezed into seven columns, dates, token prefixes and the button's label broke a letter or two per line.
    const lines = (el: Element) => {
      const range = el.ownerDocument.createRange();
      range.selectNodeContents(el);
      return new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top))).size;
    };
    const unbroken = page.locator('main table time, main table td:first-child code, main table button');
    // A phone, stacked; and a laptop, where the table keeps its columns.
    for (const width of [360, 1100]) {
      await page.setViewportSize({ width, height: 740 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `at ${width} px`).toBeLessThanOrEqual(0);
      expect(await unbroken.count()).toBe(8);
      for (const el of await unbroken.all()) expect(await el.evaluate(lines), `${await el.textContent()} at ${width} px`).toBe(1);
      for (const button of await revokes.all()) {
        await button.scrollIntoViewIfNeeded();
        const box = (await button.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(width);
      }
    }
    await page.setViewportSize({ width: 360, height: 740 });
    // Still a table to a screen reader (Chromium's own accessibility tree): seven column headers,
    // a cell per value, named by its value alone (the visible labels are not read again).
    const cdp = await context.newCDPSession(page);
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
      nodes: { ignored: boolean; role?: { value: string }; name?: { value: string } }[];
    };
    const named = (role: string) => nodes.filter((n) => !n.ignored && n.role?.value === role).map((n) => n.name?.value ?? '');
    expect(named('table')).toHaveLength(1);
    expect(named('columnheader')).toEqual(['Token', 'Name', 'Created', 'Last used', 'Expires', 'Limits', 'Action']);
    expect(named('cell')).toHaveLength(14);
    expect(named('cell')).toContain('continuous integration of the studio');
    await page.locator('main table').scrollIntoViewIfNeeded();
    await screenshot(page, 'account-phone');
    await revokes.last().click();
    await page.getByText('The token was revoked.').waitFor();
    await expect(revokes.count()).resolves.toBe(1);
    await context.close();
  });
});

describe('advisories and webhooks in Chromium', () => {
  it('a maintainer publishes an advisory from the package page, sees a refusal beside the form, and withdraws it', async () => {
    const { context, page } = await openPage();
    await signIn(page, 'alice');
    await page.goto(`${registry.url}/-/web/package/com.acme.core`);
    await page.getByRole('link', { name: 'Security advisories' }).click();
    await page.waitForURL(/\/-\/web\/package\/com\.acme\.core\/advisories$/);
    await page.getByLabel('Id').fill('CVE-2026-7777');
    await page.getByLabel('Severity').selectOption('critical');
    await page.getByLabel('Affected versions').fill('not a range');
    await page.getByLabel('Title').fill('Save files leak');
    await page.getByLabel('Description').fill('Saves are written\nworld-readable.');
    await page.getByRole('button', { name: 'Publish advisory' }).click();
    await expect(page.locator('#publish-error').textContent()).resolves.toContain("'vulnerable_versions' must be a semver range");
    await expect(page.getByLabel('Title').inputValue()).resolves.toBe('Save files leak');
    await page.getByLabel('Affected versions').fill('<=1.2.0');
    await page.getByLabel('Fixed in').fill('>=1.2.1');
    await page.getByRole('button', { name: 'Publish advisory' }).click();
    await page.getByText('The advisory was published.').waitFor();
    await expect(page.locator('#advisory-CVE-2026-7777 h3').innerText()).resolves.toContain('Save files leak');
    await screenshot(page, 'advisories');
    // The package page marks the affected version.
    await page.getByRole('link', { name: 'Back to com.acme.core' }).click();
    await expect(page.locator('.marks').innerText()).resolves.toContain('critical advisory');
    await page.goto(`${registry.url}/-/web/package/com.acme.core/advisories`);
    await page.getByRole('button', { name: 'Withdraw advisory CVE-2026-7777' }).click();
    await page.getByText('The advisory was withdrawn.').waitFor();
    await expect(page.getByRole('heading', { name: 'Withdrawn (1)' }).isVisible()).resolves.toBe(true);
    await context.close();
  });

  it('an administrator adds a webhook (its secret shown once), changes its events, rotates its secret and deletes it', async () => {
    await loginUser(registry.url, 'boss', 'pw-boss');
    await registry.storage.registry.users.update('', 'boss', { admin: true });
    const { context, page } = await openPage();
    await signIn(page, 'boss');
    await page.goto(`${registry.url}/-/web/webhooks`);
    await page.getByLabel('Receiver URL').fill('http://127.0.0.1:9/ci');
    await page.getByLabel('Events').fill('package, nonsense');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await expect(page.locator('#add-error').textContent()).resolves.toContain("Unknown event 'nonsense'");
    await page.getByLabel('Events').fill('package, advisory');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = await page.locator('#new-secret').textContent();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const [hook] = await registry.services.webhooks.list('');
    await page.getByText('Change the URL or the events').click();
    await page.locator(`#events-${hook!.id}`).fill('advisory');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('The webhook was changed.').waitFor();
    await expect(page.locator('body').innerText()).resolves.not.toContain(secret!);
    await page.getByText('Rotate the secret').click();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText('The secret was rotated.').waitFor();
    await expect(page.getByText('2 secrets sign (a rotation is under way)').isVisible()).resolves.toBe(true);
    await screenshot(page, 'webhooks');
    await page.getByRole('button', { name: 'Delete webhook to http://127.0.0.1:9/ci' }).click();
    await page.getByText('The webhook was deleted.').waitFor();
    await expect(registry.services.webhooks.list('')).resolves.toEqual([]);
    await context.close();
  });
});

describe('tenants in Chromium', () => {
  it("a second tenant's pages do not show the first tenant's packages", async () => {
    const admin = new TenantAdmin(registry.storage);
    await admin.create('first', {});
    await admin.create('second', {});
    const first = registryHost(registry.url, 'first.localhost');
    const token = await loginOn(first, 'fiona');
    const { body } = publishBody('com.first.secret', '1.0.0', { manifest: { description: 'Only on the first tenant' } });
    expect((await first.request('/com.first.secret', { method: 'PUT', token, body })).status).toBe(201);

    const { context, page } = await openPage();
    await page.goto(`http://first.localhost:${registry.port}/`);
    await expect(page.getByRole('link', { name: 'com.first.secret' }).count()).resolves.toBe(1);

    await page.goto(`http://second.localhost:${registry.port}/`);
    await expect(page.locator('.brand').innerText()).resolves.toContain('second');
    await expect(page.locator('.brand').innerText()).resolves.toMatch(/^pkg-registry /);
    await expect(page.locator('main').innerText()).resolves.not.toContain('com.first.secret');
    await page.getByLabel('Search packages').fill('secret');
    await page.keyboard.press('Enter');
    await page.getByText('No packages found.').waitFor();
    const direct = await page.goto(`http://second.localhost:${registry.port}/-/web/package/com.first.secret`);
    expect(direct?.status()).toBe(404);
    // and the global registry does not have it either
    await page.goto(`${registry.url}/-/web/search?q=secret`);
    await page.getByText('No packages found.').waitFor();
    await context.close();
  });
});

describe("npm's web login with the real npm 11", () => {
  it('logs npm in through the browser, then npm whoami names the user', async () => {
    const npm = await NpmClient.create(systemNpmCli(), registry.url);
    expect(cliVersion(npm.cli)).toMatch(/^11\./);
    const login = await startNpmLogin(npm);
    try {
      expect(login.loginUrl.startsWith(`${registry.url}/-/web/login/`)).toBe(true);
      const { context, page } = await openPage();
      await page.goto(login.loginUrl);
      await expect(page.locator('h1').textContent()).resolves.toBe('Sign in to npm');
      await expect(page.locator('dl.facts').innerText()).resolves.toMatch(/npm\/11\./);
      await screenshot(page, 'npm-login');
      await page.getByLabel('User name').fill('alice');
      await page.getByLabel('Password', { exact: true }).fill('pw-alice');
      await page.getByRole('button', { name: 'Sign in and log in npm' }).click();
      await page.getByText('npm is now logged in as').waitFor();
      const result = await login.exit;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`Logged in on ${registry.url}/`);

      const whoami = expectSuccess(await npm.run(['whoami']), 'npm whoami');
      expect(whoami.stdout.trim()).toBe('alice');

      // The account page now lists the token npm received.
      await page.goto(`${registry.url}/-/web/account`);
      const token = (await npm.token())!;
      await expect(page.locator('table').innerText()).resolves.toContain(`${token.slice(0, 6)}…`);
      await screenshot(page, 'account');
      await context.close();
    } finally {
      login.kill();
      await npm.cleanup();
    }
  });
});
