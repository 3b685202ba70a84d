import { fingerprintToolCall } from '@/lib/agent/fingerprint';
import { contentHash, decisionContent, eventContent, expectedLinkHash, GENESIS, linkHashProblem } from './chain';
import { auditChainKeying } from './chain-key';
import type { EntryLine, ExportScope, HeaderLine } from './export';

/**
 * The offline check of an audit export, whatever its file kind: each entry against its own hashes
 * (checkEntry), and the entries together (ExportChecker: link numbers, runs, the header's head and
 * scope, the end line's count). The readers in ./export-verify.ts feed it. Pure functions.
 */

/** What an offline check found wrong, naming the entry (and where it is in the file). */
export interface ExportProblem {
  /** 1-based line of the file the entry starts on (JSON Lines or CSV; a CSV's header row is line 1). */
  line: number;
  id: string | null;
  seq: string | null;
  problem:
    | 'unreadable'
    | 'truncated'
    | 'content_changed'
    | 'args_changed'
    | 'wrong_hash'
    | 'wrong_previous_hash'
    | 'wrong_link_number'
    | 'duplicate_link'
    | 'missing_link'
    | 'out_of_order'
    | 'head_mismatch'
    | 'column_changed';
  message: string;
}

/** The result of checking an export offline. */
export interface ExportReport {
  ok: boolean;
  /** Entry lines (or rows) read. */
  entries: number;
  /** Entries older than the chain (no link: only readable, nothing to check). */
  unchained: number;
  /** Runs of consecutive link numbers in the file: within a run every link follows the one before. */
  runs: { fromSeq: string; toSeq: string }[];
  /** The file holds link 1 and it follows the genesis hash. */
  startsAtGenesis: boolean;
  /** The header's chain head, when the file had a header. */
  head: { seq: string; hash: string } | null;
  /** What the header says the file holds (null: no header, or format 1). */
  scope: ExportScope | null;
  /** The header's filters (null: no header). Not covered by a hash: what the exporter says it asked for. */
  filters: Record<string, unknown> | null;
  /** The file holds the link the head names, with the head's hash: the last run ends at the head. */
  reachesHead: boolean;
  /**
   * The file ends with its end line (a CSV: its end comment line, or an older file's end row) and holds as many entries as it counts: nothing was
   * cut off its end. False for a file without one (an export of format 1, or loose entry lines).
   */
  complete: boolean;
  /**
   * What a CSV shows that no hash covers, so the verifier could not check it (null for JSON Lines,
   * whose entry lines hold nothing outside the hash). `columns`: the readable columns no hash covers
   * in any row (`agentId`, `requester`, `why`, and the name and email columns beside the person ids
   * in files that have them: `actorName`, `actorEmail`, `requesterName`, `requesterEmail`). `subAgentRows`: rows of a sub-agent's call, whose
   * `runId` cell names the top-level run and whose `toolCallId` cell is the qualified id
   * (`<delegation id>~…~<own id>`); the hash covers the sub-agent run's id and the call's own id
   * (both in `chainEntry`), so the top-level run and the delegation path are not checked there.
   */
  notCovered: { columns: string[]; subAgentRows: number } | null;
  problems: ExportProblem[];
}

interface Checked {
  line: number;
  id: string;
  seq: bigint;
  prevHash: string;
  hash: string;
}

