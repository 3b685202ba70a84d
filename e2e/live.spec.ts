import { ACCOUNTS, contextAs, expect, test } from './support';
import { startServer, type ExtraServer } from './servers';
import { extraPort } from './config';

test.describe('supervisor delegation in the browser', () => {
  test('the inbox shows the delegation chain; approving there lets the supervisor answer in the user’s chat', async ({ browser, chat, page }) => {
    await page.goto('/?agent=supervisor');
    await expect(page.getByTestId('chat-agent')).toContainText('Supervisor');
    const threadId = new URL(page.url()).pathname.split('/').at(-1)!;
    await chat.send('find user 12345');
    const card = chat.approvalCard('find-user');
    await expect(card).toHaveAttribute('data-state', 'pending');
    await expect(card).toContainText('supervisor › data-agent › find-user');

    const reviewer = await contextAs(browser, ACCOUNTS.rita);
    const inbox = await reviewer.newPage();
    await inbox.goto('/inbox');
    const row = inbox.locator('[data-testid="inbox-row"][data-tool-name="find-user"]').last();
    await expect(row).toContainText('supervisor › data-agent › find-user');
    await row.click();
    await inbox.getByTestId('inbox-approve').click();
    await expect(row).toHaveCount(0);
    await reviewer.close();

    // The user's open chat updates by itself.
    await expect(chat.approvalCard('find-user')).toHaveAttribute('data-state', 'approved');
    await expect(chat.lastAssistant()).toContainText('Ada Lovelace');
    await page.goto(`/chat/${threadId}`);
    await expect(chat.lastAssistant()).toContainText('Ada Lovelace');
  });
});

test.describe('two servers, one database', () => {
  let other: ExtraServer;
  test.beforeAll(async () => {
    other = await startServer({ port: extraPort(5), env: { SCRIPTED_MODEL_DELAY_MS: '300' } });
  });
  test.afterAll(async () => {
    await other?.kill();
  });

  test('the chat is open on server A; a reviewer approves on server B; A shows the continuation live, without a reload', async ({ browser, chat, db, page }) => {
    await chat.open();
    await chat.send('delete record rec-36');
    await expect(chat.approvalCard('delete-record')).toHaveAttribute('data-state', 'pending');
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    const [pending] = (await db.pendingCalls({ toolName: 'delete-record', status: 'pending' })).slice(-1);

    const reviewer = await contextAs(browser, ACCOUNTS.rita);
    const inbox = await reviewer.newPage();
    await inbox.goto(`${other.url}/inbox`);
    const row = inbox.locator(`[data-testid="inbox-row"][data-tool-call-id="${pending.tool_call_id}"]`);
    await row.click();
    await inbox.getByTestId('inbox-approve').click();
    await expect(row).toHaveCount(0);
    await reviewer.close();

    await expect(chat.approvalCard('delete-record')).toHaveAttribute('data-state', 'approved');
    await expect(chat.lastAssistant()).toContainText('Record rec-36 was deleted');
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  });

  test('reloading during a continuation shows it finish, once', async ({ chat, page }) => {
    await page.goto(`${other.url}/chat/e2e-${crypto.randomUUID()}`);
    await chat.send('delete record rec-37');
    const card = chat.approvalCard('delete-record');
    await expect(card).toHaveAttribute('data-state', 'pending');
    await card.getByTestId('approve-button').click();
    // The answer streams word by word (300 ms each); reload in the middle of it.
    await expect(chat.lastAssistant()).toContainText('delete-record:');
    await page.reload();
    await expect(chat.lastAssistant()).toContainText('Record rec-37 was deleted.');
    await expect(page.getByText('delete-record: Record rec-37 was deleted.', { exact: true })).toHaveCount(1);
    await expect(page.getByTestId('approval-card')).toHaveCount(1);
    await expect(page.getByTestId('message-assistant')).toHaveCount(1);
  });
});

test.describe('a second tab of the same chat', () => {
  test('a decision made between the second tab’s render and its live feed’s connection shows there, without a reload', async ({ chat, context, page }) => {
    const threadId = await chat.open();
    await chat.send('delete record rec-38');
    await expect(chat.approvalCard('delete-record')).toHaveAttribute('data-state', 'pending');

    // The second tab renders the thread (the call waits), but its live feed is held back until the
    // decision is made in the first: the race of a tab opened just before the decision, made certain.
    const second = await context.newPage();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let feeds = 0;
    await second.route(/\/api\/chat\/[^/?]+\/events/, async (route) => {
      feeds += 1;
      await held;
      await route.continue();
    });
    await second.goto(`/chat/${threadId}`);
    const secondCard = second.locator('[data-testid="approval-card"][data-tool-name="delete-record"]').last();
    await expect(secondCard).toHaveAttribute('data-state', 'pending');
    await expect.poll(() => feeds).toBe(1);
    await second.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

    await chat.approvalCard('delete-record').getByTestId('approve-button').click();
    await expect(chat.approvalCard('delete-record')).toHaveAttribute('data-state', 'approved');
    await expect(chat.lastAssistant()).toContainText('Record rec-38 was deleted');
    release();

    // Nothing changes after the feed connects: it must catch up with what changed before.
    await expect(secondCard).toHaveAttribute('data-state', 'approved');
    await expect(second.getByTestId('message-assistant').last()).toContainText('Record rec-38 was deleted');
    expect(await second.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    await expect(page.getByTestId('approval-card')).toHaveCount(1);
  });
});
