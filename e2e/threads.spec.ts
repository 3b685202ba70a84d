import { BASE_URL } from './config';
import { ACCOUNTS, contextAs, expect, test } from './support';
import { checkAccessible, DESKTOP, MOBILE, screenshotBoth } from './ui';

const BASE = BASE_URL;

/** Starts a thread for Ada through the agents API (the same runtime the chat uses). */
async function startThread(request: import('@playwright/test').APIRequestContext, messages: string) {
  const threadId = `threads-${crypto.randomUUID()}`;
  const response = await request.post('/api/agents/ops-agent/generate', { data: { messages, threadId, resourceId: 'user-ada' } });
  expect(response.status()).toBe(200);
  return threadId;
}

test.describe('thread list', () => {
  test('titles come from the first request, trimmed and de-duplicated; rows show a date and a marker while something waits', async ({ chat, page, request, db }) => {
    const tag = crypto.randomUUID().slice(0, 8);
    const first = await startThread(request, `  look up customer cus-1   for ${tag}  `);
    const second = await startThread(request, `look up customer cus-1 for ${tag}`);
    const long = await startThread(request, `look up customer cus-2 ${tag}\nand then tell me everything you know about their orders, refunds and emails please`);
    const waiting = await startThread(request, `delete record rec-41 ${tag}`);
    const titles = await db.query<{ id: string; title: string }>('SELECT id, title FROM threads WHERE id = ANY($1)', [[first, second, long, waiting]]);
    const titleOf = Object.fromEntries(titles.map((row) => [row.id, row.title]));
    expect(titleOf[first]).toBe(`look up customer cus-1 for ${tag}`);
    expect(titleOf[second]).toBe(`look up customer cus-1 for ${tag} (2)`);
    expect(titleOf[long]).toMatch(new RegExp(`^look up customer cus-2 ${tag} and then tell me everything.*…$`));
    expect([...titleOf[long]].length).toBeLessThanOrEqual(60);

    await page.setViewportSize(DESKTOP);
    await chat.open(first);
    const item = (id: string) => page.locator(`aside [data-testid="thread-item"][data-thread-id="${id}"]`);
    await expect(item(second).getByTestId('thread-title')).toHaveText(`look up customer cus-1 for ${tag} (2)`);
    await expect(item(first).getByTestId('thread-link')).toHaveAttribute('aria-current', 'page');
    // Today's threads show their time.
    await expect(item(first).locator('time')).toHaveText(/^\d{2}:\d{2}$/);
    await expect(item(waiting).getByTestId('thread-pending')).toHaveText('1 action waiting');
    await expect(item(first).getByTestId('thread-pending')).toHaveCount(0);
    await screenshotBoth(page, 'chat-thread-list');

    // Deciding clears the marker.
    await item(waiting).getByTestId('thread-link').click();
    const card = chat.approvalCard('delete-record');
    await card.getByTestId('approve-button').click();
    await expect(card).toHaveAttribute('data-state', 'approved');
    await expect(item(waiting).getByTestId('thread-pending')).toHaveCount(0);
  });

  test('the agents API refuses a thread id the chat never makes; a thread stored under one earlier is listed with an encoded link, which answers the not-found page', async ({ chat, page, request, db }) => {
    const own = await startThread(request, 'look up customer cus-1');
    // The agents API once took any thread id (as the seed framework's does); now it takes only the
    // chat's kind (THREAD_ID) and writes nothing for another.
    const odd = `api a?b#c%-${crypto.randomUUID()}`;
    const response = await request.post('/api/agents/ops-agent/generate', { data: { messages: 'look up customer cus-2', threadId: odd, resourceId: 'user-ada' } });
    expect(response.status()).toBe(400);
    expect((await response.json()).error.code).toBe('BAD_REQUEST');
    expect(await db.query('SELECT id FROM threads WHERE id = $1', [odd])).toEqual([]);
    // A thread stored before that rule keeps its id and stays in its owner's list.
    await db.query(`INSERT INTO threads (id, resource_id, agent_id, title) VALUES ($1, 'user-ada', 'ops-agent', 'Named freely')`, [odd]);
    await page.setViewportSize(DESKTOP);
    await chat.open(own);
    const link = page.locator(`aside [data-testid="thread-item"][data-thread-id="${odd}"]`).getByTestId('thread-link');
    await expect(link).toHaveAttribute('href', `/chat/${encodeURIComponent(odd)}`);
    await link.click();
    await expect(page).toHaveURL(`${BASE}/chat/${encodeURIComponent(odd)}`);
    await expect(page.getByRole('heading', { name: /not found/i })).toBeVisible();
  });

  test('rename from the thread menu: Enter saves, Escape cancels, the title survives a reload', async ({ chat, page, request }) => {
    const threadId = await startThread(request, 'look up customer cus-3');
    await page.setViewportSize(DESKTOP);
    await chat.open(threadId);
    const item = page.locator(`aside [data-testid="thread-item"][data-thread-id="${threadId}"]`);

    await item.getByTestId('thread-actions').click();
    await page.getByTestId('thread-rename').click();
    const input = item.getByTestId('thread-title-input');
    await expect(input).toBeFocused();
    await input.fill('Something else');
    await input.press('Escape');
    await expect(item.getByTestId('thread-title')).toHaveText('look up customer cus-3');

    await item.getByTestId('thread-actions').click();
    await page.getByTestId('thread-rename').click();
    await item.getByTestId('thread-title-input').fill('  Katherine’s   orders ');
    await item.getByTestId('thread-title-input').press('Enter');
    await expect(item.getByTestId('thread-title')).toHaveText('Katherine’s orders');
    await expect(item.getByTestId('thread-link')).toBeFocused();
    await page.reload();
    await expect(item.getByTestId('thread-title')).toHaveText('Katherine’s orders');
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Katherine’s orders');

    // On a phone the same menu lives in the chats sheet.
    await page.setViewportSize(MOBILE);
    await page.getByRole('button', { name: 'Open chats' }).click();
    const sheet = page.getByRole('dialog', { name: 'Your chats' });
    await expect(sheet.getByText('Katherine’s orders')).toBeVisible();
    await screenshotBoth(page, 'chat-threads-sheet');
    const inSheet = sheet.locator(`[data-testid="thread-item"][data-thread-id="${threadId}"]`);
    await inSheet.getByTestId('thread-actions').click();
    await page.getByTestId('thread-rename').click();
    await inSheet.getByTestId('thread-title-input').fill('Katherine, on the phone');
    await inSheet.getByTestId('thread-title-input').press('Enter');
    await expect(inSheet.getByTestId('thread-title')).toHaveText('Katherine, on the phone');
  });

  test('delete refuses while a call waits (nothing changes), then deletes once it is decided; the decision stays in the audit', async ({ chat, page, request, db }) => {
    const threadId = await startThread(request, 'delete record rec-40');
    await page.setViewportSize(DESKTOP);
    await chat.open(threadId);
    const item = page.locator(`aside [data-testid="thread-item"][data-thread-id="${threadId}"]`);

    await item.getByTestId('thread-actions').click();
    await page.getByTestId('thread-delete').click();
    const dialog = page.getByRole('alertdialog');
    await expect(dialog).toContainText('Delete “delete record rec-40”?');
    await dialog.getByTestId('thread-delete-confirm').click();
    await expect(dialog.getByTestId('thread-delete-error')).toContainText('waiting for a decision');
    await expect(dialog.getByTestId('thread-delete-error')).toHaveAttribute('data-code', 'THREAD_HAS_PENDING_CALLS');
    await checkAccessible(page, 'chat-delete-refused');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(item.getByTestId('thread-actions')).toBeFocused();
    expect(await db.query('SELECT deleted_at FROM threads WHERE id = $1', [threadId])).toEqual([{ deleted_at: null }]);

    const card = chat.approvalCard('delete-record');
    await card.getByTestId('decline-button').click();
    await card.getByTestId('decline-reason').fill('keep it');
    await card.getByTestId('decline-confirm').click();
    await expect(card).toHaveAttribute('data-state', 'declined');

    await item.getByTestId('thread-actions').click();
    await page.getByTestId('thread-delete').click();
    await page.getByRole('alertdialog').getByTestId('thread-delete-confirm').click();
    // Deleting the open chat starts a new one.
    await expect(page).not.toHaveURL(new RegExp(threadId));
    await expect(page.locator(`[data-testid="thread-item"][data-thread-id="${threadId}"]`)).toHaveCount(0);

    await page.goto(`/chat/${threadId}`);
    await expect(page.getByTestId('not-found')).toBeVisible();
    const more = await request.post('/api/chat', {
      data: { id: threadId, messages: [{ role: 'user', parts: [{ type: 'text', text: 'hello again' }] }] },
    });
    expect(more.status()).toBe(404);
    const [{ count }] = await db.query<{ count: string }>(
      'SELECT count(*) FROM decisions d JOIN pending_tool_calls p ON p.id = d.pending_call_id WHERE p.thread_id = $1',
      [threadId],
    );
    expect(Number(count)).toBe(1);
  });

  test('the thread routes: JSON errors, owner only, same-origin only, bad input changes nothing', async ({ browser, request, db }) => {
    const threadId = await startThread(request, 'look up customer cus-1');
    const url = `/api/threads/${threadId}`;
    const title = async () => (await db.query<{ title: string }>('SELECT title FROM threads WHERE id = $1', [threadId]))[0].title;
    // Titled by the first request; numbered "(2)" when Ada already has a thread of that title.
    const titleBefore = await title();
    expect(titleBefore).toMatch(/^look up customer cus-1( \(\d+\))?$/);

    const anonymous = await browser.newContext();
    const unauthenticated = await anonymous.request.patch(`${BASE}${url}`, { data: { title: 'x' } });
    expect(unauthenticated.status()).toBe(401);
    expect((await unauthenticated.json()).error.code).toBe('UNAUTHENTICATED');
    await anonymous.close();

    for (const body of [{}, { title: '   ' }, { title: 'x'.repeat(101) }, { title: 42 }]) {
      const refused = await request.patch(url, { data: body });
      expect(refused.status(), JSON.stringify(body)).toBe(400);
      expect((await refused.json()).error).toMatchObject({ code: 'BAD_REQUEST', message: expect.any(String) });
    }
    const notJson = await request.patch(url, { headers: { 'content-type': 'application/json' }, data: Buffer.from('{nope') });
    expect(notJson.status()).toBe(400);
    const crossSite = await request.patch(url, { data: { title: 'from elsewhere' }, headers: { origin: 'https://evil.example' } });
    expect(crossSite.status()).toBe(403);
    expect((await crossSite.json()).error.code).toBe('CSRF_ORIGIN');
    expect((await request.delete(url, { headers: { origin: 'https://evil.example' } })).status()).toBe(403);
    expect(await title()).toBe(titleBefore);

    const ben = await contextAs(browser, ACCOUNTS.ben);
    const others = await ben.request.patch(url, { data: { title: 'mine now' } });
    expect(others.status()).toBe(404);
    expect((await others.json()).error.code).toBe('NOT_FOUND');
    expect((await ben.request.delete(url)).status()).toBe(404);
    await ben.close();
    expect((await request.patch('/api/threads/no-such-thread', { data: { title: 'x' } })).status()).toBe(404);
    expect(await title()).toBe(titleBefore);
    expect(await db.query('SELECT deleted_at FROM threads WHERE id = $1', [threadId])).toEqual([{ deleted_at: null }]);

    const renamed = await request.patch(url, { data: { title: ' Grace\n Hopper ' } });
    expect(renamed.status()).toBe(200);
    expect(await renamed.json()).toEqual({ thread: { id: threadId, title: 'Grace Hopper' } });
    const deleted = await request.delete(url);
    expect(deleted.status()).toBe(200);
    expect(await deleted.json()).toEqual({ deleted: true, id: threadId });
    expect((await request.delete(url)).status()).toBe(404);
    expect((await request.patch(url, { data: { title: 'back' } })).status()).toBe(404);
    expect((await request.get(`/api/chat/${threadId}`)).status()).toBe(404);
  });
});

