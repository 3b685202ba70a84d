// The inbox's filter values as they travel in the URL; plain functions, usable on the server and in the browser.

/** The filters as they are in the URL (empty strings for unset ones). */
export interface InboxFilterValues {
  toolName: string;
  agentId: string;
  requester: string;
  /** Who decided (Done tab only). */
  person: string;
  /** approval | decline | resume (Done tab only). */
  kind: string;
  /** YYYY-MM-DD */
  from: string;
  to: string;
}

export const INBOX_FILTER_KEYS = ['toolName', 'agentId', 'requester', 'person', 'kind', 'from', 'to'] as const;

/** Reads the filter values out of page search params (anything else is ignored). */
export function filterValues(params: Record<string, string | string[] | undefined>): InboxFilterValues {
  const one = (key: string) => {
    const value = params[key];
    return (Array.isArray(value) ? value[0] : value)?.slice(0, 200) ?? '';
  };
  return Object.fromEntries(INBOX_FILTER_KEYS.map((key) => [key, one(key)])) as unknown as InboxFilterValues;
}

