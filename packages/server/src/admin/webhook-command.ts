import { parseArgs } from 'node:util';
import { ProtocolError } from '@pkg/protocol';
import { WebhookAdmin } from '../services/webhook-admin.js';
import { WEBHOOK_EVENT_GROUPS, WEBHOOK_EVENTS } from '../services/webhook-events.js';
import { AdminError, AdminUsageError, TenantAdmin } from '../services/tenant-admin.js';
import { GLOBAL_TENANT } from '../storage/ports.js';
import { STORAGE_OPTIONS, formatTable, openStorage, runAdmin, type AdminIo } from './admin-io.js';
import { operatorName, recordOperatorChange } from './operator-changes.js';

export const WEBHOOK_USAGE = `Usage: pkg-registry webhook <command> [options]

Commands:
  add <url> --events <list>     Send these events to url (comma-separated: events, groups, or *);
                                prints the hook's id and its secret (shown this once)
  list [--json]                 The registry's webhooks (never their secrets)
  update <id> [--url <url>] [--events <list>]
                                Change where a webhook posts or what it is sent (its secret stays)
  remove <id>                   Remove a webhook and its deliveries
  deliveries <id> [--json]      Its latest deliveries: status, attempts, last answer
  redeliver <delivery-id>       Send a delivery again (retried for another day)
  rotate-secret <id>            A new secret signs from now on; the old one signs too for
                                --overlap-hours (default 24) so the receiver can switch

Events: ${WEBHOOK_EVENTS.join(', ')}
Groups: ${WEBHOOK_EVENT_GROUPS.join(', ')}

Options:
  --events <list>         Events of add and update
  --url <url>             New URL of update
  --secret <secret>       Use this secret (add, rotate-secret) instead of a new random one
  --overlap-hours <n>     How long the old secret keeps signing after rotate-secret (0: not at all)
  --limit <n>             Deliveries listed (default 50)
  --tenant <name>         Act on a tenant registry (default: the global registry)
  --json                  Print JSON
  --data <dir>            Data directory of the registry (as for serve)
  --config <file>         Config file of the registry (as for serve)

Payloads are signed with HMAC-SHA256 in X-Pkg-Signature-256 (see operations.md). The running
servers send the deliveries; this command only changes what they send.
`;

const OPTIONS = {
  ...STORAGE_OPTIONS,
  tenant: { type: 'string' },
  json: { type: 'boolean' },
  events: { type: 'string' },
  url: { type: 'string' },
  secret: { type: 'string' },
  'overlap-hours': { type: 'string' },
  limit: { type: 'string' },
} as const;

const ACTIONS = ['add', 'list', 'update', 'remove', 'deliveries', 'redeliver', 'rotate-secret'] as const;

