import type { DataPolicyCall, DataPolicySource, DataPolicyVerdict } from '@/lib/agent/data-policy';
import { recordAuditEvent } from '@/lib/audit/events';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { Classify } from './classify';
import { evaluatePolicies, type HistoryTotals } from './evaluate';
import { policiesSchema, ruleMatches, type PolicyRule } from './rules';

/** The NOTIFY channel a policy change is announced on (every server drops its cached rules). */
export const POLICY_CHANNEL = 'countersign_policies';

/** The rule list in force (version 0 and no rules before the first change). */
export interface PolicySet {
  version: number;
  rules: PolicyRule[];
  changedBy: string | null;
  changedAt: Date | null;
}

/** One stored change: who, when, the rules before and after. */
export interface PolicyChange {
  version: number;
  rules: PolicyRule[];
  previous: PolicyRule[] | null;
  changedBy: string;
  note: string | null;
  createdAt: Date;
}

/** Stored rules are validated again when read; a list that no longer parses is kept as-is per rule. */
function parseRules(value: unknown): PolicyRule[] {
  const parsed = policiesSchema.safeParse({ rules: value });
  if (parsed.success) return parsed.data.rules;
  // A stored rule the schema no longer accepts must still fail closed rather than vanish:
  // keep it with a condition that cannot be evaluated, so matching calls require approval.
  return (Array.isArray(value) ? value : []).map((raw, index) => {
    const rule = raw as Partial<PolicyRule>;
    return {
      id: String(rule.id ?? `rule-${index + 1}`),
      name: String(rule.name ?? `rule ${index + 1}`),
      agent: typeof rule.agent === 'string' ? rule.agent : '*',
      tool: typeof rule.tool === 'string' ? rule.tool : '*',
      condition: '__stored_rule_is_invalid__',
      outcome: { type: 'require', approvers: 'reviewer' },
    } satisfies PolicyRule;
  });
}

/** The rule list in force, read in one statement. */
export async function readPolicies(db: PrismaClient): Promise<PolicySet> {
  const row = await db.policyVersion.findFirst({ orderBy: { version: 'desc' } });
  if (!row) return { version: 0, rules: [], changedBy: null, changedAt: null };
  return { version: row.version, rules: parseRules(row.rules), changedBy: row.changedBy, changedAt: row.createdAt };
}

/** The latest changes, newest first. */
export async function listPolicyChanges(db: PrismaClient, limit = 20): Promise<PolicyChange[]> {
  const rows = await db.policyVersion.findMany({ orderBy: { version: 'desc' }, take: limit });
  return rows.map((row) => ({
    version: row.version,
    rules: parseRules(row.rules),
    previous: row.previous === null ? null : parseRules(row.previous),
    changedBy: row.changedBy,
    note: row.note,
    createdAt: row.createdAt,
  }));
}

/** A rule as a change summary names it. */
export type RuleRef = { id: string; name: string };

/**
 * What a change did to the rules, by rule id: rules added, removed, and kept but changed (any
 * field), and whether the kept rules changed order (the first match decides, so order matters).
 */
export function summariseRuleChange(before: PolicyRule[], after: PolicyRule[]): { added: RuleRef[]; removed: RuleRef[]; changed: RuleRef[]; reordered: boolean } {
  const old = new Map(before.map((rule) => [rule.id, rule]));
  const now = new Map(after.map((rule) => [rule.id, rule]));
  const ref = (rule: PolicyRule): RuleRef => ({ id: rule.id, name: rule.name });
  return {
    added: after.filter((rule) => !old.has(rule.id)).map(ref),
    removed: before.filter((rule) => !now.has(rule.id)).map(ref),
    changed: after.filter((rule) => old.has(rule.id) && JSON.stringify(old.get(rule.id)) !== JSON.stringify(rule)).map(ref),
    reordered:
      after.filter((rule) => old.has(rule.id)).map((rule) => rule.id).join('\n') !==
      before.filter((rule) => now.has(rule.id)).map((rule) => rule.id).join('\n'),
  };
}

/** What a save did: the version in force after it, and whether it made that version (`false`: the rules were already in force). */
export interface PolicyWrite {
  version: number;
  changed: boolean;
}

