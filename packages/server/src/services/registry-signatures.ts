import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import type { ServerDeps } from '../deps.js';
import { BudgetLru } from '../storage/budget-lru.js';
import { TenantGoneError, type SigningKeyRecord, type TenantId } from '../storage/ports.js';

/** One entry of `dist.signatures`, as npm's registry writes it. */
export interface RegistrySignature {
  keyid: string;
  sig: string;
}

/** One entry of `/-/npm/v1/keys`, in npm's format. */
export interface PublicKeyEntry {
  expires: string | null;
  keyid: string;
  keytype: 'ecdsa-sha2-nistp256';
  scheme: 'ecdsa-sha2-nistp256';
  key: string;
}

/**
 * The registry's signatures, as npm's registry makes them: ECDSA P-256 with SHA-256 over
 * `<name>@<version>:<integrity>`, DER-encoded and base64 in `dist.signatures`. Each registry
 * (the global one, each tenant) has its own key, made the first time it is needed and kept in
 * the shared store, so every node signs with the same one. It is read from the store for every
 * signature: a rotation by the admin command (another process) takes effect at once.
 */
export class RegistrySignatures {
  readonly #deps: Pick<ServerDeps, 'signingKeys' | 'now'>;

  constructor(deps: Pick<ServerDeps, 'signingKeys' | 'now'>) {
    this.#deps = deps;
  }

  /** The key the registry signs with now, made on first use (the first of several nodes wins). */
  async signingKey(tenant: TenantId): Promise<SigningKeyRecord> {
    const current = (await this.#deps.signingKeys.list(tenant)).find((key) => key.expiresAt === null);
    if (current) return current;
    await this.#deps.signingKeys.createIfNone(tenant, generateSigningKey(this.#deps.now()));
    const made = (await this.#deps.signingKeys.list(tenant)).find((key) => key.expiresAt === null);
    // Only a tenant deleted meanwhile has none: its publish fails as a deleted tenant's write does.
    if (!made) throw new TenantGoneError(tenant);
    return made;
  }

  async sign(tenant: TenantId, name: string, version: string, integrity: string): Promise<RegistrySignature> {
    return signWith(await this.signingKey(tenant), name, version, integrity);
  }

  /** `/-/npm/v1/keys`: every key of the registry, rotated ones with their `expires`. */
  async publicKeys(tenant: TenantId): Promise<PublicKeyEntry[]> {
    await this.signingKey(tenant);
    return (await this.#deps.signingKeys.list(tenant)).map(publicKeyEntry);
  }

  /**
   * Puts a new key in use; the old one expires now and keeps verifying what was published
   * before (npm checks the version's publish time against `expires`).
   */
  async rotate(tenant: TenantId): Promise<{ expired: string | undefined; current: string }> {
    const previous = (await this.#deps.signingKeys.list(tenant)).find((key) => key.expiresAt === null);
    const now = this.#deps.now();
    const next = generateSigningKey(now);
    await this.#deps.signingKeys.rotate(tenant, next, now.toISOString());
    return { expired: previous?.keyid, current: next.keyid };
  }
}

export function generateSigningKey(now: Date): SigningKeyRecord {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  return {
    keyid: keyIdOf(spki),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    publicKey: spki.toString('base64'),
    createdAt: now.toISOString(),
    expiresAt: null,
  };
}

/** npm's key id form: `SHA256:` and the unpadded base64 of the SHA-256 of the DER SPKI. */
export function keyIdOf(spki: Buffer): string {
  return `SHA256:${createHash('sha256').update(spki).digest('base64').replace(/=+$/, '')}`;
}

/** The bytes a registry signature covers. */
export function signedMessage(name: string, version: string, integrity: string): string {
  return `${name}@${version}:${integrity}`;
}

export function signWith(key: SigningKeyRecord, name: string, version: string, integrity: string): RegistrySignature {
  const signature = sign('sha256', Buffer.from(signedMessage(name, version, integrity)), privateKeyOf(key));
  return { keyid: key.keyid, sig: signature.toString('base64') };
}

/**
 * Parsed private keys by key id. Parsing the PEM costs many times the signature itself, and every
 * publish signs. A key id is the hash of the key's public half, so an entry can never stand for
 * another key: a rotation or a re-created tenant brings a new id, and the old entry ages out.
 */
const parsedKeys = new BudgetLru<KeyObject>(256);

export function privateKeyOf(key: SigningKeyRecord): KeyObject {
  let parsed = parsedKeys.get(key.keyid);
  if (parsed === undefined) {
    parsed = createPrivateKey(key.privateKey);
    parsedKeys.set(key.keyid, parsed, 1);
  }
  return parsed;
}

/** Whether `signature` is a valid signature of the version by one of `keys` (and which). */
export function verifyRegistrySignature(
  keys: readonly Pick<PublicKeyEntry, 'keyid' | 'key'>[],
  name: string,
  version: string,
  integrity: string,
  signature: RegistrySignature,
): boolean {
  const key = keys.find((k) => k.keyid === signature.keyid);
  if (!key) return false;
  const publicKey = createPublicKey({ key: Buffer.from(key.key, 'base64'), format: 'der', type: 'spki' });
  return verify('sha256', Buffer.from(signedMessage(name, version, integrity)), publicKey, Buffer.from(signature.sig, 'base64'));
}

function publicKeyEntry(key: SigningKeyRecord): PublicKeyEntry {
  return {
    expires: key.expiresAt,
    keyid: key.keyid,
    keytype: 'ecdsa-sha2-nistp256',
    scheme: 'ecdsa-sha2-nistp256',
    key: key.publicKey,
  };
}
