import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { ACCOUNTS, contextAs, expect, test } from './support';
import { checkAccessible, DESKTOP, MOBILE, screenshotBoth } from './ui';

/*
 * An admin registers a webhook endpoint in the UI, pointing at a receiver this test starts; a
 * paused call reaches it signed (verified with the secret the page showed once), shows up in the
 * delivery log, and Resend sends it again with the same webhook-id. Edge cases are in
 * test/integration/webhooks.test.ts.
 */

test('an admin registers an endpoint, a pending call is delivered signed and logged, and Resend sends it again', async ({ browser, request, db }) => {
  const received: { id: string; body: string; headers: Record<string, string> }[] = [];
  const receiver = createServer((incoming: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const headers = Object.fromEntries(Object.entries(incoming.headers).map(([key, value]) => [key, String(value)]));
      received.push({ id: headers['webhook-id'], body: Buffer.concat(chunks).toString('utf8'), headers });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  // A long unbroken path (120 letters): the delivery log must wrap it, not widen past its box.
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/${crypto.randomUUID().slice(0, 8)}${'abcdefghij'.repeat(12)}`;
  const alex = await contextAs(browser, ACCOUNTS.alex);
  let endpointId: string | undefined;
  try {
    const page = await alex.newPage();
    await page.setViewportSize(DESKTOP);
    await page.goto('/admin/webhooks');
    await expect(page.getByRole('heading', { name: 'Webhooks', level: 1 })).toBeVisible();
    await expect(page.getByTestId('nav-webhooks')).toHaveAttribute('aria-current', 'page');

    const form = page.getByTestId('webhook-form');
    await form.getByLabel('URL').fill(url);
    await form.getByLabel('Description (optional)').fill('e2e receiver');
    // Only call.pending: the run's other events are not this test's business.
    for (const type of ['call.decided', 'call.expired', 'run.finished']) await form.getByRole('checkbox', { name: new RegExp(type.replace('.', '\\.')) }).uncheck();
    await page.getByTestId('save-webhook').click();
    await expect(page.getByTestId('webhook-secret')).toContainText(url);
    const secret = await page.getByTestId('webhook-secret-value').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.setViewportSize(MOBILE);
    await checkAccessible(page, 'webhooks-new-secret');
    await page.setViewportSize(DESKTOP);
    const row = page.locator(`[data-testid="webhook-endpoint"][data-url="${url}"]`);
    await expect(row).toContainText('call.pending');
    [{ id: endpointId }] = await db.query<{ id: string }>('SELECT id FROM webhook_endpoints WHERE url = $1', [url]);

    // Ada's question (a suspended call) is a call.pending event.
    const paused = await (
      await request.post('/api/agents/ops-agent/generate', { data: { messages: "what's the weather?", threadId: `hook-${crypto.randomUUID()}`, resourceId: 'user-ada' } })
    ).json();
    expect(paused.finishReason).toBe('suspended');
    const mine = () => received.filter((entry) => JSON.parse(entry.body).data.runId === paused.runId);
    await expect.poll(() => mine().length).toBe(1);
    const [first] = mine();
    expect(new Webhook(secret).verify(first.body, first.headers)).toMatchObject({ type: 'call.pending', data: { toolName: 'get-weather', kind: 'suspension' } });

    const delivery = page.locator(`[data-testid="webhook-delivery"][data-run-id="${paused.runId}"]`);
    await expect(async () => {
      await page.getByTestId('refresh-deliveries').click();
      await expect(delivery).toHaveAttribute('data-status', 'succeeded', { timeout: 1_000 });
    }).toPass();
    await expect(delivery.getByTestId('delivery-answer')).toHaveText('HTTP 204');
    await expect(delivery.getByTestId('delivery-attempts')).toHaveText('1');
    await checkAccessible(page, 'admin-webhooks');
    await page.setViewportSize(MOBILE);
    await checkAccessible(page, 'admin-webhooks');
    // At 390 px each delivery is a stacked card that fits, not a table to scroll sideways.
    expect((await page.getByTestId('webhook-deliveries').boundingBox())!.width).toBeLessThanOrEqual(MOBILE.width);
    const answer = (await delivery.getByTestId('delivery-answer').boundingBox())!;
    expect(answer.x + answer.width).toBeLessThanOrEqual(MOBILE.width);
    // At 800 px (a table) and 390 px (cards) the long URL wraps: the table fits its box, the page does not scroll sideways.
    for (const width of [800, MOBILE.width]) {
      await page.setViewportSize({ width, height: 900 });
      const fit = await page.getByTestId('webhook-deliveries').evaluate((table) => ({
        table: table.getBoundingClientRect().width,
        box: table.parentElement!.clientWidth,
        page: document.documentElement.scrollWidth,
      }));
      expect(fit.table, `${width} px`).toBeLessThanOrEqual(fit.box);
      expect(fit.page, `${width} px`).toBeLessThanOrEqual(width);
      await screenshotBoth(page, `webhook-deliveries-long-url-${width}`);
    }
    await page.setViewportSize(DESKTOP);

    await delivery.getByTestId('resend-delivery').click();
    await expect.poll(() => mine().length).toBe(2);
    const [, again] = mine();
    expect(again.id).toBe(first.id);
    expect(again.body).toBe(first.body);
    expect(() => new Webhook(secret).verify(again.body, again.headers)).not.toThrow();
    await expect(async () => {
      await page.getByTestId('refresh-deliveries').click();
      await expect(delivery.getByTestId('delivery-attempts')).toHaveText('2', { timeout: 1_000 });
    }).toPass();

    // Only admins: a reviewer is refused; a URL that is not http(s) is a 400 with its code.
    const rita = await contextAs(browser, ACCOUNTS.rita);
    expect((await rita.request.get('/api/admin/webhooks')).status()).toBe(403);
    await rita.close();
    const bad = await alex.request.post('/api/admin/webhooks', { data: { url: 'ftp://example.com/x', events: ['call.pending'] }, headers: { origin: new URL(page.url()).origin } });
    expect(bad.status()).toBe(400);
    expect((await bad.json()).error.code).toBe('INVALID_WEBHOOK_URL');
  } finally {
    // No other test's events go to this receiver once it is gone.
    if (endpointId) await db.query('DELETE FROM webhook_endpoints WHERE id = $1', [endpointId]);
    await alex.close();
    await new Promise((resolve) => receiver.close(resolve));
  }
});