/**
 * Stores `rules` as the next version (the previous rules kept beside them, the change announced on
 * POLICY_CHANNEL) and records it as a `policy.changed` audit event — the version ids, a summary of
 * the rules added, removed and changed, and both rule lists — in one transaction: the version and
 * its audit entry commit together or not at all. With `baseVersion`, the write happens only while
 * that version is still in force.
 *
 * A save of exactly the rules in force (compared as JSON values; no version yet counts as no rules)
 * changes nothing: no version, no audit event, no announcement, its note dropped — the answer is the
 * version in force with `changed: false` (a second click on Save). The `baseVersion` rule comes
 * first: a save based on another version than the one in force is refused even when its rules are
 * those in force. Two identical saves without `baseVersion` at once make one version; the other
 * finds it in force and answers it unchanged.
 *
 * @param input.changedBy the admin's user id; `changedByRole` their role (default `admin`)
 * @returns the version in force and whether this save made it, or null when `baseVersion` is no
 *   longer the latest (someone else saved) or newer than any saved
 */
export async function writePolicies(
  db: PrismaClient,
  input: { rules: PolicyRule[]; changedBy: string; changedByRole?: string; note?: string; baseVersion?: number },
): Promise<PolicyWrite | null> {
  const rules = JSON.stringify(input.rules);
  const base = input.baseVersion ?? null;
  try {
    return await db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<{ version: number; previous: unknown; previousVersion: number; unchanged: boolean }[]>`
        WITH cur AS (
          SELECT COALESCE((SELECT version FROM policy_versions ORDER BY version DESC LIMIT 1), 0) AS version,
                 (SELECT rules FROM policy_versions ORDER BY version DESC LIMIT 1) AS rules
        ),
        same AS (
          SELECT cur.version FROM cur
          WHERE COALESCE(cur.rules, '[]'::jsonb) = ${rules}::jsonb AND (${base}::int IS NULL OR cur.version = ${base}::int)
        ),
        ins AS (
          INSERT INTO policy_versions (version, rules, previous, changed_by, note)
          SELECT cur.version + 1, ${rules}::jsonb, cur.rules, ${input.changedBy}, ${input.note ?? null}
          FROM cur WHERE NOT EXISTS (SELECT 1 FROM same) AND (${base}::int IS NULL OR cur.version = ${base}::int)
          RETURNING version, previous
        )
        SELECT ins.version, ins.previous, ins.version - 1 AS "previousVersion", false AS unchanged, pg_notify(${POLICY_CHANNEL}, ins.version::text) IS NULL AS notified FROM ins
        UNION ALL
        SELECT same.version, NULL::jsonb, same.version, true, NULL::boolean FROM same`;
      const row = rows[0];
      if (!row) return null;
      if (row.unchanged) return { version: row.version, changed: false };
      const before = row.previous === null ? [] : parseRules(row.previous);
      await recordAuditEvent(
        {
          action: 'policy.changed',
          actor: { id: input.changedBy, role: input.changedByRole ?? 'admin' },
          target: { type: 'policy_version', id: String(row.version) },
          details: {
            fromVersion: row.previousVersion,
            toVersion: row.version,
            note: input.note ?? null,
            ...summariseRuleChange(before, input.rules),
            before,
            after: input.rules,
          },
        },
        tx,
      );
      return { version: row.version, changed: true };
    });
  } catch (error) {
    // Two writers computed the same next version: the later one lost the race. Without a
    // baseVersion, when the winner saved these very rules (two clicks at once), this save changes
    // nothing: it answers that version. With one, the version it was based on is gone: refused.
    if (error instanceof Error && /policy_versions_pkey|unique/i.test(error.message)) {
      if (base !== null) return null;
      const [latest] = await db.$queryRaw<{ version: number; same: boolean }[]>`
        SELECT version, rules = ${rules}::jsonb AS same FROM policy_versions ORDER BY version DESC LIMIT 1`;
      return latest?.same ? { version: latest.version, changed: false } : null;
    }
    throw error;
  }
}

export interface PrismaPolicySourceOptions {
  /** How long the cached rule list is used without asking the database again, in ms (default 1,000). */
  maxAgeMs?: number;
  /** Asks the decision model about a call (rule outcome `classify`). */
  classify?: Classify;
}

/**
 * Data policies from PostgreSQL for the runtime. The rule list is cached (dropped on `invalidate`,
 * which the app calls on every POLICY_CHANNEL notification, and after `maxAgeMs`), so a call that
 * no rule watches costs no statement. A call of a tool that a history rule watches costs one
 * statement (`countersign_policy_history`): it takes the tool's advisory lock, reads the totals and
 * records the call, so concurrent calls cannot all slip under a limit.
 */
export class PrismaPolicySource implements DataPolicySource {
  private cached: { set: PolicySet; at: number } | null = null;
  private loading: Promise<PolicySet> | null = null;

