/**
 * The error `promise` rejects with, for assertions on its fields; fails the test when it
 * resolves or rejects with anything but a `type`.
 */
export async function rejected<E>(promise: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}`);
}
