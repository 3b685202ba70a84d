import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * Fingerprint of a tool call: hex sha256 of the RFC 8785 canonical JSON of `{ toolName, args }`.
 * Two calls with the same name and equal args (any key order) share a fingerprint. Source: behaviour §2.
 *
 * @param call.toolName the tool's id
 * @param call.args the (validated) arguments, any JSON value
 * @returns 64 lowercase hex characters
 * @throws Error when the args are not JSON: NaN, ±Infinity, a lone UTF-16 surrogate or a cycle
 */
export function fingerprintToolCall(call: { toolName: string; args: unknown }): string {
  const canonical = canonicalize({ toolName: call.toolName, args: call.args ?? null });
  if (canonical === undefined) throw new Error('Tool call args are not JSON');
  return createHash('sha256').update(canonical).digest('hex');
}
