import { ModelIdleTimeoutError } from './failure';

/** How long a model step waits for the next piece of its provider's answer by default, in ms (MODEL_IDLE_TIMEOUT_MS). */
export const DEFAULT_MODEL_IDLE_TIMEOUT_MS = 60_000;

/**
 * The idle timeout of one provider request: aborts `signal` with a ModelIdleTimeoutError when
 * `touch()` was not called for `idleMs`. `signal` also follows an outside abort (e.g. Stop), so
 * the provider request sees one signal for both (`AbortSignal.any`).
 */
export class IdleWatch {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * @param idleMs how long without data aborts the request, in ms
   * @param outside an abort signal of the caller (optional), combined with the idle timeout
   */
  constructor(
    private readonly idleMs: number,
    outside?: AbortSignal,
  ) {
    this.signal = outside ? AbortSignal.any([outside, this.controller.signal]) : this.controller.signal;
    this.touch();
  }

  /** Whether the idle timeout (not an outside abort) fired. */
  get fired(): boolean {
    return this.controller.signal.aborted;
  }

  /** Something arrived: the idle time starts again. */
  touch() {
    if (this.controller.signal.aborted) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.controller.abort(new ModelIdleTimeoutError(this.idleMs)), this.idleMs);
  }

  /** The request ended: no timeout fires any more. */
  stop() {
    clearTimeout(this.timer);
  }
}