  constructor(
    private readonly db: PrismaClient,
    private readonly options: PrismaPolicySourceOptions = {},
  ) {}

  /** Drops the cached rule list; the next call reads the one in force. */
  invalidate(): void {
    this.cached = null;
  }

  /** The rule list in force (cached). */
  async current(): Promise<PolicySet> {
    const maxAge = this.options.maxAgeMs ?? 1_000;
    if (this.cached && Date.now() - this.cached.at < maxAge) return this.cached.set;
    this.loading ??= readPolicies(this.db)
      .then((set) => {
        this.cached = { set, at: Date.now() };
        return set;
      })
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }

  async evaluate(call: DataPolicyCall): Promise<DataPolicyVerdict> {
    const { version, rules } = await this.current();
    const matching = rules.filter((rule) => ruleMatches(rule, call.agentId, call.toolName));
    if (matching.length === 0) return { outcome: 'none', version };
    const watched = matching.filter((rule): rule is PolicyRule & { history: NonNullable<PolicyRule['history']> } => rule.history !== undefined);
    const totals = new Map<string, HistoryTotals>();
    let historyError: unknown = null;
    if (watched.length > 0) {
      try {
        const specs = watched.map((rule) => rule.history);
        const [row] = call.edit
          ? await historyOfEdit(this.db, call, specs)
          : await this.db.$queryRaw<{ totals: { sum: string | number; count: number }[] }[]>`
          SELECT countersign_policy_history(${call.toolName}, ${call.agentId}, ${call.runId}, ${call.toolCallId}, ${call.threadId},
            ${call.requestedBy}, ${JSON.stringify(call.args ?? null)}::jsonb, ${JSON.stringify(specs)}::jsonb) AS totals`;
        watched.forEach((rule, index) => {
          const t = row.totals[index];
          totals.set(rule.id, { sum: Number(t.sum), count: Number(t.count) });
        });
      } catch (error) {
        historyError = error;
      }
    }
    return evaluatePolicies({
      rules: matching,
      version,
      call,
      classify: this.options.classify,
      history: async (rule) => {
        if (historyError) throw historyError;
        const found = totals.get(rule.id);
        if (!found) throw new Error(`no history totals for rule ${rule.id}`);
        return found;
      },
    });
  }
}


/**
 * The history totals of an edited waiting call (DataPolicyCall.edit), as `countersign_policy_history`
 * computes them (same window, grouping and declined calls left out) but read-only, without the
 * call's own record and without the advisory lock: an edit that is refused must leave the ledger as
 * it was; the claim of the approval that runs it replaces its record's args
 * (lib/store/decision-statements.ts).
 * @returns one row whose `totals` has `{ sum, count }` per spec, in order
 */
function historyOfEdit(db: PrismaClient, call: DataPolicyCall, specs: NonNullable<PolicyRule['history']>[]) {
  return db.$queryRaw<{ totals: { sum: string | number; count: number }[] }[]>`
    SELECT coalesce(jsonb_agg(jsonb_build_object('sum', t.total, 'count', t.n) ORDER BY s.ord), '[]'::jsonb) AS totals
    FROM jsonb_array_elements(${JSON.stringify(specs)}::jsonb) WITH ORDINALITY AS s(spec, ord)
    CROSS JOIN LATERAL (
      SELECT coalesce(sum(CASE WHEN jsonb_typeof(l.args #> string_to_array(s.spec->>'sum', '.')) = 'number'
               THEN (l.args #>> string_to_array(s.spec->>'sum', '.'))::numeric ELSE 0 END), 0) AS total, count(*)::int AS n
      FROM policy_call_ledger l
      WHERE l.tool_name = ${call.toolName}
        AND l.created_at > now() - make_interval(secs => (s.spec->>'windowHours')::float8 * 3600)
        AND CASE s.spec->>'by'
              WHEN 'all' THEN TRUE
              WHEN 'requester' THEN l.requested_by = ${call.requestedBy}
              WHEN 'thread' THEN l.thread_id = ${call.threadId}
              ELSE (l.args #> string_to_array(substr(s.spec->>'by', 6), '.')) IS NOT DISTINCT FROM (${JSON.stringify(call.args ?? null)}::jsonb #> string_to_array(substr(s.spec->>'by', 6), '.'))
            END
        AND NOT (l.run_id = ${call.runId} AND l.tool_call_id = ${call.toolCallId})
        AND NOT EXISTS (
          SELECT 1 FROM pending_tool_calls p
           WHERE p.run_id = l.run_id AND p.tool_call_id = l.tool_call_id AND p.status = 'declined')
    ) t`;
}
