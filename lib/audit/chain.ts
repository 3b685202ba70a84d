import { createHash, createHmac } from 'node:crypto';
import canonicalize from 'canonicalize';
import { fingerprintToolCall } from '@/lib/agent/fingerprint';
import { auditChainKeying, type ChainKeying } from './chain-key';

/**
 * The audit hash chain. Every decision and every audit event is a link:
 * - `content_hash` = hex sha256 of the entry's canonical JSON (RFC 8785, via `canonicalize`);
 * - `hash` = hex HMAC-SHA256, keyed with AUDIT_CHAIN_KEY (a secret the database never stores), of
 *   the bytes of the previous link's `hash` followed by the bytes of `content_hash` (the first
 *   link follows GENESIS, 64 zeros). Whoever can write to the database can change an entry and
 *   recompute its content hash, but not the links after it without the key. Links written before
 *   the key existed (the first AUDIT_CHAIN_LEGACY_LINKS) are plain sha256 of the same bytes;
 * - `chain_seq` numbers the links 1, 2, 3 … across both tables.
 * Writers add a link in the statement that writes the entry, by updating the one-row
 * `audit_chain_head` (its row lock serialises writers, so the chain never forks). Decisions build
 * their canonical JSON in SQL (`countersign_decision_content`, migration audit_chain), the same text
 * `decisionContent` builds here. Pure functions: no database access.
 */

export const GENESIS = '0'.repeat(64);

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** RFC 8785 text of a JSON value. @throws Error when it is not JSON */
function canonical(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('not JSON');
  return text;
}

/**
 * `hash` of a link: HMAC-SHA256(key, prev bytes ‖ content hash bytes), hex; with `key` null the
 * unkeyed form of links older than the key, sha256(prev bytes ‖ content hash bytes).
 * @param key default: the configured AUDIT_CHAIN_KEY (lib/audit/chain-key.ts)
 */
export function linkHash(prevHash: string, contentHash: string, key: string | null = auditChainKeying().key): string {
  const bytes = Buffer.concat([Buffer.from(prevHash, 'hex'), Buffer.from(contentHash, 'hex')]);
  return key === null ? sha256(bytes) : createHmac('sha256', key).update(bytes).digest('hex');
}

/**
 * The hash link number `seq` must have: unkeyed for the legacy links (seq ≤ keying.legacyLinks),
 * keyed for every later one.
 */
export function expectedLinkHash(seq: bigint, prevHash: string, contentHash: string, keying: ChainKeying = auditChainKeying()): string {
  return linkHash(prevHash, contentHash, seq <= keying.legacyLinks ? null : keying.key);
}

/** Why a link's hash is not the expected one, in words (recomputed without the key, or another key). */
export function linkHashProblem(seq: bigint, prevHash: string, contentHash: string, hash: string, keying: ChainKeying): string {
  if (seq > keying.legacyLinks && linkHash(prevHash, contentHash, null) === hash) {
    return `Link ${seq} is a plain sha256 link, not keyed with AUDIT_CHAIN_KEY: it was recomputed by someone without the key (or it is older than the key: then AUDIT_CHAIN_LEGACY_LINKS must count it).`;
  }
  return seq <= keying.legacyLinks
    ? `The hash of link ${seq} (written before the key) is not sha256(previous ‖ content).`
    : `The hash of link ${seq} is not HMAC-SHA256(AUDIT_CHAIN_KEY, previous ‖ content): it was changed, or made with another key.`;
}

/** JSON as stored in jsonb and read back (undefined → null), so writer and verifier hash the same value. */
const asStored = (value: unknown) => (value === undefined || value === null ? null : (JSON.parse(JSON.stringify(value)) as unknown));

/**
 * The hash of a decision's JSON values (edited args and answer), part of its canonical content.
 * @returns hex sha256 of RFC 8785 `{ editedArgs, resumeData }` (nulls when absent)
 */
export function decisionDataHash(input: { editedArgs: unknown; resumeData: unknown }): string {
  return sha256(canonical({ editedArgs: asStored(input.editedArgs), resumeData: asStored(input.resumeData) }));
}

/** A decision row as the verifier reads it. */
export interface DecisionRow {
  id: string;
  pendingCallId: string;
  runId: string;
  toolCallId: string;
  toolName: string | null;
  kind: string;
  approved: boolean | null;
  reason: string | null;
  actorId: string;
  actorRole: string;
  fingerprint: string;
  args: unknown;
  editedArgs: unknown;
  editedFingerprint: string | null;
  resumeData: unknown;
  createdAt: Date;
}

