import type { APIRequestContext, Browser } from '@playwright/test';
import { ACCOUNTS, contextAs, expect, test, type Db } from './support';
import { checkAccessible, DESKTOP, MOBILE, reviewerInbox, screenshotBoth } from './ui';

// The reviewer's desk as a new reviewer found it in a real browser (issue 30, item 9): a quorum
// voter's read-only view, decision actions within reach, search and counts that follow the server's
// filters, decided calls that open read-only, and toasts that say what the tool did.

// Several browsers and page loads each; on a busy 2-core machine more than the default minute.
test.describe.configure({ timeout: 240_000 });

/** A fresh end user with a unique name, signed in in a browser context of their own. */
async function requester(browser: Browser, db: Db, name: string) {
  const account = await db.createAccount({ name });
  const context = await contextAs(browser, account.email);
  return { ...account, name, context };
}

/** `who` asks the ops agent for `messages` in a thread of its own: the thread and its waiting calls, oldest first. */
async function ask(request: APIRequestContext, resourceId: string, db: Db, messages: string) {
  const threadId = `desk-${crypto.randomUUID()}`;
  const started = await request.post('/api/agents/ops-agent/generate', { data: { messages, threadId, resourceId } });
  expect(started.status()).toBe(200);
  return { threadId, calls: await db.pendingIn(threadId) };
}

const email = (subject: string, body = 'Numbers attached.') => `/tool send-email ${JSON.stringify({ to: 'ops@example.com', subject, body })}`;

