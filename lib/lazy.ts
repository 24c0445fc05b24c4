/**
 * A resource loaded on first use and shared after; a failed load is tried again on the next use
 * (a model file fixed in place, a restored mount) instead of failing every later caller.
 */
export function lazy<T>(load: () => Promise<T>): { get(): Promise<T>; ifLoaded(): Promise<T | undefined> } {
  let loading: Promise<T> | undefined;
  return {
    get() {
      loading ??= load().catch((error) => {
        loading = undefined;
        throw error;
      });
      return loading;
    },
    /** The resource if a load started and succeeded (for closing it), else undefined. */
    async ifLoaded() {
      return loading?.catch(() => undefined);
    },
  };
}
