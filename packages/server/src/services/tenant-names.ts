/** A tenant name is one DNS label: it becomes the host `<tenant>.<registryDomain>`. */
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Why `name` cannot be a tenant name, or undefined when it can. */
export function tenantNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'a tenant name must not be empty';
  if (name.length > 63) return 'a tenant name is at most 63 characters (one DNS label)';
  if (name !== name.toLowerCase()) return 'a tenant name is lower case';
  if (!DNS_LABEL.test(name)) {
    return 'a tenant name is a DNS label: letters a-z, digits and "-", not starting or ending with "-"';
  }
  // `xn--` and other `??--` labels are reserved for internationalized names (RFC 5891).
  if (/^..--/.test(name)) return 'a tenant name must not have "--" in the third and fourth place';
  return undefined;
}
