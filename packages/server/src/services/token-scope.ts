import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { ProtocolError } from '@pkg/protocol';
import type { TokenScope } from '../storage/ports.js';
import { parsePackageRule, ruleCovers } from '../config/package-rules.js';

/**
 * The limits of a scoped token: checked when it is created, asked on every request it makes.
 * A package limit names packages exactly or namespaces in the uplinks' form (`com.studio.*`
 * holds `com.studio.tool` and `com.studio.tool.extra`, not `com.studio`).
 */

const MAX_RULES = 100;
const MAX_NAME = 128;

/** A scope's CIDR list compiled once per scope object (the cached caller keeps that object). */
const compiled = new WeakMap<TokenScope, BlockList>();

/** Whether a token of this scope may act on package `name`. */
export function packageAllowed(scope: TokenScope | undefined, name: string): boolean {
  const rules = scope?.packages;
  if (rules === undefined) return true;
  return rules.some((rule) => ruleCovers(rule, name));
}

/** Whether a token of this scope may be used from `address` (the client's, as trustProxy sees it). */
export function addressAllowed(scope: TokenScope | undefined, address: string): boolean {
  const cidrs = scope?.cidrWhitelist;
  if (cidrs === undefined || cidrs.length === 0) return true;
  let list = compiled.get(scope!);
  if (list === undefined) {
    list = new BlockList();
    for (const cidr of cidrs) {
      const [network, bits] = cidr.split('/') as [string, string];
      list.addSubnet(network, Number(bits), isIPv4(network) ? 'ipv4' : 'ipv6');
    }
    compiled.set(scope!, list);
  }
  // A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d; the list names them as IPv4.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const plain = mapped ? mapped[1]! : address;
  if (isIPv4(plain)) return list.check(plain, 'ipv4');
  return isIPv6(plain) && list.check(plain, 'ipv6');
}

/** The refusal of a request from outside the token's addresses (403: the token is valid). */
export function addressRefusal(scope: TokenScope, address: string): ProtocolError {
  return new ProtocolError(
    'FORBIDDEN',
    `This token may not be used from ${address}: it is limited to ${scope.cidrWhitelist!.join(', ')}`,
  );
}

/** The refusal of a request for a package outside the token's packages. */
export function packageRefusal(scope: TokenScope, name: string): ProtocolError {
  return new ProtocolError(
    'FORBIDDEN',
    `This token may not be used for '${name.slice(0, 214)}': it is limited to ${scope.packages!.join(', ')}`,
  );
}

/** What a client asks for when it creates a token (npm's fields and ours), before checking. */
export interface TokenScopeInput {
  name?: unknown;
  cidrWhitelist?: unknown;
  packages?: unknown;
  publishOnly?: unknown;
  automation?: unknown;
}

/** Checks a requested scope: 422 naming the first value that is not allowed. */
export function parseTokenScope(input: TokenScopeInput): TokenScope | undefined {
  const scope: TokenScope = {};
  if (input.name !== undefined && input.name !== null && input.name !== '') {
    if (typeof input.name !== 'string' || input.name.length > MAX_NAME || [...input.name].some((c) => c < ' ')) {
      throw new ProtocolError('VALIDATION_ERROR', `A token's name must be text of at most ${MAX_NAME} characters`);
    }
    scope.name = input.name;
  }
  const cidrs = list(input.cidrWhitelist, 'cidr_whitelist');
  if (cidrs !== undefined && cidrs.length > 0) scope.cidrWhitelist = cidrs.map(checkCidr);
  const packages = list(input.packages, 'packages');
  if (packages !== undefined) {
    if (packages.length === 0)
      throw new ProtocolError('VALIDATION_ERROR', "'packages' names no package: leave it out for every package");
    scope.packages = [...new Set(packages.map(checkPackageRule))];
  }
  if (flag(input.publishOnly, 'publish_only')) scope.publishOnly = true;
  if (flag(input.automation, 'automation')) scope.automation = true;
  return Object.keys(scope).length === 0 ? undefined : scope;
}

function list(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new ProtocolError('BAD_REQUEST', `'${field}' must be an array of strings`);
  }
  if (value.length > MAX_RULES) throw new ProtocolError('VALIDATION_ERROR', `'${field}' may hold at most ${MAX_RULES} entries`);
  return value as string[];
}

function flag(value: unknown, field: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new ProtocolError('BAD_REQUEST', `'${field}' must be true or false`);
  return value;
}

function checkCidr(cidr: string): string {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(cidr.trim());
  const network = match?.[1] ?? '';
  const bits = Number(match?.[2]);
  const max = isIPv4(network) ? 32 : isIPv6(network) ? 128 : -1;
  if (!match || max < 0 || bits > max) {
    throw new ProtocolError('VALIDATION_ERROR', `'${cidr.slice(0, 60)}' is not a CIDR range such as 192.168.0.0/16`);
  }
  return `${network}/${bits}`;
}

function checkPackageRule(rule: string): string {
  if (parsePackageRule(rule) === undefined) {
    throw new ProtocolError('VALIDATION_ERROR', `'${rule.slice(0, 80)}' is neither a package name nor a '<prefix>.*' namespace`);
  }
  return rule;
}
