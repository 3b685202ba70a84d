/**
 * Plain-language renderings of tool calls for cards and inbox rows. Pure functions, safe on the
 * server and in the browser.
 */

/** Display names of actor ids, built on the server from `displayName` and passed down. */
export type People = Record<string, string>;

type Args = Record<string, unknown>;

function asArgs(args: unknown): Args {
  return args && typeof args === 'object' && !Array.isArray(args) ? (args as Args) : {};
}

function str(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim()) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function money(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return str(value);
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(value);
}

/**
 * One line saying what the call will do, e.g. `delete-record {id: 'rec-42'}` → "Deletes record rec-42".
 * Known demo tools get a tailored sentence; any other tool gets "Runs <tool> with <args summary>".
 */
export function describeToolCall(toolName: string, rawArgs: unknown): string {
  const args = asArgs(rawArgs);
  switch (toolName) {
    case 'delete-record': {
      const id = str(args.id) ?? str(args.recordId);
      if (id) return `Deletes record ${id}`;
      break;
    }
    case 'issue-refund': {
      const order = str(args.orderId);
      const amount = money(args.amount);
      if (order && amount) return `Refunds ${amount} on order ${order}`;
      break;
    }
    case 'send-email': {
      const to = str(args.to);
      const subject = str(args.subject);
      if (to) return subject ? `Sends an email to ${to}: “${subject}”` : `Sends an email to ${to}`;
      break;
    }
    case 'lookup-customer': {
      const id = str(args.customerId) ?? str(args.id);
      if (id) return `Looks up customer ${id}`;
      break;
    }
    case 'find-user': {
      const id = str(args.userId) ?? str(args.id) ?? str(args.query);
      if (id) return `Looks up user ${id}`;
      break;
    }
    case 'get-weather': {
      const city = str(args.city);
      return city ? `Checks the weather in ${city}` : 'Checks the weather';
    }
  }
  const summary = summarizeArgs(rawArgs);
  return summary ? `Runs ${toolName} with ${summary}` : `Runs ${toolName}`;
}

/** Renders any JSON value compactly on one line (strings unquoted at the top level). */
export function formatValue(value: unknown): string {
  if (value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return JSON.stringify(value);
}

/** `key: value, key: value`, cut to about `max` characters. */
export function summarizeArgs(rawArgs: unknown, max = 80): string {
  const entries = Object.entries(asArgs(rawArgs));
  const text =
    entries.length > 0
      ? entries.map(([key, value]) => `${key}: ${formatValue(value)}`).join(', ')
      : rawArgs === undefined || rawArgs === null
        ? ''
        : formatValue(rawArgs);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** "you" for the viewer, else the person's display name (falls back to the id). */
export function personName(id: string | null | undefined, people: People, viewerId?: string): string {
  if (!id) return 'someone';
  if (viewerId && id === viewerId) return 'you';
  return people[id] ?? id;
}

/** The question a suspended tool asks, from its suspend payload. */
export function questionText(suspendPayload: unknown): string | undefined {
  if (typeof suspendPayload === 'string') return suspendPayload;
  const payload = asArgs(suspendPayload);
  for (const key of ['message', 'question', 'prompt', 'reason']) {
    const value = str(payload[key]);
    if (value) return value;
  }
  return undefined;
}

/** The first 8 hex digits of a fingerprint, as people compare them. */
export function shortFingerprint(fingerprint: string): string {
  return fingerprint.replace(/^sha256:/, '').slice(0, 8);
}

const POLICY: Record<string, string> = {
  tool: 'The tool always asks',
  request: 'The request asked for approval',
  'agent-default': 'The agent’s default',
  'policy-error': 'Policy failed, so approval is required',
};

/** Why a call needs approval, in words (the runtime stores a reason code). */
export function policyText(policy: string): string {
  return POLICY[policy] ?? policy;
}
