import type { Assets } from '../assets.js';

/** What every page needs besides its own content: who looks, which registry, the form token. */
export interface PageContext {
  assets: Assets;
  /** Tenant id; '' for the global registry. */
  tenant: string;
  /** Host of this registry, shown as its name. */
  host: string;
  /** The signed-in user, if any. */
  viewer: string | undefined;
  /** CSRF token for the forms of the page. */
  csrf: string;
  /** The time pages count relative times from ("3 days ago"); the clock's now when not given. */
  now?: Date;
}
