import { expect, test } from './support';

test.describe('API reference', () => {
  test('GET /api/openapi.json is OpenAPI 3.1; /docs/api renders it without loading anything from another host', async ({ browser, baseURL }) => {
    const context = await browser.newContext();
    const document = await (await context.request.get('/api/openapi.json')).json();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/api/agents/{agentId}/approve-tool-call');

    const page = await context.newPage();
    const elsewhere: string[] = [];
    const own = new URL(baseURL!).host;
    // As if offline: every request to another host fails (and is remembered).
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.host === own || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
      elsewhere.push(url.href);
      return route.abort();
    });
    await page.goto('/docs/api');
    await expect(page.getByText('Countersign API').first()).toBeVisible();
    // Every tag of the document is a section; opening one lists its operations by summary.
    for (const tag of ['Auth', 'Chat', 'Runs', 'Agents', 'Inbox', 'Audit', 'API keys', 'Administration']) {
      await expect(page.getByRole('link', { name: tag, exact: true }).first()).toBeVisible();
    }
    await page.getByRole('button', { name: 'Open Group - Agents' }).first().click();
    await expect(page.getByText('Approve a waiting call; streams the continuation').first()).toBeVisible();
    await page.waitForLoadState('networkidle');
    expect(elsewhere).toEqual([]);
    await context.close();
  });
});
