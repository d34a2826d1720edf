/** Polls until `fn` returns a value other than undefined, or fails after `ms`. */
export async function eventually<T>(
  fn: () => Promise<T | undefined> | T | undefined,
  ms = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