test.describe('thread pages that are not there', () => {
  test('the chat and the inbox answer HTTP 404 with a not-found page for a thread the viewer may not see; a fresh id is still a new chat', async ({ browser, page, request, db }) => {
    const adas = await startThread(request, 'look up customer cus-1');
    const withCall = await startThread(request, 'delete record rec-45');
    const deleted = await startThread(request, 'look up customer cus-2');
    await db.query('UPDATE threads SET deleted_at = now() WHERE id = $1', [deleted]);

    // A fresh id is the new chat that `/` opens: 200, with the composer.
    const fresh = await page.goto(`/chat/${crypto.randomUUID()}`);
    expect(fresh?.status()).toBe(200);
    await expect(page.getByTestId('composer-input')).toBeVisible();

    const ben = await contextAs(browser, ACCOUNTS.ben);
    const benPage = await ben.newPage();
    for (const [viewer, path, why] of [
      [benPage, `/chat/${adas}`, 'someone else’s chat'],
      [page, `/chat/${deleted}`, 'a deleted chat'],
      [page, `/chat/${encodeURIComponent('not a thread id')}`, 'an id the chat never makes'],
    ] as const) {
      const response = await viewer.goto(path);
      expect(response?.status(), why).toBe(404);
      await expect(viewer.getByTestId('not-found'), why).toBeVisible();
      await expect(viewer.getByRole('heading', { name: /not found/i }), why).toBeVisible();
      await expect(viewer.getByRole('link', { name: /back to your chats/i }), why).toHaveAttribute('href', '/');
      await expect(viewer.getByTestId('composer-input'), why).toHaveCount(0);
    }
    expect((await ben.request.get(`/chat/${adas}`)).status()).toBe(404);
    await benPage.setViewportSize(DESKTOP);
    await checkAccessible(benPage, 'chat-not-found');
    await benPage.setViewportSize(MOBILE);
    await checkAccessible(benPage, 'chat-not-found');
    await ben.close();

    const rita = await contextAs(browser, ACCOUNTS.rita);
    const reviewer = await rita.newPage();
    // The reviewer's view opens for a thread with an approval…
    const shown = await reviewer.goto(`/inbox/threads/${withCall}`);
    expect(shown?.status()).toBe(200);
    await expect(reviewer.getByTestId('thread-read-only')).toBeVisible();
    // …and is not found for a thread without one, an unknown one, a deleted one or a malformed id.
    for (const [path, why] of [
      [`/inbox/threads/${adas}`, 'a thread without approvals or questions'],
      [`/inbox/threads/${crypto.randomUUID()}`, 'an unknown thread'],
      [`/inbox/threads/${deleted}`, 'a deleted thread'],
      [`/inbox/threads/${encodeURIComponent('not a thread id')}`, 'an id the chat never makes'],
    ] as const) {
      const response = await reviewer.goto(path);
      expect(response?.status(), why).toBe(404);
      await expect(reviewer.getByTestId('not-found'), why).toBeVisible();
      await expect(reviewer.getByRole('link', { name: /back to the inbox/i }), why).toHaveAttribute('href', '/inbox');
      await expect(reviewer.getByTestId('thread-read-only'), why).toHaveCount(0);
    }
    expect((await rita.request.get(`/inbox/threads/${adas}`)).status()).toBe(404);
    await reviewer.setViewportSize(DESKTOP);
    await checkAccessible(reviewer, 'inbox-thread-not-found');
    await reviewer.setViewportSize(MOBILE);
    await checkAccessible(reviewer, 'inbox-thread-not-found');

    // A reviewer opening the reviewer's view of her own thread is sent to her chat, by HTTP.
    const ritas = `threads-${crypto.randomUUID()}`;
    const started = await rita.request.post('/api/agents/ops-agent/generate', { data: { messages: 'delete record rec-46', threadId: ritas, resourceId: 'reviewer-rita' } });
    expect(started.status()).toBe(200);
    const own = await rita.request.get(`/inbox/threads/${ritas}`, { maxRedirects: 0 });
    expect([302, 303, 307, 308]).toContain(own.status());
    expect(own.headers().location).toBe(`/chat/${ritas}`);
    await rita.close();
  });
});
