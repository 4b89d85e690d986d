import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { WebClient, decodeEntities, squash, textOfId } from './web-client.js';

/**
 * The webhooks page's forms (`/-/web/webhooks`), for the registry's administrators: add (the
 * secret shown once), change URL and events, rotate the secret, delete, redeliver; the HTTP
 * API's checks and refusals; CSRF; each change in the audit log.
 */
const PAGE = '/-/web/webhooks';
/** Nothing listens there: deliveries fail and stay pending, which is all the page needs. */
const RECEIVER = 'http://127.0.0.1:9/hook';
let registry: TestRegistry;
let rootToken: string;

async function signedIn(name: string, password: string): Promise<WebClient> {
  const client = new WebClient(registry.url);
  await client.get('/-/web/signin');
  expect((await client.post('/-/web/signin', { csrf: client.csrf(), name, password })).status).toBe(303);
  await client.get(PAGE);
  return client;
}

const hooks = () => registry.services.webhooks.list('');
const lastEntry = async (action: string) => (await registry.services.audit.query('', { action, limit: 1 }))[0];

beforeAll(async () => {
  registry = await startRegistry();
  await loginUser(registry.url, 'alice', 'pw-alice');
  rootToken = await loginUser(registry.url, 'root', 'pw-root');
  await registry.storage.registry.users.update('', 'root', { admin: true });
});
afterAll(async () => {
  await registry.close();
});

describe('managing webhooks on the web page', () => {
  it('adds one, shows its secret only on the answer to the form, and logs it', async () => {
    const root = await signedIn('root', 'pw-root');
    const res = await root.post(PAGE, { csrf: root.csrf(), url: RECEIVER, events: 'package, advisory', secret: '' });
    expect(res.status).toBe(201);
    const secret = textOfId(res.html, 'new-secret');
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const [hook] = await hooks();
    expect(hook).toMatchObject({ url: RECEIVER, events: ['package', 'advisory'], createdBy: 'root', signingSecrets: 1 });
    const again = await root.get(PAGE);
    expect(again.html).toContain(RECEIVER);
    expect(again.html).not.toContain(secret!);
    expect(await lastEntry('webhook.add')).toMatchObject({ outcome: 'success', user: 'root', target: `webhook ${hook!.id}` });
    // A secret chosen by the administrator is taken as given.
    const chosen = await root.post(PAGE, {
      csrf: root.csrf(),
      url: `${RECEIVER}2`,
      events: '*',
      secret: 'a-chosen-secret-of-32-characters',
    });
    expect(chosen.status).toBe(201);
    expect(textOfId(chosen.html, 'new-secret')).toBe('a-chosen-secret-of-32-characters');
    await registry.services.webhooks.remove('', (await hooks()).find((h) => h.url === `${RECEIVER}2`)!.id);
  });

  it("refuses bad input with the HTTP API's words, keeps what was typed (never a secret) and adds nothing", async () => {
    const root = await signedIn('root', 'pw-root');
    for (const body of [
      { url: 'ftp://example.com/x', events: 'package', secret: '' },
      { url: RECEIVER, events: 'package, nonsense', secret: '' },
      { url: RECEIVER, events: '', secret: '' },
      { url: RECEIVER, events: 'package', secret: 'short secret' },
    ]) {
      const before = (await hooks()).length;
      const res = await root.post(PAGE, { csrf: root.csrf(), ...body });
      const api = await request(`${registry.url}/-/pkg/v1/webhooks`, {
        method: 'POST',
        token: rootToken,
        body: {
          url: body.url,
          events: body.events.split(/[\s,]+/).filter(Boolean),
          ...(body.secret ? { secret: body.secret } : {}),
        },
      });
      expect(api.status).toBe(422);
      expect(res.status).toBe(api.status);
      expect(decodeEntities(textOfId(res.html, 'add-error') ?? '')).toBe(api.body.details ?? api.body.error);
      expect(res.html).toContain(`value="${body.url}"`);
      if (body.secret) expect(res.html).not.toContain(body.secret);
      expect((await hooks()).length).toBe(before);
    }
  });

  it('changes URL and events, rotates the secret (both sign for the overlap), redelivers and deletes', async () => {
    const root = await signedIn('root', 'pw-root');
    const [hook] = await hooks();
    const id = hook!.id;

    const edited = await root.post(`${PAGE}/${id}`, {
      csrf: root.csrf(),
      url: `${RECEIVER}/v2`,
      events: 'dist-tag.set advisory',
    });
    expect(edited.status).toBe(303);
    expect(edited.headers.get('location')).toBe(`${PAGE}?done=changed#hook-${id}`);
    expect((await hooks())[0]).toMatchObject({ id, url: `${RECEIVER}/v2`, events: ['dist-tag.set', 'advisory'] });
    expect(squash((await root.get(`${PAGE}?done=changed`)).html)).toContain('The webhook was changed.');
    expect(await lastEntry('webhook.change')).toMatchObject({ outcome: 'success', user: 'root', target: `webhook ${id}` });
    // The API reads the same.
    const listed = await request(`${registry.url}/-/pkg/v1/webhooks`, { token: rootToken });
    expect(listed.body.webhooks[0]).toMatchObject({ url: `${RECEIVER}/v2`, events: ['dist-tag.set', 'advisory'] });
    const badEdit = await root.post(`${PAGE}/${id}`, { csrf: root.csrf(), url: 'not a url', events: 'package' });
    expect(badEdit.status).toBe(422);
    expect(textOfId(badEdit.html, `edit-error-${id}`)).toContain("'not a url' is not a URL");
    expect((await hooks())[0]!.url).toBe(`${RECEIVER}/v2`);

    const rotated = await root.post(`${PAGE}/${id}/rotate-secret`, { csrf: root.csrf(), secret: '', overlapHours: '2' });
    expect(rotated.status).toBe(200);
    expect(textOfId(rotated.html, 'new-secret')).toMatch(/^[0-9a-f]{64}$/);
    expect((await hooks())[0]!.signingSecrets).toBe(2);
    const badRotate = await root.post(`${PAGE}/${id}/rotate-secret`, { csrf: root.csrf(), secret: '', overlapHours: '9999' });
    expect(badRotate.status).toBe(422);
    expect(textOfId(badRotate.html, `rotate-error-${id}`)).toBe('The overlap must be from 0 to 720 hours');

    // A delivery to redeliver: an advisory published through the API.
    const token = await loginUser(registry.url, 'alice', 'pw-alice');
    expect((await publishVersion(registry.url, token, 'com.acme.hooked', '1.0.0')).status).toBe(201);
    expect(
      (
        await request(`${registry.url}/-/pkg/v1/advisories/com.acme.hooked`, {
          method: 'POST',
          token,
          body: { severity: 'low', vulnerable_versions: '<2.0.0', title: 'Flaw' },
        })
      ).status,
    ).toBe(201);
    const [delivery] = await registry.services.webhooks.deliveries('', id);
    expect(delivery).toMatchObject({ event: 'advisory.publish' });
    const page = await root.get(PAGE);
    expect(page.html).toContain(`aria-label="Redeliver advisory.publish delivery ${delivery!.id}"`);
    const redelivered = await root.post(`${PAGE}/deliveries/${delivery!.id}/redeliver`, { csrf: root.csrf() });
    expect(redelivered.status).toBe(303);
    expect(await lastEntry('webhook.redeliver')).toMatchObject({
      outcome: 'success',
      user: 'root',
      target: `delivery ${delivery!.id}`,
    });
    const unknown = await root.post(`${PAGE}/deliveries/nope/redeliver`, { csrf: root.csrf() });
    expect(unknown.status).toBe(404);
    expect(decodeEntities(squash(unknown.html))).toContain("There is no delivery 'nope' in this registry");

    const deleted = await root.post(`${PAGE}/${id}/delete`, { csrf: root.csrf() });
    expect(deleted.status).toBe(303);
    expect(await hooks()).toEqual([]);
    expect(squash((await root.get(`${PAGE}?done=deleted`)).html)).toContain('No webhooks.');
    expect(await lastEntry('webhook.remove')).toMatchObject({ outcome: 'success', user: 'root', target: `webhook ${id}` });
  });

  it('refuses a form without its CSRF token, a user who is not an administrator, and sends the signed-out to sign in', async () => {
    const root = await signedIn('root', 'pw-root');
    expect((await root.post(PAGE, { url: RECEIVER, events: 'package' })).status).toBe(403);
    expect((await root.post(PAGE, { csrf: 'forged', url: RECEIVER, events: 'package' })).status).toBe(403);
    const alice = await signedIn('alice', 'pw-alice');
    const refused = await alice.post(PAGE, { csrf: alice.csrf(), url: RECEIVER, events: 'package' });
    expect(refused.status).toBe(403);
    expect(squash(refused.html)).toContain('Only an administrator of this registry may manage its webhooks');
    expect(await lastEntry('webhook.add')).toMatchObject({
      outcome: 'refused',
      user: 'alice',
      via: 'http',
      reason: expect.stringContaining('Only an administrator of this registry may manage its webhooks'),
    });
    const visitor = new WebClient(registry.url);
    await visitor.get('/-/web/signin');
    const signedOut = await visitor.post(PAGE, { csrf: visitor.csrf(), url: RECEIVER, events: 'package' });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toBe('/-/web/signin?next=%2F-%2Fweb%2Fwebhooks');
    expect(await hooks()).toEqual([]);
  });
});

