import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loginUser,
  projectVersionTxt,
  publishBody,
  request,
  startRegistry,
  tmpUnityProject,
  unityAttestation,
  type TestRegistry,
} from '@pkg/testkit';
import { makeHome, runPkg, type Home } from '../support/spawn.js';

/** Unity-signed and unsigned packages in `pkg info` and `pkg add` of a Unity 6.3 project (built binary). */
const SIGNED = 'com.sign.signed';
const UNSIGNED = 'com.sign.unsigned';
let registry: TestRegistry;
let home: Home;

beforeAll(async () => {
  registry = await startRegistry();
  const token = await loginUser(registry.url, 'studio');
  const p7m = await unityAttestation('Signing Studio');
  for (const [name, files] of [
    [SIGNED, [{ path: 'package/.attestation.p7m', content: p7m }]],
    [UNSIGNED, []],
  ] as const) {
    const { body } = publishBody(name, '1.0.0', { manifest: { unity: '6000.0', displayName: name }, files: [...files] });
    expect((await request(`${registry.url}/${name}`, { method: 'PUT', token, body })).status).toBe(201);
  }
  home = await makeHome();
});
afterAll(async () => registry?.close());

describe('Unity signatures in pkg (built binary)', () => {
  it('pkg info names the signer of a signed package and says when one is unsigned', async () => {
    const signed = await runPkg(['info', SIGNED, '--registry', registry.url], { home });
    expect(signed.code).toBe(0);
    expect(signed.stdout).toContain('Unity signature: signed by Signing Studio');
    const unsigned = await runPkg(['info', UNSIGNED, '--registry', registry.url, '--json'], { home });
    expect(JSON.parse(unsigned.stdout)).not.toHaveProperty('unitySignature.signer');
    const text = await runPkg(['info', UNSIGNED, '--registry', registry.url], { home });
    expect(text.stdout).toContain('Unity signature: unsigned');
  });

  it('pkg add in a Unity 6.3 project warns about the unsigned package only', async () => {
    const project = await tmpUnityProject({
      'ProjectSettings/ProjectVersion.txt': projectVersionTxt('6000.3.0f1'),
      'Packages/manifest.json': {
        dependencies: {},
        scopedRegistries: [{ name: 'sign', url: registry.url, scopes: ['com.sign'] }],
      },
    });
    const result = await runPkg(['add', SIGNED, UNSIGNED], { home, env: { PKG_REGISTRY: registry.url }, cwd: project.dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`${UNSIGNED}@1.0.0 is not signed by Unity's packing tool`);
    expect(result.stderr).toContain('shows it as unsigned in the Package Manager');
    expect(result.stderr).not.toContain(`${SIGNED}@1.0.0 is not signed`);
  });

  it('says nothing of signatures in a Unity 6.2 project', async () => {
    const project = await tmpUnityProject({
      'ProjectSettings/ProjectVersion.txt': projectVersionTxt('6000.2.0f1'),
      'Packages/manifest.json': {
        dependencies: {},
        scopedRegistries: [{ name: 'sign', url: registry.url, scopes: ['com.sign'] }],
      },
    });
    const result = await runPkg(['add', UNSIGNED], { home, env: { PKG_REGISTRY: registry.url }, cwd: project.dir });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('is not signed');
  });
});
