/**
 * The routes that change something, each with the action a refused or failed attempt at it is
 * recorded as (http/../plugins/change-recording.ts). A successful one records what its handler
 * noted (routes call `noteChange`): one PUT of a package document may publish, deprecate or
 * change owners, and only the handler knows which.
 */
export interface RecordedRoute {
  /** The action of a refused or failed request. */
  action: string;
  /** The route parameter naming the package it is about, if any. */
  packageParam?: string;
}

export const WEB_ACCOUNT_TOKENS = '/-/web/account/tokens';
const WEB_WEBHOOKS = '/-/web/webhooks';
export const WEB_ADVISORIES = '/-/web/package/:name/advisories';

export const RECORDED_ROUTES: Readonly<Record<string, RecordedRoute>> = {
  'PUT /:name': { action: 'package.publish', packageParam: 'name' },
  'PUT /:name/-rev/:rev': { action: 'package.change', packageParam: 'name' },
  'DELETE /:name/-rev/:rev': { action: 'package.unpublish', packageParam: 'name' },
  'DELETE /:name/-/:file/-rev/:rev': { action: 'package.unpublish', packageParam: 'name' },
  'PUT /-/package/:name/dist-tags/:tag': { action: 'dist-tag.set', packageParam: 'name' },
  'DELETE /-/package/:name/dist-tags/:tag': { action: 'dist-tag.remove', packageParam: 'name' },
  'POST /-/npm/v1/tokens': { action: 'token.create' },
  'DELETE /-/npm/v1/tokens/token/:key': { action: 'token.revoke' },
  'PUT /-/user/:id': { action: 'user.login' },
  'DELETE /-/user/token/:token': { action: 'token.revoke' },
  'POST /-/npm/v1/user': { action: 'user.two-factor' },
  'POST /-/pkg/v1/advisories/:name': { action: 'advisory.publish', packageParam: 'name' },
  'DELETE /-/pkg/v1/advisories/:name/:id': { action: 'advisory.withdraw', packageParam: 'name' },
  [`POST ${WEB_ACCOUNT_TOKENS}`]: { action: 'token.create' },
  [`POST ${WEB_ACCOUNT_TOKENS}/revoke`]: { action: 'token.revoke' },
  'POST /-/pkg/v1/admin/users': { action: 'user.create' },
  'PATCH /-/pkg/v1/admin/users/:name': { action: 'user.change' },
  'DELETE /-/pkg/v1/admin/users/:name': { action: 'user.delete' },
  'POST /-/pkg/v1/admin/invitations': { action: 'user.invite' },
  'POST /-/web/invitation/:secret': { action: 'user.accept-invitation' },
  'POST /-/web/account/two-factor/begin': { action: 'user.two-factor' },
  'POST /-/web/account/two-factor/confirm': { action: 'user.two-factor' },
  'POST /-/web/account/two-factor/disable': { action: 'user.two-factor' },
  'POST /-/pkg/v1/teams': { action: 'team.create' },
  'DELETE /-/pkg/v1/teams/:team': { action: 'team.delete' },
  'PUT /-/pkg/v1/teams/:team/members/:user': { action: 'team.member-add' },
  'DELETE /-/pkg/v1/teams/:team/members/:user': { action: 'team.member-remove' },
  'PUT /-/pkg/v1/teams/:team/namespaces/:namespace': { action: 'namespace.claim' },
  'DELETE /-/pkg/v1/teams/:team/namespaces/:namespace': { action: 'namespace.release' },
  'POST /-/pkg/v1/webhooks': { action: 'webhook.add' },
  'PATCH /-/pkg/v1/webhooks/:id': { action: 'webhook.change' },
  'DELETE /-/pkg/v1/webhooks/:id': { action: 'webhook.remove' },
  'POST /-/pkg/v1/webhooks/:id/rotate-secret': { action: 'webhook.rotate-secret' },
  'POST /-/pkg/v1/webhooks/deliveries/:id/redeliver': { action: 'webhook.redeliver' },
  [`POST ${WEB_WEBHOOKS}`]: { action: 'webhook.add' },
  [`POST ${WEB_WEBHOOKS}/:id`]: { action: 'webhook.change' },
  [`POST ${WEB_WEBHOOKS}/:id/rotate-secret`]: { action: 'webhook.rotate-secret' },
  [`POST ${WEB_WEBHOOKS}/:id/delete`]: { action: 'webhook.remove' },
  [`POST ${WEB_WEBHOOKS}/deliveries/:id/redeliver`]: { action: 'webhook.redeliver' },
  [`POST ${WEB_ADVISORIES}`]: { action: 'advisory.publish', packageParam: 'name' },
  [`POST ${WEB_ADVISORIES}/:id/withdraw`]: { action: 'advisory.withdraw', packageParam: 'name' },
};
