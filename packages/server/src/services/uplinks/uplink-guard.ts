import { ProtocolError } from '@pkg/protocol';
import type { Uplink } from '../../config/uplink-config.js';

/** The 403 of a write to a name `uplink` covers (also of npm's `?write=true` read before one). */
export function coveredNameRefused(name: string, uplink: Uplink): ProtocolError {
  return new ProtocolError(
    'FORBIDDEN',
    `'${name}' is served from the upstream registry '${uplink.name}' (uplink): it cannot be published or changed here`,
  );
}
