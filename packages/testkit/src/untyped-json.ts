/**
 * A JSON value a test reads without declaring its shape: the test's assertions say what it must
 * hold. The one place where tests opt out of typing, so that `any` is written nowhere else.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type UntypedJson = any;
