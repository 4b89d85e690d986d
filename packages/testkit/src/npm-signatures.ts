import { createRequire } from 'node:module';
import path from 'node:path';
import { NPM10_CLI, systemNpmCli } from './clients.js';

/**
 * npm's own registry-signature check, run in-process: the pacote that ships inside an npm
 * (npm 10 from node_modules, npm 11 from the machine) with `verifySignatures` and the registry's
 * keys shaped exactly as npm's `lib/utils/verify-signatures.js` shapes them (`pemkey` from the
 * base64 SPKI). `npm audit signatures` itself first asks Sigstore's TUF repository, which this
 * machine cannot reach; the check that follows is this one.
 */
export interface NpmSignatureCheck {
  /** npm's version, for test names. */
  label: string;
  /** The manifest pacote resolved (throws EINTEGRITYSIGNATURE, EMISSINGSIGNATUREKEY, EEXPIREDSIGNATUREKEY). */
  verify(spec: string, registry: string, keys: unknown[], cache: string): Promise<{ _signatures?: unknown; _integrity?: string }>;
}

interface Pacote {
  manifest(spec: string, options: Record<string, unknown>): Promise<{ _signatures?: unknown; _integrity?: string }>;
}

function pacoteBeside(cli: string): Pacote {
  const npmRoot = path.dirname(path.dirname(cli));
  return createRequire(path.join(npmRoot, 'package.json'))('pacote') as Pacote;
}

export function npmSignatureChecks(): NpmSignatureCheck[] {
  return [
    ['npm 10', NPM10_CLI()],
    ['npm 11', systemNpmCli()],
  ].map(([label, cli]) => {
    const pacote = pacoteBeside(cli!);
    return {
      label: label!,
      verify: (spec, registry, keys, cache) => {
        // As npm's buildRegistryConfig passes them: under `//<host><path>:_keys`.
        const url = new URL(`${registry}/`);
        return pacote.manifest(spec, {
          registry: url.href,
          verifySignatures: true,
          [`//${url.host}${url.pathname}:_keys`]: keys,
          cache,
        });
      },
    };
  });
}

/** `/-/npm/v1/keys` as npm turns it into its registryKeys. */
export function npmRegistryKeys(body: { keys: { key: string }[] }): unknown[] {
  return body.keys.map((key) => ({ ...key, pemkey: `-----BEGIN PUBLIC KEY-----\n${key.key}\n-----END PUBLIC KEY-----` }));
}
