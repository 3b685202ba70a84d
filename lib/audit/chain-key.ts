import { createHash } from 'node:crypto';
import { env } from '@/lib/env';

/*
 * The key of the audit hash chain's links (lib/audit/chain.ts): AUDIT_CHAIN_KEY, never stored in the
 * database, so the database's owner cannot recompute a changed entry's links. Outside production an
 * unset key is the built-in development key (as BETTER_AUTH_SECRET's development secret); a
 * production server does not start without one (serverStartProblems in lib/env.ts).
 */

/** The development key: public, so a chain keyed with it proves nothing. Production sets AUDIT_CHAIN_KEY. */
export const DEV_AUDIT_CHAIN_KEY = 'countersign-development-audit-chain-key-change-me-0123456789';

/** The key, and the number of links written before there was one (unkeyed sha256 links). */
export interface ChainKeying {
  key: string;
  /** AUDIT_CHAIN_LEGACY_LINKS: links 1…legacyLinks are unkeyed; every later one must be keyed. */
  legacyLinks: bigint;
}

/**
 * The chain's keying from the environment: AUDIT_CHAIN_KEY (else, outside production or with
 * COUNTERSIGN_ALLOW_DEV_SECRET, DEV_AUDIT_CHAIN_KEY) and AUDIT_CHAIN_LEGACY_LINKS.
 * @throws Error in production without AUDIT_CHAIN_KEY (the server refuses to start before this)
 */
export function auditChainKeying(): ChainKeying {
  const { AUDIT_CHAIN_KEY, AUDIT_CHAIN_LEGACY_LINKS, NODE_ENV, COUNTERSIGN_ALLOW_DEV_SECRET } = env();
  if (!AUDIT_CHAIN_KEY && NODE_ENV === 'production' && !COUNTERSIGN_ALLOW_DEV_SECRET) {
    throw new Error('AUDIT_CHAIN_KEY is required in production: 32+ random characters, kept outside the database (it keys the audit hash chain).');
  }
  return { key: AUDIT_CHAIN_KEY ?? DEV_AUDIT_CHAIN_KEY, legacyLinks: BigInt(AUDIT_CHAIN_LEGACY_LINKS) };
}

let pads: { key: string; ipad: string; opad: string } | undefined;

/**
 * HMAC-SHA256's inner and outer key blocks (RFC 2104: the key, hashed when longer than 64 bytes,
 * zero-padded to 64 bytes, XOR 0x36 and XOR 0x5c), hex, so a SQL statement can compute the link as
 * sha256(opad ‖ sha256(ipad ‖ message)) — the same value as node's createHmac — in the statement
 * that writes the entry. They are statement parameters: the database never stores them.
 */
export function chainKeyPads(key: string = auditChainKeying().key): { ipad: string; opad: string } {
  if (pads?.key === key) return pads;
  let bytes = Buffer.from(key, 'utf8');
  if (bytes.length > 64) bytes = createHash('sha256').update(bytes).digest();
  const block = Buffer.alloc(64);
  bytes.copy(block);
  const xor = (value: number) => Buffer.from(block.map((byte) => byte ^ value)).toString('hex');
  pads = { key, ipad: xor(0x36), opad: xor(0x5c) };
  return pads;
}
