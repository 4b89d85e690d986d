import { ProtocolError } from '@pkg/protocol';
import type { AccountStores, SessionRecord, TenantId, UserRecord } from '../storage/ports.js';
import { hashToken, newToken } from './tokens.js';
import { checkEmail } from './account-names.js';
import { UserAdmin } from './user-admin.js';

const KIND = 'invitation';

/** Where an invitation link leads: the web page on which the invited person chooses a name and password. */
export const INVITATION_PATH = '/-/web/invitation/';

/** What an administrator decided for the invited person. */
export interface InvitationTerms {
  /** Who invited (an administrator's name, or `the operator` for the command line). */
  invitedBy: string;
  /** Suggested e-mail; the invited person may change it. */
  email?: string | undefined;
  /** Whether the account is made an administrator. */
  admin?: boolean | undefined;
}

export interface Invitation {
  /** The secret, shown once as part of the link; only its hash is stored. */
  secret: string;
  expiresAt: string;
}

/**
 * One-time, expiring invitations to create an account, which work while sign-up is closed.
 * Kept as sessions of their own kind in the shared metadata store (every node sees them; only
 * the hash of the secret is stored), and taken by deleting them, which exactly one of
 * concurrent takers wins.
 */
export class Invitations {
  readonly #registry: AccountStores;
  readonly #users: UserAdmin;
  readonly #ttlSeconds: number;
  readonly #now: () => Date;

  constructor(registry: AccountStores, options: { ttlSeconds: number; passwordMinLength: number; now: () => Date }) {
    this.#registry = registry;
    this.#ttlSeconds = options.ttlSeconds;
    this.#now = options.now;
    this.#users = new UserAdmin(registry, options);
  }

  async create(tenant: TenantId, terms: InvitationTerms): Promise<Invitation> {
    checkEmail(terms.email);
    const now = this.#now();
    const secret = newToken();
    const expiresAt = new Date(now.getTime() + this.#ttlSeconds * 1000).toISOString();
    await this.#registry.sessions.create(tenant, {
      hash: hashToken(secret),
      kind: KIND,
      user: null,
      data: { invitedBy: terms.invitedBy, email: terms.email ?? '', admin: terms.admin === true },
      createdAt: now.toISOString(),
      expiresAt,
    });
    return { secret, expiresAt };
  }

  /** The terms of a usable invitation, or undefined (unknown, used, expired). */
  async find(tenant: TenantId, secret: string): Promise<(InvitationTerms & { expiresAt: string }) | undefined> {
    const session = await this.#session(tenant, secret);
    return session && { ...termsOf(session), expiresAt: session.expiresAt };
  }

  /**
   * Creates the account the invitation offers and uses the invitation up. Nothing is used up
   * when the name, e-mail or password is refused (the person corrects them and sends again).
   */
  async accept(tenant: TenantId, secret: string, input: { name: string; email: string; password: string }): Promise<UserRecord> {
    const session = await this.#session(tenant, secret);
    if (!session) throw invalid();
    // The account first: a refused name, e-mail or password leaves the invitation usable.
    const user = await this.#users.create(tenant, { ...input, admin: termsOf(session).admin });
    // Then the invitation is taken; when a concurrent taker won it, this account goes again.
    if (!(await this.#registry.sessions.delete(tenant, session.hash))) {
      await this.#registry.users.delete(tenant, user.name);
      throw invalid();
    }
    return user;
  }

  async #session(tenant: TenantId, secret: string): Promise<SessionRecord | undefined> {
    if (secret.length === 0 || secret.length > 512) return undefined;
    const session = await this.#registry.sessions.get(tenant, hashToken(secret), this.#now().toISOString());
    return session?.kind === KIND ? session : undefined;
  }
}

function termsOf(session: SessionRecord): InvitationTerms {
  const { invitedBy, email, admin } = session.data;
  return {
    invitedBy: typeof invitedBy === 'string' ? invitedBy : '',
    email: typeof email === 'string' ? email : '',
    admin: admin === true,
  };
}

function invalid(): ProtocolError {
  return new ProtocolError(
    'NOT_FOUND',
    'This invitation cannot be used: it was used already, it expired, or the link is incomplete. Ask for a new one.',
  );
}
