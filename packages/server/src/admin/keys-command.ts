import { parseArgs } from 'node:util';
import { RegistrySignatures } from '../services/registry-signatures.js';
import { AdminUsageError, TenantAdmin } from '../services/tenant-admin.js';
import { verifyStoredVersions } from '../services/version-verification.js';
import { GLOBAL_TENANT } from '../storage/ports.js';
import { STORAGE_OPTIONS, formatTable, openStorage, runAdmin, type AdminIo } from './admin-io.js';
import { recordOperatorChange } from './operator-changes.js';

export const KEYS_USAGE = `Usage: pkg-registry keys <command> [options]

Commands:
  list [--json]              The registry's signing keys (public part), rotated ones with their expiry
  rotate                     Sign with a new key from now on; the old one expires now and keeps
                             verifying the versions published before
  verify [<package>...]      Check every local version (or those of the packages named): its
                             tarball in storage against dist.integrity, and its registry signature.
                             Exit code 1 when anything is wrong

Options:
  --tenant <name>    Act on a tenant registry (default: the global registry)
  --json             Print JSON (list, verify)
  --data <dir>       Data directory of the registry (as for serve)
  --config <file>    Config file of the registry (as for serve)

Works while the server runs: a rotation takes effect with the next publish.
`;

const OPTIONS = { ...STORAGE_OPTIONS, tenant: { type: 'string' }, json: { type: 'boolean' } } as const;

/** `pkg-registry keys list|rotate|verify`. Returns the exit code. */
export function keysCommand(argv: string[], io: AdminIo): Promise<number> {
  return runAdmin(io, 'keys', async () => {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
    const [action, ...names] = positionals;
    if (action !== 'list' && action !== 'rotate' && action !== 'verify') {
      throw new AdminUsageError(action === undefined ? 'a keys command is required' : `unknown keys command '${action}'`);
    }
    if (action !== 'verify' && names.length > 0) throw new AdminUsageError(`unexpected argument '${names[0]}'`);
    const { storage } = await openStorage(values, io);
    try {
      const tenant = values.tenant ?? GLOBAL_TENANT;
      if (values.tenant !== undefined) await new TenantAdmin(storage).require(values.tenant);
      const registry = tenant === GLOBAL_TENANT ? 'the global registry' : `tenant '${tenant}'`;
      const signatures = new RegistrySignatures({ signingKeys: storage.signingKeys, now: () => new Date() });
      if (action === 'rotate') {
        const { expired, current } = await signatures.rotate(tenant);
        await recordOperatorChange(storage, tenant, {
          action: 'keys.rotate',
          target: `signing key ${current}`,
          details: { expired },
        });
        io.stdout.write(
          `${registry[0]!.toUpperCase()}${registry.slice(1)} now signs with ${current}` +
            `${expired ? `; ${expired} expired now and verifies only versions published before` : ''}.\n`,
        );
        return 0;
      }
      if (action === 'verify') {
        const report = await verifyStoredVersions(storage, tenant, names.length > 0 ? names : undefined);
        if (values.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        else {
          for (const p of report.problems) io.stdout.write(`${p.name}${p.version ? `@${p.version}` : ''}: ${p.problem}\n`);
          io.stdout.write(`${report.checked} versions of ${registry} checked, ${report.problems.length} problems.\n`);
        }
        return report.problems.length > 0 ? 1 : 0;
      }
      const keys = await signatures.publicKeys(tenant);
      if (values.json) io.stdout.write(`${JSON.stringify({ keys }, null, 2)}\n`);
      else {
        io.stdout.write(
          formatTable([
            ['KEYID', 'STATUS', 'KEY'],
            ...keys.map((k) => [k.keyid, k.expires ? `expired ${k.expires}` : 'signing', k.key]),
          ]),
        );
      }
      return 0;
    } finally {
      await storage.close();
    }
  });
}
