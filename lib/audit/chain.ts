import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { fingerprintToolCall } from '@/lib/agent/fingerprint';

/**
 * The audit hash chain. Every decision and every audit event is a link:
 * - `content_hash` = hex sha256 of the entry's canonical JSON (RFC 8785, via `canonicalize`);
 * - `hash` = hex sha256 of the bytes of the previous link's `hash` followed by the bytes of
 *   `content_hash` (the first link follows GENESIS, 64 zeros);
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

/** `hash` of a link: sha256(prev bytes ‖ content hash bytes), hex. */
export function linkHash(prevHash: string, contentHash: string): string {
  return sha256(Buffer.concat([Buffer.from(prevHash, 'hex'), Buffer.from(contentHash, 'hex')]));
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
  problem: 'content_changed' | 'args_changed' | 'wrong_previous_hash' | 'wrong_hash' | 'missing_link' | 'head_mismatch';
  message: string;
}

/**
 * Checks links in chain order, continuing from `state` (so a long chain can be checked page by page).
 * @param state the last good link so far: `{ seq: 0n, hash: GENESIS }` at the start
 * @returns the new state, or the first broken link
 */
export function checkLinks(links: ChainLink[], state: { seq: bigint; hash: string }): { state: { seq: bigint; hash: string } } | { broken: BrokenLink } {
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
    const expected = linkHash(hash, link.contentHash);
    if (expected !== link.hash) return { broken: { ...where, problem: 'wrong_hash', message: `The hash of link ${link.seq} is not sha256(previous ‖ content).` } };
    seq = link.seq;
    hash = expected;
  }
  return { state: { seq, hash } };
}
