import { ACCOUNTS, contextAs, expect, test } from './support';
import { checkAccessible, DESKTOP, MOBILE, screenshotBoth } from './ui';

// The audit log for admins: search by people's names or emails (never ids), requester, tool,
// outcome and dates; a "what" column; rows that expand by keyboard; links to the thread; the
// whole filtered log as a streamed CSV; usable at 390 px.

test.describe('audit search', () => {
  test.setTimeout(180_000);

  test('filters by who decided and who asked (name or email), outcome and dates; expandable rows; thread link; CSV of the filtered set', async ({ browser, db }) => {
    const tag = crypto.randomUUID().slice(0, 8);
    const grace = await db.createAccount({ name: `Grace ${tag}` });
    const quinn = await db.createAccount({ name: `Quinn ${tag}`, role: 'reviewer' });
    const graceContext = await contextAs(browser, grace.email);
    const quinnContext = await contextAs(browser, quinn.email);
    const ask = async (subject: string) => {
      const threadId = `audit-${crypto.randomUUID()}`;
      const response = await graceContext.request.post('/api/agents/ops-agent/generate', {
        data: { messages: `/tool send-email ${JSON.stringify({ to: 'ops@example.com', subject, body: 'x' })}`, threadId, resourceId: grace.id },
      });
      const body = await response.json();
      return { threadId, runId: body.runId as string, toolCallId: body.suspendedToolCalls[0].toolCallId as string };
    };
    const decide = async (context: typeof quinnContext, call: { runId: string; toolCallId: string }, approved: boolean, reason?: string) => {
      const response = await context.request.post(`/api/runs/${call.runId}/tool-calls/${call.toolCallId}/decision`, { data: { approved, ...(reason ? { reason } : {}) } });
      expect(response.status()).toBe(200);
      await response.body();
    };
    const budget = await ask(`Budget ${tag}`);
    const minutes = await ask(`Minutes ${tag}`);
    await decide(quinnContext, budget, false, `not before the board meets ${tag}`);
    await decide(quinnContext, minutes, true);

    const alex = await contextAs(browser, ACCOUNTS.alex);
    const page = await alex.newPage();
    await page.setViewportSize(DESKTOP);
    await page.goto('/audit');
    await page.getByTestId('inbox-filters-toggle').click();
    await page.getByLabel('Decided by', { exact: true }).fill(quinn.email.slice(0, 20).toUpperCase());
    await page.getByRole('textbox', { name: 'Requester', exact: true }).fill(`grace ${tag}`);
    await page.getByTestId('inbox-filters-apply').click();
    await expect(page).toHaveURL(/\/audit\?.*person=/);
    const rows = page.getByTestId('audit-row');
    await expect(rows).toHaveCount(2);
    await expect(page.getByTestId('audit-row').getByTestId('person-email').first()).toHaveText(`<${quinn.email}>`);

    // Outcome and the "what" column.
    await page.goto(`/audit?person=${encodeURIComponent(`Quinn ${tag}`)}&kind=decline&toolName=send-email`);
    await expect(rows).toHaveCount(1);
    const row = rows.first();
    await expect(row).toHaveAttribute('data-tool-call-id', budget.toolCallId);
    await expect(row.getByTestId('audit-what')).toContainText(`Sends an email to ops@example.com: “Budget ${tag}”`);
    await expect(row.locator('time')).toHaveAttribute('title', /\d{2}:\d{2}:\d{2} GMT[+-]\d{2}:\d{2}/);
    await checkAccessible(page, 'audit-filtered');

    // Keyboard: the row's button expands it.
    const toggle = row.getByTestId('audit-toggle');
    await toggle.focus();
    await page.keyboard.press('Enter');
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const detail = page.getByTestId('audit-detail');
    await expect(detail.getByRole('table', { name: 'Arguments the decider saw' })).toContainText(`Budget ${tag}`);
    await expect(detail).toContainText(`<${grace.email}>`);
    await checkAccessible(page, 'audit-expanded');
    await page.keyboard.press('Space');
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');

    // CSV of the whole filtered set, streamed: no content-length, `limit` does not cut it.
    const href = await page.getByTestId('audit-csv').getAttribute('href');
    expect(href).toContain('kind=decline');
    const csv = await alex.request.get(`${href}&limit=1`);
    expect(csv.status()).toBe(200);
    expect(csv.headers()['content-type']).toContain('text/csv');
    expect(csv.headers()['content-length']).toBeUndefined();
    const csvLines = (await csv.text()).split('\r\n').filter(Boolean);
    // The header, the one matching decision, and the end comment line that counts it (not a row).
    expect(csvLines).toHaveLength(3);
    expect(csvLines[1]).toContain(budget.toolCallId);
    expect(csvLines[2]).toBe('# End of export: 1 decision');
    const all = (await (await alex.request.get(`/api/audit?format=csv&limit=1&person=${encodeURIComponent(quinn.email)}`)).text()).split('\r\n').filter(Boolean);
    expect(all).toHaveLength(4);
    expect(all[3]).toBe('# End of export: 2 decisions');
    // JSON Lines beside it, same filters: a header with the chain head, then entries with their links.
    const jsonlHref = await page.getByTestId('audit-jsonl').getAttribute('href');
    expect(jsonlHref).toBe(href!.replace('format=csv', 'format=jsonl'));
    const jsonl = await alex.request.get(`${jsonlHref}&limit=1`);
    expect(jsonl.headers()['content-type']).toContain('application/jsonl');
    const jsonlLines = (await jsonl.text()).split('\n').filter(Boolean).map((line) => JSON.parse(line));
    expect(jsonlLines[0]).toMatchObject({ entry: 'export', head: { hash: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    expect(jsonlLines.slice(1, -1)).toEqual([expect.objectContaining({ entry: 'decision', kind: 'decline', seq: expect.stringMatching(/^\d+$/), hash: expect.any(String) })]);
    expect(jsonlLines.at(-1)).toEqual({ entry: 'end', entries: 1 });

    // The whole chain, both kinds of entry, oldest first: link 1 up to the head in the header.
    expect(await page.getByTestId('audit-chain').getAttribute('href')).toBe('/api/audit/chain');
    const chain = (await (await alex.request.get('/api/audit/chain')).text()).split('\n').filter(Boolean).map((line) => JSON.parse(line));
    const chainLinks = chain.slice(1, -1);
    expect(chain[0]).toMatchObject({ entry: 'export', filters: {} });
    expect(chainLinks[0]).toMatchObject({ seq: '1', prevHash: '0'.repeat(64) });
    expect(chainLinks.at(-1)).toMatchObject({ seq: chain[0].head.seq, hash: chain[0].head.hash });
    expect(chain.at(-1)).toEqual({ entry: 'end', entries: chainLinks.length });
    expect(new Set(chainLinks.map((line: { entry: string }) => line.entry))).toEqual(new Set(['decision', 'event']));
    const csvChain = await alex.request.get('/api/audit/chain?format=csv');
    expect(csvChain.status()).toBe(400);
    expect((await csvChain.json()).error.code).toBe('BAD_REQUEST');
    // The link sits beside the tabs, on both audit views, at any width. (The decisions filtered to this
    // test's two: axe over a full page of the suite's log costs seconds, and a11y.spec.ts checks that.)
    for (const size of [DESKTOP, MOBILE]) {
      await page.setViewportSize(size);
      for (const view of [`/audit?person=${encodeURIComponent(`Quinn ${tag}`)}`, '/audit/actions']) {
        await page.goto(view);
        await expect(page.getByTestId('audit-chain')).toBeVisible();
        await checkAccessible(page, `audit-chain-link${view.split('?')[0].replaceAll('/', '-')}`);
      }
    }
    await page.setViewportSize(DESKTOP);

    // Dates: none of these before 2020; bad dates are said to be unreadable.
    await page.goto(`/audit?person=${encodeURIComponent(`Quinn ${tag}`)}&to=2020-01-01`);
    await expect(page.getByTestId('audit-empty')).toBeVisible();
    await page.goto(`/audit?person=${encodeURIComponent(`Quinn ${tag}`)}&from=2020-01-01`);
    await expect(rows).toHaveCount(2);
    await page.goto(`/audit?person=${encodeURIComponent(`Quinn ${tag}`)}&from=someday`);
    await expect(page.getByTestId('audit-filters-error')).toBeVisible();
    // Only the unreadable filter is left out: the person filter still applies.
    await expect(rows).toHaveCount(2);
    // Dates the wrong way round are refused, not answered "no decisions": the page says so, the API answers 400.
    for (const [url, error, empty] of [
      [`/audit?person=${encodeURIComponent(`Quinn ${tag}`)}&from=2026-12-01&to=2026-11-30`, 'audit-range-error', 'audit-empty'],
      ['/audit/actions?from=2026-12-01&to=2026-11-30', 'actions-range-error', 'actions-empty'],
    ] as const) {
      await page.goto(url);
      await expect(page.getByTestId(error), url).toHaveText(/from \(2026-12-01\) is after until \(2026-11-30\)/);
      await expect(page.getByTestId(empty), url).toHaveCount(0);
      // No download that would fail: the download button is disabled, and no download link is there.
      const view = error.split('-')[0];
      await expect(page.getByTestId(`${view}-downloads-disabled`), url).toBeDisabled();
      await expect(page.getByTestId(`${view}-jsonl`), url).toHaveCount(0);
      if (view === 'audit') await checkAccessible(page, 'audit-range-reversed');
    }
    await expect(rows).toHaveCount(0);
    for (const url of ['/api/audit?from=2026-12-01&to=2026-11-30', '/api/audit/actions?from=2026-12-01&to=2026-11-30']) {
      const reversed = await alex.request.get(url);
      expect(reversed.status(), url).toBe(400);
      expect((await reversed.json()).error, url).toMatchObject({ code: 'BAD_REQUEST', message: 'The request is not valid: from: must not be after to (the range starts after it ends).' });
    }

    // A NUL (%00) in a link, which PostgreSQL cannot store in text, is an unreadable filter too: the
    // page says so and shows the rest, instead of failing.
    for (const [url, error] of [
      [`/audit?person=${encodeURIComponent(`Quinn ${tag}`)}&toolName=%00`, 'audit-filters-error'],
      ['/audit?actorId=a%00b', 'audit-filters-error'],
      ['/audit/actions?actor=%00', 'actions-filters-error'],
      ['/inbox?view=done&person=x%00', 'inbox-filters-error'],
      ['/inbox?toolName=%00', 'inbox-filters-error'],
      ['/inbox?from=someday', 'inbox-filters-error'],
      // Years PostgreSQL cannot store, and a day February does not have.
      ['/inbox?from=0000-01-01', 'inbox-filters-error'],
      ['/inbox?view=done&to=%2B275760-09-13T00:00:00.000Z', 'inbox-filters-error'],
      ['/audit?from=-004714-01-01T00:00:00Z', 'audit-filters-error'],
      ['/audit/actions?to=2026-02-31', 'actions-filters-error'],
    ] as const) {
      const response = await page.goto(url);
      expect(response?.status(), url).toBe(200);
      await expect(page.getByTestId(error), url).toBeVisible();
    }
    await page.goto(`/audit?person=${encodeURIComponent(`Quinn ${tag}`)}&toolName=%00`);
    await expect(rows).toHaveCount(2);
    for (const url of ['/api/inbox?from=0000-01-01', '/api/audit?from=0000-01-01&format=csv', '/api/audit/actions?to=%2B275760-09-13T00:00:00.000Z']) {
      const refused = await alex.request.get(url);
      expect(refused.status(), url).toBe(400);
      expect((await refused.json()).error.code, url).toBe('BAD_REQUEST');
    }
    // The waiting list's note, at both widths, light and dark.
    for (const size of [DESKTOP, MOBILE]) {
      await page.setViewportSize(size);
      await page.goto('/inbox?from=someday&toolName=send-email');
      await expect(page.getByTestId('inbox-filters-error')).toBeVisible();
      await checkAccessible(page, 'inbox-filters-unread');
    }
    await page.setViewportSize(DESKTOP);
    // Not filters: a link to a call, or a page cursor, that cannot be read is ignored.
    for (const url of ['/inbox?call=%00', '/inbox?cursor=%00']) {
      const response = await page.goto(url);
      expect(response?.status(), url).toBe(200);
      await expect(page.getByRole('heading', { name: 'Inbox' }), url).toBeVisible();
      await expect(page.getByTestId('inbox-filters-error'), url).toHaveCount(0);
    }

    // The link to the thread: a read-only transcript at the run, with the decision and its reason.
    await page.goto(`/audit?person=${encodeURIComponent(`Quinn ${tag}`)}&kind=decline`);
    await rows.first().getByTestId('audit-thread-link').click();
    await expect(page).toHaveURL(new RegExp(`/audit/threads/${budget.threadId}#run-${budget.runId}$`));
    await expect(page.getByTestId('transcript-message').first()).toContainText(`Budget ${tag}`);
    await expect(page.getByTestId('transcript-decision')).toContainText(`not before the board meets ${tag}`);
    await expect(page.locator(`[id="run-${budget.runId}"]`)).toBeVisible();
    await checkAccessible(page, 'audit-thread');

    // 390 px: the list form, no sideways scrolling, the same button expands an entry.
    await page.setViewportSize(MOBILE);
    await page.goto(`/audit?person=${encodeURIComponent(`Quinn ${tag}`)}`);
    const item = page.locator(`[data-testid="audit-item"][data-tool-call-id="${budget.toolCallId}"]`);
    await expect(item).toContainText(`Budget ${tag}`);
    await item.getByTestId('audit-toggle').click();
    await expect(item.getByTestId('audit-toggle')).toHaveAttribute('aria-expanded', 'true');
    await page.getByTestId('inbox-filters-toggle').click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    await checkAccessible(page, 'audit-filtered');
    await screenshotBoth(page, 'audit-mobile-filters');
    await page.setViewportSize(DESKTOP);
    await screenshotBoth(page, 'audit-desktop-filters');

    await Promise.all([alex.close(), graceContext.close(), quinnContext.close()]);
  });
});
