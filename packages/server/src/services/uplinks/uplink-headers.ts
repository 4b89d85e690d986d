/** Response header on a document served from the cache because its upstream could not be asked. */
export const STALE_HEADER = 'x-uplink-stale';