/** Checks one entry on its own: content hash, argument fingerprints, link hash. */
function checkEntry(entry: EntryLine, line: number): ExportProblem | null {
  const where = { line, id: entry.id, seq: entry.seq };
  if (entry.contentHash === null || entry.prevHash === null || entry.hash === null) {
    return { ...where, problem: 'unreadable', message: `Entry ${entry.id} has a link number but no hashes.` };
  }
  const createdAt = new Date(entry.createdAt);
  const content = entry.entry === 'decision' ? decisionContent({ ...entry, createdAt }) : eventContent({ ...entry, createdAt });
  if (contentHash(content) !== entry.contentHash) {
    return { ...where, problem: 'content_changed', message: `The ${entry.entry} ${entry.id} does not match its content hash: a field was changed.` };
  }
  if (entry.entry === 'decision') {
    const argsOk =
      entry.toolName !== null &&
      fingerprintToolCall({ toolName: entry.toolName, args: entry.args }) === entry.fingerprint &&
      (entry.editedArgs === null || fingerprintToolCall({ toolName: entry.toolName, args: entry.editedArgs }) === entry.editedFingerprint);
    if (!argsOk) return { ...where, problem: 'args_changed', message: `The arguments of decision ${entry.id} do not match its fingerprint.` };
  }
  if (!/^[0-9a-f]{64}$/.test(entry.prevHash)) return { ...where, problem: 'wrong_hash', message: `Link ${entry.seq}'s previous hash is not a hash.` };
  // Keyed with AUDIT_CHAIN_KEY (the auditor needs it), except the links older than the key.
  const keying = auditChainKeying();
  const seq = /^\d+$/.test(entry.seq ?? '') ? BigInt(entry.seq!) : keying.legacyLinks + 1n;
  if (expectedLinkHash(seq, entry.prevHash, entry.contentHash, keying) !== entry.hash) {
    return { ...where, problem: 'wrong_hash', message: linkHashProblem(seq, entry.prevHash, entry.contentHash, entry.hash, keying) };
  }
  return null;
}

/** Accumulates entries of a file and reports on them (shared by the JSON Lines and CSV readers). */
export class ExportChecker {
  private links: Checked[] = [];
  private entries = 0;
  private unchained = 0;
  readonly problems: ExportProblem[] = [];
  head: HeaderLine['head'] | null = null;
  scope: ExportScope | null = null;
  filters: Record<string, unknown> | null = null;
  /** Entries without a link the database held at export time (null: not in the header). */
  unchainedAllowed: number | null = null;
  /** The line the header was on (0: none yet). */
  headerLine = 0;
  /** The end line's count and where it was, once read. */
  end: { entries: number; line: number } | null = null;
  /** Whether the file must end with an end line (format 2 and the CSV export). */
  endExpected = false;
  /** The last line (or row) number seen, for a problem about the end of the file. */
  lastLine = 0;
  /** The last line that held an entry (0: none yet), so a header after entries is refused. */
  lastEntryLine = 0;
  /** What the file shows outside the hash (set by the CSV reader; see ExportReport.notCovered). */
  notCovered: ExportReport['notCovered'] = null;

  /** An entry line (or row) after the end line: the file was added to after the export. */
  afterEnd(line: number): boolean {
    if (!this.end) return false;
    this.problems.push({ line, id: null, seq: null, problem: 'unreadable', message: `Line ${line} comes after the end line (line ${this.end.line}).` });
    return true;
  }

  /** Checks the end line against what was read (called once, after the last line). */
  private checkEnd(): boolean {
    if (!this.end) {
      if (this.endExpected) {
        this.problems.push({ line: this.lastLine + 1, id: null, seq: null, problem: 'truncated', message: 'The file has no end line: the download broke off, or the file was cut short.' });
      }
      return false;
    }
    if (this.end.entries !== this.entries) {
      this.problems.push({ line: this.end.line, id: null, seq: null, problem: 'truncated', message: `The end line counts ${this.end.entries} entries; the file holds ${this.entries}: entries were removed or added.` });
      return false;
    }
    return true;
  }


  add(entry: EntryLine, line: number) {
    this.entries += 1;
    this.lastEntryLine = line;
    const kind = entry.entry === 'decision' ? 'decisions' : 'actions';
    if (this.scope && this.scope !== 'chain' && this.scope !== kind) {
      this.problems.push({ line, id: entry.id, seq: entry.seq, problem: 'unreadable', message: `Line ${line} is ${entry.entry === 'decision' ? 'a decision' : 'an admin action'}, which a ${this.scope} export does not hold.` });
    }
    if (entry.seq === null) {
      // An entry older than the chain has no hashes either; one with hashes lost its link number.
      if (entry.contentHash !== null || entry.prevHash !== null || entry.hash !== null) {
        this.problems.push({ line, id: entry.id, seq: null, problem: 'wrong_link_number', message: `Entry ${entry.id} has hashes but no link number: its number was removed.` });
      } else this.unchained += 1;
      return;
    }
    const problem = checkEntry(entry, line);
    if (problem) this.problems.push(problem);
    else this.links.push({ line, id: entry.id, seq: BigInt(entry.seq), prevHash: entry.prevHash!, hash: entry.hash! });
  }

