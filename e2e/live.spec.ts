import { ACCOUNTS, contextAs, expect, sessionCookie, test } from './support';
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

test.describe('another person’s decision in an open chat', () => {
  test('is followed at once: the chat asks for the thread as soon as its feed says so, and the card changes without a page refresh', async ({ chat, page, db, baseURL }) => {
    // The page's clock: when the feed opens and its events arrive, and each fetch the chat makes
    // (a page refresh is a fetch with the `RSC` header).
    await page.addInitScript(() => {
      const log: { what: string; at: number; rsc?: boolean }[] = [];
      (window as unknown as { liveLog: typeof log }).liveLog = log;
      const Native = window.EventSource;
      window.EventSource = class extends Native {
        constructor(url: string | URL, init?: EventSourceInit) {
          super(url, init);
          this.addEventListener('open', () => log.push({ what: 'open', at: performance.now() }));
          this.addEventListener('message', () => log.push({ what: 'event', at: performance.now() }));
        }
      };
      const nativeFetch = window.fetch.bind(window);
      window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
        const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
        log.push({ what: new URL(url, location.href).pathname, at: performance.now(), rsc: headers.has('rsc') });
        return nativeFetch(input, init);
      };
    });
    const threadId = await chat.open();
    await chat.send(`/tool issue-refund {"orderId":"ord-live-${threadId.slice(-8)}","amount":150}`);
    const card = chat.approvalCard('issue-refund');
    await expect(card).toHaveAttribute('data-state', 'pending');
    type Entry = { what: string; at: number; rsc?: boolean };
    const log = () => page.evaluate(() => (window as unknown as { liveLog: Entry[] }).liveLog);
    await expect.poll(async () => (await log()).some((entry) => entry.what === 'open')).toBe(true);
    const start = await page.evaluate(() => {
      const w = window as unknown as { cardAt?: number };
      new MutationObserver(() => {
        const state = document.querySelector('[data-testid="approval-card"][data-tool-name="issue-refund"]')?.getAttribute('data-state');
        if (state && state !== 'pending') w.cardAt ??= performance.now();
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
      return performance.now();
    });

    // Rita (a reviewer, not the requester) declines it.
    const [pending] = await db.pendingIn(threadId, 'issue-refund');
    const decided = await fetch(`${baseURL}/api/runs/${pending.run_id}/tool-calls/${encodeURIComponent(pending.tool_call_id)}/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: baseURL!, cookie: await sessionCookie(ACCOUNTS.rita, baseURL) },
      body: JSON.stringify({ approved: false, reason: 'Not for this order.' }),
    });
    expect(decided.status).toBe(200);
    await decided.text();
    await expect(card).toHaveAttribute('data-state', 'declined');

    const cardAt = await page.evaluate(() => (window as unknown as { cardAt: number }).cardAt);
    const after = (await log()).filter((entry) => entry.at >= start && entry.at <= cardAt);
    const event = after.find((entry) => entry.what === 'event');
    expect(event, 'a feed event before the card changed').toBeDefined();
    const attach = after.find((entry) => entry.what === `/api/chat/${threadId}/stream` && entry.at >= event!.at);
    expect(attach, 'the chat attached to the thread’s stream').toBeDefined();
    // How soon is the bench's figure ('decision by another → event in the requester's open chat'):
    // a millisecond bound here failed on a loaded two-core run when an earlier catch-up was still in
    // flight. The server's side (first notice sent at once) is test/integration/live-feed.test.ts.
    // The card changed from the thread's own copy (its stream, or GET /api/chat/{id}), not after a
    // refresh of the whole page: a refresh (for the thread list) comes only once that copy is in.
    const copy = after.find((entry) => entry.what === `/api/chat/${threadId}` && entry.at >= attach!.at);
    // A refresh is an RSC request for this page; the thread list's links prefetch other chats' pages
    // (RSC requests too) whenever the list re-renders, and those are no refresh.
    const refreshes = after.filter((entry) => entry.rsc && entry.what === `/chat/${threadId}`);
    expect(refreshes.filter((entry) => !(copy && entry.at >= copy.at)), JSON.stringify(after)).toEqual([]);
  });
});
