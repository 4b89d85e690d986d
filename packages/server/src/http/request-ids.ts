/**
 * Request ids (`req-1`, `req-2`, … in base 36), from one counter per server, so the log never
 * shows one id twice.
 */
export function requestIdGenerator(): () => string {
  // Wraps at the largest small integer V8 keeps unboxed.
  const max = 2147483647;
  let next = 0;
  return () => {
    next = (next + 1) & max;
    return `req-${next.toString(36)}`;
  };
}