describe('PATCH /-/pkg/v1/webhooks/:id', () => {
  it('changes URL or events with the checks of add, and says what is wrong', async () => {
    const added = await request(`${registry.url}/-/pkg/v1/webhooks`, {
      method: 'POST',
      token: rootToken,
      body: { url: RECEIVER, events: ['package'] },
    });
    expect(added.status).toBe(201);
    const path = `${registry.url}/-/pkg/v1/webhooks/${added.body.id}`;
    const changed = await request(path, { method: 'PATCH', token: rootToken, body: { events: ['owner'] } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: added.body.id, url: RECEIVER, events: ['owner'] });
    expect(changed.body.secret).toBeUndefined();
    for (const body of [{}, { url: 7 }, { events: 'owner' }, { events: ['nonsense'] }, { url: 'mailto:x@example.com' }]) {
      const res = await request(path, { method: 'PATCH', token: rootToken, body });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    expect(
      (await request(`${registry.url}/-/pkg/v1/webhooks/nope`, { method: 'PATCH', token: rootToken, body: { events: ['*'] } }))
        .status,
    ).toBe(404);
    const alice = await loginUser(registry.url, 'alice', 'pw-alice');
    expect((await request(path, { method: 'PATCH', token: alice, body: { events: ['*'] } })).status).toBe(403);
    expect((await hooks())[0]).toMatchObject({ events: ['owner'] });
    expect(await lastEntry('webhook.change')).toMatchObject({ outcome: 'refused' });
  });
});