/** `pkg-registry webhook add|list|update|remove|deliveries|redeliver|rotate-secret`. Returns the exit code. */
export function webhookCommand(argv: string[], io: AdminIo): Promise<number> {
  return runAdmin(io, 'webhook', async () => {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
    const [action, argument, ...extra] = positionals;
    if (!(ACTIONS as readonly (string | undefined)[]).includes(action)) {
      throw new AdminUsageError(action === undefined ? 'a webhook command is required' : `unknown webhook command '${action}'`);
    }
    if (extra.length > 0) throw new AdminUsageError(`unexpected argument '${extra[0]}'`);
    if (action === 'list' ? argument !== undefined : argument === undefined) {
      throw new AdminUsageError(
        action === 'list'
          ? `unexpected argument '${argument}'`
          : `'webhook ${action}' needs ${action === 'add' ? 'a URL' : 'an id'}`,
      );
    }
    if (action === 'add' && values.events === undefined)
      throw new AdminUsageError("'webhook add' needs --events (for example --events package.publish,dist-tag)");
    if (action === 'update' && values.events === undefined && values.url === undefined)
      throw new AdminUsageError("'webhook update' needs --url or --events");
    if (action !== 'update' && values.url !== undefined) throw new AdminUsageError(`'webhook ${action}' takes no --url`);
    const overlap = values['overlap-hours'] === undefined ? undefined : Number(values['overlap-hours']);
    if (overlap !== undefined && !(Number.isFinite(overlap) && overlap >= 0))
      throw new AdminUsageError('--overlap-hours must be a number of hours, 0 or more');
    const limit = values.limit === undefined ? 50 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new AdminUsageError('--limit must be from 1 to 1000');

    const { storage } = await openStorage(values, io);
    try {
      const tenant = values.tenant ?? GLOBAL_TENANT;
      if (values.tenant !== undefined) await new TenantAdmin(storage).require(values.tenant);
      const hooks = new WebhookAdmin({ ...storage, now: () => new Date() });
      const id = argument!;
      try {
        switch (action) {
          case 'add': {
            const { hook, secret } = await hooks.add(tenant, {
              url: id,
              events: values.events!.split(','),
              secret: values.secret,
              createdBy: `operator ${operatorName()}`,
            });
            await recordOperatorChange(storage, tenant, {
              action: 'webhook.add',
              target: `webhook ${hook.id}`,
              details: { url: hook.url, events: hook.events },
            });
            if (values.json) io.stdout.write(`${JSON.stringify({ ...hook, secret }, null, 2)}\n`);
            else
              io.stdout.write(
                `Added webhook ${hook.id} for ${hook.events.join(', ')} to ${hook.url}\nSecret (shown once): ${secret}\n`,
              );
            return 0;
          }
          case 'update': {
            const hook = await hooks.update(tenant, id, {
              ...(values.url !== undefined ? { url: values.url } : {}),
              ...(values.events !== undefined ? { events: values.events.split(',') } : {}),
            });
            await recordOperatorChange(storage, tenant, {
              action: 'webhook.change',
              target: `webhook ${id}`,
              details: { url: hook.url, events: hook.events },
            });
            if (values.json) io.stdout.write(`${JSON.stringify(hook, null, 2)}\n`);
            else io.stdout.write(`Webhook ${id} now sends ${hook.events.join(', ')} to ${hook.url}\n`);
            return 0;
          }
          case 'remove':
            await hooks.remove(tenant, id);
            await recordOperatorChange(storage, tenant, { action: 'webhook.remove', target: `webhook ${id}` });
            io.stdout.write(`Removed webhook ${id} and its deliveries.\n`);
            return 0;
          case 'rotate-secret': {
            const secret = await hooks.rotateSecret(tenant, id, {
              secret: values.secret,
              ...(overlap !== undefined ? { overlapHours: overlap } : {}),
            });
            await recordOperatorChange(storage, tenant, {
              action: 'webhook.rotate-secret',
              target: `webhook ${id}`,
              details: { overlapHours: overlap ?? 24 },
            });
            if (values.json) io.stdout.write(`${JSON.stringify({ id, secret }, null, 2)}\n`);
            else io.stdout.write(`Webhook ${id} now signs with a new secret (shown once): ${secret}\n`);
            return 0;
          }
          case 'redeliver':
            await hooks.redeliver(tenant, id);
            await recordOperatorChange(storage, tenant, { action: 'webhook.redeliver', target: `delivery ${id}` });
            io.stdout.write(`Delivery ${id} will be sent again by the running server.\n`);
            return 0;
          case 'deliveries': {
            const deliveries = (await hooks.deliveries(tenant, id, limit)).map(({ payload: _payload, ...rest }) => rest);
            if (values.json) io.stdout.write(`${JSON.stringify({ deliveries }, null, 2)}\n`);
            else if (deliveries.length === 0) io.stdout.write(`No deliveries of webhook ${id} yet.\n`);
            else {
              io.stdout.write(
                formatTable([
                  ['DELIVERY', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST ATTEMPT', 'LAST ANSWER'],
                  ...deliveries.map((d) => [
                    d.id,
                    d.event,
                    d.status,
                    String(d.attempts),
                    d.lastAttemptAt ?? '-',
                    d.lastError ?? (d.lastStatus !== null ? `HTTP ${d.lastStatus}` : '-'),
                  ]),
                ]),
              );
            }
            return 0;
          }
          default: {
            const list = await hooks.list(tenant);
            if (values.json) io.stdout.write(`${JSON.stringify({ webhooks: list }, null, 2)}\n`);
            else if (list.length === 0) io.stdout.write('No webhooks.\n');
            else
              io.stdout.write(
                formatTable([
                  ['ID', 'URL', 'EVENTS', 'CREATED', 'BY'],
                  ...list.map((h) => [h.id, h.url, h.events.join(','), h.createdAt, h.createdBy]),
                ]),
              );
            return 0;
          }
        }
      } catch (err) {
        // The services' refusals (a bad URL, an unknown event or id) are the operator's to fix.
        if (err instanceof ProtocolError) throw new AdminError(err.details || err.message);
        throw err;
      }
    } finally {
      await storage.close();
    }
  });
}
