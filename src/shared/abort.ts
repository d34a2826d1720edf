/**
 * What a long-running step watches to stop early (the client went away, shutdown, a timeout).
 * The part of `AbortSignal` Radar uses, so a real signal fits wherever this is asked for.
 */
export interface AbortWatch {
  readonly aborted: boolean;
  /** Why, once aborted: an error whose `name` is `AbortError` unless the aborter said otherwise. */
  readonly reason: Error | undefined;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * An `AbortWatch` that is aborted once, by its owner. The front door makes one per request
 * instead of an `AbortController`: a listener on an `AbortSignal` costs a few kilobytes that
 * outlive the young generation (measured: about 4 KB promoted per request with one listener,
 * none without), so at relay rates the signals alone kept the old generation growing and
 * triggered a full mark-compact every few seconds. Listeners here are a plain array.
 */
export class Abort implements AbortWatch {
  aborted = false;
  reason: Error | undefined = undefined;
  private listeners: (() => void)[] | null = null;

  addEventListener(_type: 'abort', listener: () => void): void {
    // As with AbortSignal: a listener added after the abort is never called.
    if (!this.aborted) (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const i = this.listeners?.indexOf(listener) ?? -1;
    if (i >= 0) this.listeners!.splice(i, 1);
  }

  abort(reason: Error = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = null;
    if (listeners) for (const listener of listeners) listener();
  }
}
