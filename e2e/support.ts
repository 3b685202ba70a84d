import { expect, test as base, type Page } from '@playwright/test';
import pg from 'pg';
import { seed } from '../lib/demo/seed';
import { E2E_DATABASE_URL } from './config';

/** Direct access to the test database, to assert on real rows. */
export class Db {
  constructor(private readonly client: pg.Client) {}

  async recordExists(id: string): Promise<boolean> {
    const { rowCount } = await this.client.query('SELECT 1 FROM records WHERE id = $1', [id]);
    return rowCount === 1;
  }

  /** Any query, for assertions. */
  async query<T = Record<string, any>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.client.query(sql, params)).rows as T[];
  }

  async pendingCalls(where: { toolName: string; status?: string }) {
    const { rows } = await this.client.query(
      'SELECT run_id, tool_call_id, status FROM pending_tool_calls WHERE tool_name = $1 AND ($2::text IS NULL OR status = $2) ORDER BY created_at',
      [where.toolName, where.status ?? null],
    );
    return rows as { run_id: string; tool_call_id: string; status: string }[];
  }
}

/** The end user's chat page. */
export class ChatPage {
  constructor(readonly page: Page) {}

  async open(threadId = `e2e-${crypto.randomUUID()}`) {
    await this.page.goto(`/chat/${threadId}`);
    return threadId;
  }

  async send(text: string) {
    await this.page.getByTestId('composer-input').fill(text);
    await this.page.getByTestId('composer-send').click();
  }

  approvalCard(toolName: string) {
    return this.page.locator(`[data-testid="approval-card"][data-tool-name="${toolName}"]`).last();
  }

  questionCard(toolName: string) {
    return this.page.locator(`[data-testid="question-card"][data-tool-name="${toolName}"]`).last();
  }

  lastAssistant() {
    return this.page.getByTestId('message-assistant').last();
  }
}

export const test = base.extend<{ db: Db; chat: ChatPage }>({
  db: async ({}, use) => {
    // Every test starts from the seeded demo rows (a deleted record comes back).
    await seed(E2E_DATABASE_URL);
    const client = new pg.Client({ connectionString: E2E_DATABASE_URL });
    await client.connect();
    await use(new Db(client));
    await client.end();
  },
  chat: async ({ page }, use) => {
    await use(new ChatPage(page));
  },
});

export { expect };
