import { friendlyError, parseApiError, type FriendlyError } from './api-error';

export type SendJsonOutcome<T> = { ok: true; data: T } | { ok: false; error: FriendlyError };

/**
 * Sends a JSON request to one of our API routes and reads the JSON answer; a refusal
 * (`{ error: { code, message } }`) or a network failure comes back as a sentence with a next step.
 * @param init.method e.g. 'PATCH', 'DELETE'
 * @param init.body sent as JSON when given
 */
export async function sendJson<T>(url: string, init: { method: string; body?: unknown }): Promise<SendJsonOutcome<T>> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method,
      headers: init.body === undefined ? undefined : { 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch {
    return { ok: false, error: friendlyError(null, {}) };
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) return { ok: false, error: friendlyError(parseApiError(text), {}) };
  try {
    return { ok: true, data: JSON.parse(text) as T };
  } catch {
    return { ok: false, error: friendlyError(null, {}) };
  }
}