/** The canonical JSON of a decision (RFC 8785; equal to what `countersign_decision_content` builds in SQL). */
export function decisionContent(row: DecisionRow): string {
  return canonical({
    entry: 'decision',
    id: row.id,
    pendingCallId: row.pendingCallId,
    runId: row.runId,
    toolCallId: row.toolCallId,
    toolName: row.toolName,
    kind: row.kind,
    approved: row.approved,
    reason: row.reason,
    actorId: row.actorId,
    actorRole: row.actorRole,
    fingerprint: row.fingerprint,
    editedFingerprint: row.editedFingerprint,
    dataHash: decisionDataHash({ editedArgs: row.editedArgs, resumeData: row.resumeData }),
    createdAt: row.createdAt.toISOString(),
  });
}

/** An audit event row as written and read. */
export interface EventRow {
  id: string;
  action: string;
  actorId: string | null;
  actorRole: string | null;
  targetType: string | null;
  targetId: string | null;
  details: unknown;
  createdAt: Date;
}

/** The canonical JSON of an audit event (RFC 8785). */
export function eventContent(row: EventRow): string {
  return canonical({
    entry: 'event',
    id: row.id,
    action: row.action,
    actorId: row.actorId,
    actorRole: row.actorRole,
    targetType: row.targetType,
    targetId: row.targetId,
    details: asStored(row.details) ?? {},
    createdAt: row.createdAt.toISOString(),
  });
}

/** hex sha256 of a canonical text. */
export const contentHash = (content: string) => sha256(content);

/** One link as stored, with the entry it covers. */
export type ChainLink = { seq: bigint; contentHash: string | null; prevHash: string | null; hash: string | null } & (
  | { table: 'decisions'; row: DecisionRow }
  | { table: 'audit_events'; row: EventRow }
);

/** The first link that does not hold, and why. */
export interface BrokenLink {
  table: 'decisions' | 'audit_events' | 'audit_chain_head';
  id: string;
  seq: string;
  problem: 'content_changed' | 'args_changed' | 'wrong_previous_hash' | 'wrong_hash' | 'not_keyed' | 'missing_link' | 'head_mismatch';
  message: string;
}

/**
 * Checks links in chain order, continuing from `state` (so a long chain can be checked page by page).
 * @param state the last good link so far: `{ seq: 0n, hash: GENESIS }` at the start
 * @param keying the key and how many links are older than it (default: the configured ones)
 * @returns the new state, or the first broken link (`not_keyed`: a link after the legacy ones that
 *   is plain sha256 — recomputed without the key)
 */
export function checkLinks(
  links: ChainLink[],
  state: { seq: bigint; hash: string },
  keying: ChainKeying = auditChainKeying(),
): { state: { seq: bigint; hash: string } } | { broken: BrokenLink } {
  let { seq, hash } = state;
  for (const link of links) {
    const where = { table: link.table, id: link.row.id, seq: String(link.seq) };
    if (link.seq !== seq + 1n) {
      return { broken: { ...where, problem: 'missing_link', message: `Link ${seq + 1n} is missing (the next one found is ${link.seq}): an entry was deleted.` } };
    }
    const content = link.table === 'decisions' ? decisionContent(link.row) : eventContent(link.row);
    if (contentHash(content) !== link.contentHash) {
      return { broken: { ...where, problem: 'content_changed', message: `The ${link.table === 'decisions' ? 'decision' : 'audit event'} ${link.row.id} was changed after it was written.` } };
    }
    if (link.table === 'decisions') {
      const row = link.row;
      const argsOk =
        row.toolName !== null &&
        fingerprintToolCall({ toolName: row.toolName, args: row.args }) === row.fingerprint &&
        (row.editedArgs === null || row.editedArgs === undefined || fingerprintToolCall({ toolName: row.toolName, args: row.editedArgs }) === row.editedFingerprint);
      if (!argsOk) return { broken: { ...where, problem: 'args_changed', message: `The arguments of decision ${row.id} do not match its fingerprint.` } };
    }
    if (link.prevHash !== hash) {
      return { broken: { ...where, problem: 'wrong_previous_hash', message: `Link ${link.seq} does not follow link ${seq}.` } };
    }
    const expected = expectedLinkHash(link.seq, hash, link.contentHash, keying);
    if (expected !== link.hash) {
      const unkeyed = link.seq > keying.legacyLinks && link.hash !== null && linkHash(hash, link.contentHash, null) === link.hash;
      return { broken: { ...where, problem: unkeyed ? 'not_keyed' : 'wrong_hash', message: linkHashProblem(link.seq, hash, link.contentHash, link.hash ?? '', keying) } };
    }
    seq = link.seq;
    hash = expected;
  }
  return { state: { seq, hash } };
}