test.describe('inbox: the reviewer’s desk', () => {
  test('a quorum voter sees "1 of 2 approvals — waiting for another reviewer", read-only, after a reload too; a and d do nothing', async ({ browser, request, db }) => {
    await db.query(`UPDATE orders SET refunded = 0, status = 'paid' WHERE id = 'ord-2001'`);
    const { calls } = await ask(request, 'user-ada', db, 'refund order ord-2001 for 1100');
    const call = calls[0];
    const { context: rita, page, inbox } = await reviewerInbox(browser, ACCOUNTS.rita, call.root_tool_call_id);
    await page.getByTestId('inbox-approve').click();
    await expect(page.getByText(/Your approval counted: 1 of 2/)).toBeVisible();

    for (const step of ['after the vote', 'after a reload']) {
      if (step === 'after a reload') {
        await page.reload();
        await inbox.select(call.root_tool_call_id);
      }
      const waiting = page.getByTestId('quorum-waiting');
      await expect(waiting, step).toContainText('1 of 2 approvals — waiting for another reviewer');
      await expect(waiting).toContainText('You approved this');
      await expect(page.getByTestId('inbox-approve')).toHaveCount(0);
      await expect(page.getByTestId('inbox-decline')).toHaveCount(0);
      await expect(page.getByTestId('inbox-edit')).toHaveCount(0);
    }
    await page.keyboard.press('a');
    await page.keyboard.press('d');
    await expect(page.getByTestId('inbox-decline-reason')).toHaveCount(0);
    await expect(page.getByTestId('inbox-error')).toHaveCount(0);
    const decisions = await db.query('SELECT kind FROM decisions WHERE pending_call_id = $1', [call.id]);
    expect(decisions.map((row) => row.kind)).toEqual(['vote']);
    await checkAccessible(page, 'inbox-quorum-voted');
    await rita.close();
  });

  test('the decision actions stay in view: a sticky action bar at 1280×800 and at 390 px', async ({ browser, request, db }) => {
    const tag = crypto.randomUUID().slice(0, 8);
    // A long body: the arguments table and the context push the end of the detail far below the fold.
    const { calls } = await ask(request, 'user-ada', db, email(`Long ${tag}`, `${'A long paragraph of numbers. '.repeat(60)}`));
    const { context: rita, page, inbox } = await reviewerInbox(browser, ACCOUNTS.rita, calls[0].root_tool_call_id);
    await expect(page.getByTestId('inbox-actions')).toBeVisible();
    await expect(page.getByTestId('inbox-approve')).toBeInViewport();
    await expect(page.getByTestId('inbox-decline')).toBeInViewport();
    await page.getByTestId('inbox-decline').click();
    await expect(page.getByTestId('inbox-decline-confirm')).toBeInViewport();
    await page.getByTestId('inbox-decline-reason').press('Escape');
    await page.setViewportSize(MOBILE);
    await inbox.row(calls[0].root_tool_call_id).scrollIntoViewIfNeeded();
    await expect(page.getByTestId('inbox-approve')).toBeInViewport();
    await rita.close();
  });

  test('the search box searches every waiting call on the server (requester, tool, arguments), kept in the URL', async ({ browser, db }) => {
    const tag = crypto.randomUUID().slice(0, 8);
    const grace = await requester(browser, db, `Grace ${tag}`);
    const linus = await requester(browser, db, `Linus ${tag}`);
    const early = await ask(grace.context.request, grace.id, db, email(`Early ${tag}`));
    // 51 newer calls: Grace's is not on the first page (50 rows).
    await ask(linus.context.request, linus.id, db, Array.from({ length: 51 }, (_, n) => email(`Bulk ${n} ${tag}`)).join('\n'));

    const { context: rita, page } = await reviewerInbox(browser, ACCOUNTS.rita);
    await expect(page.getByTestId('inbox-row').first()).toBeVisible();
    await expect(page.locator(`[data-testid="inbox-row"][data-tool-call-id="${early.calls[0].tool_call_id}"]`)).toHaveCount(0);
    for (const words of [`Grace ${tag}`, `early ${tag}`, `send-email ${tag} early`]) {
      await page.locator('#inbox-search').fill(words);
      await page.locator('#inbox-search').press('Enter');
      await expect(page).toHaveURL(new RegExp(`[?&]q=${encodeURIComponent(words).replace(/%20/g, '(\\+|%20)')}`));
      await expect(page.getByTestId('inbox-row'), words).toHaveCount(1);
      await expect(page.getByTestId('inbox-row')).toHaveAttribute('data-tool-call-id', early.calls[0].tool_call_id);
    }
    // Kept on reload and in the counts; the API answers the same search.
    await page.reload();
    await expect(page.locator('#inbox-search')).toHaveValue(`send-email ${tag} early`);
    await expect(page.getByTestId('inbox-row')).toHaveCount(1);
    await expect(page.getByTestId('inbox-count')).toHaveText('1');
    const api = await rita.request.get(`/api/inbox?q=${encodeURIComponent(`Grace ${tag}`)}`);
    expect((await api.json()).items.map((item: { toolCallId: string }) => item.toolCallId)).toEqual([early.calls[0].tool_call_id]);
    const tooLong = await rita.request.get(`/api/inbox?q=${'x'.repeat(201)}`);
    expect(tooLong.status()).toBe(400);
    await Promise.all([rita.close(), grace.context.close(), linus.context.close()]);
  });

  test('the header and the queue tabs count the same calls, and the counts follow the filters', async ({ browser, db }) => {
    const tag = crypto.randomUUID().slice(0, 8);
    const grace = await requester(browser, db, `Grace ${tag}`);
    for (const n of [1, 2, 3]) await ask(grace.context.request, grace.id, db, email(`Count ${n} ${tag}`));
    const { context: rita, page } = await reviewerInbox(browser, ACCOUNTS.rita);
    await page.goto(`/inbox?requester=${encodeURIComponent(`Grace ${tag}`)}`);
    await expect(page.getByTestId('inbox-row')).toHaveCount(3);
    await expect(page.getByTestId('inbox-count')).toHaveText('3');
    await expect(page.getByTestId('queue-all-count')).toHaveText('3');
    await expect(page.getByTestId('queue-mine-count')).toHaveText('3');
    await expect(page.getByTestId('queue-requested-count')).toHaveText('0');
    await expect(page.getByRole('button', { name: /^Approvals/ })).toContainText('3');
    await expect(page.getByRole('button', { name: /^Questions/ })).toContainText('0');
    // Another queue keeps the filter, and the header says that queue's count.
    await page.getByTestId('queue-requested').click();
    await expect(page).toHaveURL(/queue=requested.*requester=|requester=.*queue=requested/);
    await expect(page.getByTestId('inbox-count')).toHaveText('0');
    await Promise.all([rita.close(), grace.context.close()]);
  });

  test('the toolbar fits in two rows at 1280 px', async ({ browser }) => {
    const { context: rita, page } = await reviewerInbox(browser, ACCOUNTS.rita);
    const toolbar = page.getByTestId('inbox-toolbar');
    await expect(toolbar).toBeVisible();
    // Rows of controls: controls whose vertical centres lie within 12 px of each other share a row.
    const rows = await toolbar.evaluate((element) => {
      const centres = [...element.querySelectorAll<HTMLElement>('a, button, input, select')]
        .filter((child) => child.offsetParent !== null && !child.closest('[hidden]'))
        .map((child) => {
          const box = child.getBoundingClientRect();
          return box.top + box.height / 2;
        })
        .sort((a, b) => a - b);
      let count = 0;
      let last = -Infinity;
      for (const centre of centres) {
        if (centre - last > 12) count++;
        last = centre;
      }
      return count;
    });
    expect(rows).toBeLessThanOrEqual(2);
    expect((await toolbar.boundingBox())!.height).toBeLessThan(100);
    await rita.close();
  });

  test('a decided call opens read-only from Done with its decision and its result; "No longer waiting" says who decided', async ({ browser, request, db }) => {
    const tag = crypto.randomUUID().slice(0, 8);
    const { calls } = await ask(request, 'user-ada', db, `${email(`Done ${tag} 0`)}\n${email(`Done ${tag} 1`)}`);
    // The two calls of one step share created_at: tell them apart by their subject, not by position.
    const subjects = await db.query<{ id: string; subject: string }>(`SELECT id, args->>'subject' AS subject FROM pending_tool_calls WHERE id = ANY($1)`, [calls.map((call) => call.id)]);
    const bySubject = (subject: string) => calls.find((call) => subjects.find((row) => row.id === call.id)?.subject === subject)!;
    const [first, second] = [bySubject(`Done ${tag} 0`), bySubject(`Done ${tag} 1`)];
    expect(first && second, 'both calls wait').toBeTruthy();
    const { context: rita, page, inbox } = await reviewerInbox(browser, ACCOUNTS.rita, second.root_tool_call_id);

    // Sam declines the call Rita has open: the notice names him and his reason.
    const sam = await contextAs(browser, ACCOUNTS.sam);
    const declined = await sam.request.post(`/api/runs/${second.root_run_id}/tool-calls/${encodeURIComponent(second.root_tool_call_id)}/decision`, {
      data: { approved: false, reason: `not now ${tag}` },
    });
    expect(declined.status()).toBe(200);
    await declined.body();
    await expect(inbox.row(second.root_tool_call_id).getByTestId('inbox-row-stale')).toHaveText('No longer waiting');
    await expect(page.getByTestId('inbox-left-outcome')).toContainText(/Declined by Sam\b/);
    await expect(page.getByTestId('inbox-left-outcome')).toContainText(`not now ${tag}`);

    const approved = await sam.request.post(`/api/runs/${first.root_run_id}/tool-calls/${encodeURIComponent(first.root_tool_call_id)}/decision`, { data: { approved: true } });
    expect(approved.status()).toBe(200);
    await approved.body();

    await page.goto('/inbox?view=done');
    const row = page.locator(`[data-testid="done-row"][data-tool-call-id="${first.root_tool_call_id}"]`);
    await row.getByTestId('done-open').click();
    const detail = page.getByTestId('done-detail');
    await expect(detail).toBeVisible();
    await expect(detail).toContainText(`Done ${tag} 0`);
    await expect(detail.getByTestId('done-detail-decision')).toContainText(/Approved by Sam\b/);
    await expect(detail.getByTestId('done-result')).toContainText(`Email “Done ${tag} 0” queued for ops@example.com`);
    await expect(page.getByTestId('inbox-approve')).toHaveCount(0);
    await checkAccessible(page, 'inbox-done-detail');
    await page.setViewportSize(MOBILE);
    await screenshotBoth(page, 'inbox-done-detail');
    await Promise.all([rita.close(), sam.close()]);
  });

  test('an approval the tool then refused says so instead of a plain "Approved"', async ({ browser, request, db }) => {
    const tag = crypto.randomUUID().slice(0, 8);
    const order = `ord-desk-${tag}`;
    await db.query(`INSERT INTO orders (id, customer_id, amount, refunded, status) SELECT $1, customer_id, 300, 300, 'refunded' FROM orders LIMIT 1`, [order]);
    const { calls } = await ask(request, 'user-ada', db, `refund order ${order} for 150`);
    const { context: rita, page } = await reviewerInbox(browser, ACCOUNTS.rita, calls[0].root_tool_call_id);
    await page.getByTestId('inbox-approve').click();
    const toast = page.locator('[data-sonner-toast]').filter({ hasText: order });
    await expect(toast).toContainText(`Approved — the tool refused: Refused: only $0 is left to refund on ${order}.`);
    await expect(toast).not.toHaveAttribute('data-type', 'success');
    await rita.close();
  });
});

test.describe('inbox screenshots', () => {
  test('desktop and phone, light and dark', async ({ browser, request, db }) => {
    const tag = crypto.randomUUID().slice(0, 8);
    const { calls } = await ask(request, 'user-ada', db, email(`Shot ${tag}`));
    const { context: rita, page } = await reviewerInbox(browser, ACCOUNTS.rita, calls[0].root_tool_call_id);
    await page.setViewportSize(DESKTOP);
    await screenshotBoth(page, 'desk-inbox');
    await page.setViewportSize(MOBILE);
    await screenshotBoth(page, 'desk-inbox');
    await rita.close();
  });
});
