// Modules of undici's own, imported by path (http/undici-transport.ts) so that the rest of undici
// is not loaded; their types are the ones undici's index exports.
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';
  const Agent: typeof EnvHttpProxyAgent;
  export default Agent;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type { Dispatcher } from 'undici';
  const DispatcherClass: typeof Dispatcher;
  export default DispatcherClass;
}
declare module 'undici/lib/api/index.js' {
  const api: Record<string, unknown>;
  export default api;
}
