/**
 * The package name under which a change of a tenant's search results that is no package write
 * is announced on the invalidation bus (new download counts, refreshed scores): nodes keeping
 * search responses drop them. No package is named so (a name never starts with `/`), so the
 * package caches drop nothing for it.
 */
export const SEARCH_RESULTS_CHANGED = '/-/search';
