import { mkdir, stat, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loginUser, publishVersion, runRegistryCli, startRegistry } from '@pkg/testkit';

// Spawns the built binary: run `npm run build` first.

describe('pkg-registry storage', () => {
  it('reports bytes and counts per tenant and per package, and orphan tarballs', async () => {
    const registry = await startRegistry({ profile: 'embedded' });
    try {
      const token = await loginUser(registry.url, 'alice');
      for (const version of ['1.0.0', '1.1.0'])
        expect((await publishVersion(registry.url, token, 'com.example.big', version)).status).toBe(201);
      expect((await publishVersion(registry.url, token, 'com.example.small', '0.1.0')).status).toBe(201);
      const dirOf = (name: string) => path.join(registry.dataDir, 'tarballs', '_global', name);
      const sizeOf = async (name: string, version: string) => (await stat(path.join(dirOf(name), `${name}-${version}.tgz`))).size;
      await writeFile(path.join(dirOf('com.example.small'), 'com.example.small-9.9.9.tgz'), Buffer.alloc(100));

      const run = await runRegistryCli(['storage', '--data', registry.dataDir, '--json']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const [global] = JSON.parse(run.stdout);
      const big = (await sizeOf('com.example.big', '1.0.0')) + (await sizeOf('com.example.big', '1.1.0'));
      const small = await sizeOf('com.example.small', '0.1.0');
      expect(global).toMatchObject({
        tenant: '',
        packages: 2,
        versions: 3,
        files: 3,
        bytes: big + small,
        orphanFiles: 1,
        orphanBytes: 100,
      });
      expect(global.byPackage.map((p: { name: string; bytes: number }) => [p.name, p.bytes])).toEqual(
        [
          ['com.example.big', big],
          ['com.example.small', small],
        ].sort((a, b) => (b[1] as number) - (a[1] as number)),
      );

      // The usage the quotas are checked against is the walk's (every version measured); no quota by default.
      expect(global).toMatchObject({
        usage: { bytes: big + small, files: 3, packages: 2 },
        unmeasuredVersions: 0,
        quota: { bytes: 0, packages: 0, bytesFrom: 'server', packagesFrom: 'server' },
      });

      // The server's quota (from its configuration) and a tenant's own.
      const created = await runRegistryCli(['tenant', 'create', 'acme', '--quota-bytes', '1048576', '--data', registry.dataDir]);
      expect(created.code).toBe(0);
      const env = { PKG_REGISTRY_QUOTA_PACKAGES: '4' };
      const quotas = await runRegistryCli(['storage', '--data', registry.dataDir, '--json'], { env });
      expect(quotas.code).toBe(0);
      const [withQuota, acme] = JSON.parse(quotas.stdout);
      expect(withQuota.quota).toEqual({ bytes: 0, packages: 4, bytesFrom: 'server', packagesFrom: 'server' });
      expect(acme).toMatchObject({
        tenant: 'acme',
        usage: { bytes: 0, files: 0, packages: 0 },
        quota: { bytes: 1048576, packages: 4, bytesFrom: 'tenant', packagesFrom: 'server' },
      });

      const table = await runRegistryCli(['storage', 'report', '--data', registry.dataDir], { env });
      expect(table.code).toBe(0);
      expect(table.stdout).toMatch(/^REGISTRY\s+PACKAGES\s+VERSIONS\s+FILES\s+BYTES\s+ORPHANS\n\(global\)\s+2\s+3\s+3\s+/);
      expect(table.stdout).toMatch(
        /\nREGISTRY\s+PACKAGES\s+PACKAGE QUOTA\s+BYTES\s+BYTE QUOTA\n\(global\)\s+2\s+4 \(50% used\)\s+\S+ B\s+none\nacme\s+0\s+4 \(0% used\)\s+0 B\s+1\.0 MiB \(own\) \(0% used\)\n/,
      );
      expect(table.stdout).toContain('global registry, largest packages:');
    } finally {
      await registry.close();
    }
  });

  it('collect removes old orphans while publishes go on, and no published version loses its tarball', async () => {
    const registry = await startRegistry({ profile: 'embedded' });
    try {
      const token = await loginUser(registry.url, 'alice');
      expect((await publishVersion(registry.url, token, 'com.example.keep', '1.0.0')).status).toBe(201);
      const dir = path.join(registry.dataDir, 'tarballs', '_global', 'com.example.gone');
      await mkdir(dir, { recursive: true });
      const old = path.join(dir, 'com.example.gone-1.0.0.tgz');
      const young = path.join(dir, 'com.example.gone-2.0.0.tgz');
      await writeFile(old, 'left by a crash long ago');
      await writeFile(young, 'perhaps a publish in flight');
      const twoHoursAgo = new Date(Date.now() - 2 * 3600 * 1000);
      await utimes(old, twoHoursAgo, twoHoursAgo);

      let publishing = true;
      const published: string[] = [];
      const load = (async () => {
        for (let i = 0; publishing || published.length < 3; i++) {
          const res = await publishVersion(registry.url, token, 'com.example.keep', `2.0.${i}`);
          expect(res.status).toBe(201);
          published.push(`2.0.${i}`);
        }
      })();
      const run = await runRegistryCli(['storage', 'collect', '--data', registry.dataDir, '--json']);
      publishing = false;
      await load;
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ removed: 1, temporaryFiles: 0, incompleteUploads: 0 });
      expect(existsSync(old)).toBe(false);
      expect(existsSync(young)).toBe(true);

      const verify = await runRegistryCli(['verify', '--data', registry.dataDir, '--json']);
      expect(verify.code).toBe(0);
      expect(JSON.parse(verify.stdout)).toMatchObject({ problems: [], tarballs: 1 + published.length });
    } finally {
      await registry.close();
    }
  });

  it('refuses a grace period that could catch a publish in flight, and unknown commands', async () => {
    const short = await runRegistryCli(['storage', 'collect', '--older-than', '5', '--data', '/nonexistent']);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('--older-than must be at least 60');
    const unknown = await runRegistryCli(['storage', 'shrink']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown storage command 'shrink'");
  });
});
