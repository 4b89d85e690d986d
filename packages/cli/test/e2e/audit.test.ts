import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, startRegistry, tmpUnityProject, type TestRegistry } from '@pkg/testkit';
import { makeHome, runPkg, type Home } from '../support/spawn.js';

/** `pkg advisory` publishes and withdraws advisories; `pkg audit` reports a Unity project's affected packages (built binary). */
const LIB = 'com.audit.lib';
const SAFE = 'com.audit.safe';
let registry: TestRegistry;
let home: Home;
let env: Record<string, string>;

beforeAll(async () => {
  registry = await startRegistry();
  const token = await loginUser(registry.url, 'owner');
  for (const version of ['1.0.0', '1.1.0', '1.2.0'])
    expect((await publishVersion(registry.url, token, LIB, version)).status).toBe(201);
  expect((await publishVersion(registry.url, token, SAFE, '1.0.0')).status).toBe(201);
  home = await makeHome();
  env = { PKG_REGISTRY: registry.url, PKG_TOKEN: token };
});
afterAll(async () => registry?.close());

async function project() {
  return tmpUnityProject({
    'Packages/manifest.json': {
      dependencies: { [LIB]: '1.0.0', [SAFE]: '1.0.0', 'com.unity.modules.ui': '1.0.0' },
      scopedRegistries: [{ name: 'audit', url: registry.url, scopes: ['com.audit'] }],
    },
  });
}

describe('pkg advisory and pkg audit (built binary)', () => {
  it('audits a clean project with exit code 0', async () => {
    const p = await project();
    const result = await runPkg(['audit'], { home, env, cwd: p.dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('No known vulnerabilities in 2 packages.');
  });

  it('publishes an advisory, lists it, and the audit fails with the fix; withdrawn, it passes again', async () => {
    const added = await runPkg(
      [
        'advisory',
        'add',
        LIB,
        '--severity',
        'high',
        '--affected',
        '<1.1.0',
        '--patched',
        '>=1.1.0',
        '--title',
        'Crash on load',
        '--id',
        'CVE-2026-7',
        '--json',
      ],
      { home, env },
    );
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout).advisory).toMatchObject({
      id: 'CVE-2026-7',
      severity: 'high',
      vulnerable_versions: '<1.1.0',
    });

    const listed = await runPkg(['advisory', 'list', LIB], { home, env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('CVE-2026-7  HIGH  Crash on load');

    const p = await project();
    const text = await runPkg(['audit'], { home, env, cwd: p.dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`${LIB}@1.0.0`);
    expect(text.stdout).toContain('HIGH  Crash on load (CVE-2026-7, affects <1.1.0)');
    expect(text.stdout).toContain(`Fix: pkg add ${LIB}@1.2.0`);
    expect(text.stdout).toContain('1 of 2 packages affected by known vulnerabilities.');

    const json = await runPkg(['audit', '--json'], { home, env, cwd: p.dir });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      audited: 2,
      vulnerabilities: [{ package: LIB, version: '1.0.0', fix: '1.2.0', advisories: [{ id: 'CVE-2026-7', severity: 'high' }] }],
    });

    const withdrawn = await runPkg(['advisory', 'withdraw', LIB, 'CVE-2026-7'], { home, env });
    expect(withdrawn.code).toBe(0);
    expect((await runPkg(['audit'], { home, env, cwd: p.dir })).code).toBe(0);
  });

  it('shows the registry reason when an advisory is refused', async () => {
    const refused = await runPkg(['advisory', 'add', LIB, '--severity', 'urgent', '--affected', '<1.0.0', '--title', 'x'], {
      home,
      env,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("'severity' must be one of info, low, moderate, high, critical");
  });
});