  unreadable(line: number, message: string, id: string | null = null) {
    this.entries += 1;
    this.lastEntryLine = line;
    this.problems.push({ line, id, seq: null, problem: 'unreadable', message });
  }

  report(): ExportReport {
    const complete = this.checkEnd();
    const links = [...this.links].sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
    const runs: ExportReport['runs'] = [];
    let previous: Checked | null = null;
    for (const current of links) {
      if (previous && current.seq === previous.seq) {
        this.problems.push({ line: current.line, id: current.id, seq: String(current.seq), problem: 'duplicate_link', message: `Link ${current.seq} appears twice (lines ${previous.line} and ${current.line}).` });
        continue;
      }
      if (previous && current.seq === previous.seq + 1n) {
        if (current.prevHash !== previous.hash) {
          this.problems.push({ line: current.line, id: current.id, seq: String(current.seq), problem: 'wrong_previous_hash', message: `Link ${current.seq} does not follow link ${previous.seq}.` });
        }
        runs[runs.length - 1].toSeq = String(current.seq);
      } else {
        runs.push({ fromSeq: String(current.seq), toSeq: String(current.seq) });
      }
      if (current.seq === 1n && current.prevHash !== GENESIS) {
        this.problems.push({ line: current.line, id: current.id, seq: '1', problem: 'wrong_previous_hash', message: 'Link 1 does not follow the genesis hash.' });
      }
      previous = current;
    }
    let reachesHead = false;
    if (this.head && this.head.seq !== '0') {
      const last = links.find((l) => String(l.seq) === this.head!.seq);
      if (last && last.hash !== this.head.hash) {
        this.problems.push({ line: last.line, id: last.id, seq: String(last.seq), problem: 'head_mismatch', message: `Link ${last.seq} does not have the hash of the chain head in the header.` });
      }
      reachesHead = last !== undefined && last.hash === this.head.hash;
    }
    const startsAtGenesis = links[0]?.seq === 1n && links[0].prevHash === GENESIS;
    this.checkNumbers(links);
    if (this.unchainedAllowed !== null && this.unchained > this.unchainedAllowed) {
      this.problems.push({ line: this.headerLine, id: null, seq: null, problem: 'unreadable', message: `The file holds ${this.unchained} entries without a link, but the database held ${this.unchainedAllowed} such entries (older than the chain) when it was exported: entries were added.` });
    }
    if (this.scope === 'chain') this.checkWholeChain(runs, startsAtGenesis, reachesHead);
    this.problems.sort((a, b) => a.line - b.line);
    return {
      ok: this.problems.length === 0,
      entries: this.entries,
      unchained: this.unchained,
      runs,
      startsAtGenesis,
      head: this.head,
      scope: this.scope,
      filters: this.filters,
      reachesHead,
      complete,
      notCovered: this.notCovered,
      problems: this.problems,
    };
  }

  /**
   * Link numbers are not covered by a hash, so they are checked against what is: a link whose
   * previous hash is the hash of another entry in the file must be numbered one after it, and no
   * link may be numbered past the head the header names.
   */
  private checkNumbers(links: Checked[]) {
    const byHash = new Map(links.map((link) => [link.hash, link]));
    const headSeq = this.head ? BigInt(this.head.seq) : null;
    for (const link of links) {
      const before = byHash.get(link.prevHash);
      if (before && before.seq !== link.seq - 1n) {
        this.problems.push({ line: link.line, id: link.id, seq: String(link.seq), problem: 'wrong_link_number', message: `Link ${link.seq} follows the entry on line ${before.line}, which is numbered ${before.seq}: a link number was changed.` });
      }
      if (headSeq !== null && link.seq > headSeq) {
        this.problems.push({ line: link.line, id: link.id, seq: String(link.seq), problem: 'wrong_link_number', message: `Link ${link.seq} is past the chain head the header names (${headSeq}).` });
      }
    }
  }

