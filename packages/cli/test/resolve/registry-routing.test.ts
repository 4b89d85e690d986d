import { describe, expect, it } from 'vitest';
import { ClientError } from '../../src/errors/client-errors.js';
import { RegistryRouting } from '../../src/resolve/registry-routing.js';

const UNITY = 'https://packages.unity.com';
const unity = (manifest: { scopedRegistries: { name: string; url: string; scopes: string[] }[]; registry?: string }) =>
  new RegistryRouting(
    { dependencies: {}, ...manifest },
    { usesScopedRegistries: true, ownRegistry: UNITY, fallback: 'http://127.0.0.1:4873' },
  );

describe('RegistryRouting', () => {
  const entries = [
    { name: 'company', url: 'https://company.example/', scopes: ['com.company'] },
    { name: 'tools', url: 'https://tools.example', scopes: ['com.company.tools', 'org.tool'] },
  ];

  it('takes the most specific matching scope of all entries', () => {
    const routing = unity({ scopedRegistries: entries });
    expect(routing.route('com.company.input').url).toBe('https://company.example');
    expect(routing.route('com.company.tools').url).toBe('https://tools.example');
    expect(routing.route('com.company.tools.cli').url).toBe('https://tools.example');
    expect(routing.route('com.company.tools.cli').entry?.name).toBe('tools');
    // A scope matches itself and names below it, not names that merely start with it.
    expect(routing.route('com.companyx.a').url).toBe(UNITY);
    expect(routing.route('org.toolkit').url).toBe(UNITY);
  });

  it("falls back to the manifest's registry, else Unity's, which is never asked", () => {
    const own = unity({ scopedRegistries: entries, registry: 'https://mirror.example/' });
    expect(own.route('com.unity.textmeshpro')).toEqual({ url: 'https://mirror.example' });
    expect(own.isDefault('https://mirror.example')).toBe(true);
    expect(own.isUnqueried('https://mirror.example')).toBe(false);
    const plain = unity({ scopedRegistries: [] });
    expect(plain.route('com.unity.textmeshpro')).toEqual({ url: UNITY });
    expect(plain.isUnqueried(`${UNITY}/`)).toBe(true);
  });

  it('sends everything to the registry in effect for engines without scoped registries', () => {
    const routing = new RegistryRouting(
      { dependencies: {}, scopedRegistries: entries },
      { usesScopedRegistries: false, fallback: 'http://127.0.0.1:4873/' },
    );
    expect(routing.route('com.company.input')).toEqual({ url: 'http://127.0.0.1:4873' });
  });

  it('refuses a scope listed by two entries, naming both', () => {
    let error: unknown;
    try {
      unity({ scopedRegistries: [...entries, { name: 'again', url: 'https://again.example', scopes: ['com.company'] }] });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({
      code: 'DUPLICATE_SCOPE',
      message:
        "Scope 'com.company' is listed by two scoped registries: 'company' (https://company.example/) and 'again' (https://again.example)",
    });
  });
});