  /** A whole-chain file (scope `chain`): every link from 1 to the head, oldest first, no filters. */
  private checkWholeChain(runs: ExportReport['runs'], startsAtGenesis: boolean, reachesHead: boolean) {
    const headSeq = this.head?.seq ?? '0';
    const whole = headSeq === '0' ? runs.length === 0 : runs.length === 1 && startsAtGenesis && reachesHead;
    if (!whole) {
      const held = runs.map((run) => (run.fromSeq === run.toSeq ? run.fromSeq : `${run.fromSeq}–${run.toSeq}`)).join(', ') || 'none';
      this.problems.push({ line: this.headerLine, id: null, seq: null, problem: 'missing_link', message: `A whole-chain file must hold every link from 1 to the head (${headSeq}); this one holds ${held}.` });
    }
    if (this.filters && Object.keys(this.filters).length > 0) {
      this.problems.push({ line: this.headerLine, id: null, seq: null, problem: 'unreadable', message: 'A whole-chain file has no filters, but this header names some.' });
    }
    const inFileOrder = [...this.links].sort((a, b) => a.line - b.line);
    const misplaced = inFileOrder.find((link, index) => index > 0 && link.seq < inFileOrder[index - 1].seq);
    if (misplaced) {
      this.problems.push({ line: misplaced.line, id: misplaced.id, seq: String(misplaced.seq), problem: 'out_of_order', message: `Link ${misplaced.seq} comes after a later link: a whole-chain file is oldest first.` });
    }
  }
}

/**
 * What a report means, in sentences for people (printed by `npm run audit:verify -- --file`).
 * @returns lines of text, the verdict first
 */
export function describeExportReport(report: ExportReport): string[] {
  const out: string[] = [];
  if (report.ok) out.push(`Export holds: ${report.entries} entries, every content hash and link hash recomputed.`);
  else out.push(`Export BROKEN: ${report.problems.length} problem(s) in ${report.entries} entries.`);
  for (const problem of report.problems) {
    out.push(`  line ${problem.line}${problem.id ? ` (entry ${problem.id}${problem.seq ? `, link ${problem.seq}` : ''})` : ''}: ${problem.problem}. ${problem.message}`);
  }
  const runs = report.runs.map((run) => (run.fromSeq === run.toSeq ? run.fromSeq : `${run.fromSeq}–${run.toSeq}`));
  if (runs.length > 0) out.push(`Link runs (each link follows the one before): ${runs.length > 12 ? `${runs.slice(0, 12).join(', ')} … (${runs.length})` : runs.join(', ')}.`);
  if (report.scope || report.filters) {
    const filters = Object.entries(report.filters ?? {}).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
    out.push(`Header: ${report.scope ? `${report.scope} export` : 'format 1 export'}, ${filters.length > 0 ? `filters ${filters.join(', ')}` : 'no filters'} (as the exporter wrote them: not covered by a hash).`);
  }
  if (report.complete) out.push(`The file ends with its end line (${report.entries} entries): nothing was cut off its end.`);
  else if (report.ok) out.push('The file has no end line (an export of format 1): whether something was cut off its end cannot be told.');
  if (report.runs.length === 1 && report.startsAtGenesis && report.reachesHead && report.complete) {
    out.push('One unbroken run from the genesis hash to the chain head at export time: the file is the whole chain.');
  } else if (report.runs.length > 0) {
    out.push(
      'Gaps between runs are links the file does not hold: entries outside the filter, entries of the other kind (a decisions export holds no admin actions and the reverse; the whole-chain export, GET /api/audit/chain, holds both), or removed ones. Such a file proves each entry and each run, not that nothing matching is missing.',
    );
  }
  if (report.head) out.push(`Chain head at export: link ${report.head.seq} ${report.head.hash}${report.reachesHead ? ' (in the file)' : ''}.`);
  if (report.unchained > 0) out.push(`${report.unchained} entries are older than the chain and not covered by it.`);
  if (report.notCovered) {
    const { columns, subAgentRows } = report.notCovered;
    out.push(
      `Not covered by any hash, so not checked (what the exporter wrote): the columns ${columns.join(', ')}${
        subAgentRows > 0
          ? `; and in ${subAgentRows} ${subAgentRows === 1 ? "row of a sub-agent's call" : "rows of sub-agent calls"}, runId (the top-level run) and the delegation path before the last ~ of toolCallId (chainEntry holds the sub-agent run's id and the call's own id, which are checked)`
          : ''
      }.`,
    );
  }
  return out;
}
