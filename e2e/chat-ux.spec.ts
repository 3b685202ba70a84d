import { startServer, type ExtraServer } from './servers';
import { E2E_PORT } from './config';
import { ACCOUNTS, ChatPage, expect, signIn, test } from './support';
import { MOBILE, screenshotBoth } from './ui';

test.describe('chat: focus and keyboard', () => {
  test('focus stays on the card after Approve and after Decline; Escape closes the decline form', async ({ chat, page, db }) => {
    expect(await db.recordExists('rec-46')).toBe(true);
    await chat.open();
    await chat.send('delete record rec-46');
    const first = chat.approvalCard('delete-record');
    await expect(first).toHaveAttribute('data-state', 'pending');

    // Escape closes the form without deciding, and focus returns to Decline.
    await first.getByTestId('decline-button').click();
    await expect(first.getByTestId('decline-reason')).toBeFocused();
    await first.getByTestId('decline-reason').press('Escape');
    await expect(first.getByTestId('decline-reason')).toHaveCount(0);
    await expect(first.getByTestId('decline-button')).toBeFocused();
    await expect(first).toHaveAttribute('data-state', 'pending');

    await first.getByTestId('approve-button').focus();
    await page.keyboard.press('Enter');
    await expect(first).toHaveAttribute('data-state', 'approved');
    await expect(chat.lastAssistant()).toContainText('Record rec-46 was deleted');
    await expect(first).toBeFocused();

    await chat.send('delete record rec-47');
    const second = chat.approvalCard('delete-record');
    await expect(second).toHaveAttribute('data-state', 'pending');
    await second.getByTestId('decline-button').click();
    await page.keyboard.type('still needed');
    await second.getByTestId('decline-confirm').click();
    await expect(second).toHaveAttribute('data-state', 'declined');
    await expect(chat.lastAssistant()).toContainText('still needed');
    await expect(second).toBeFocused();
    expect(await db.recordExists('rec-47')).toBe(true);
  });

  test('a pending card scrolled out of view gets a sticky reminder that jumps to it', async ({ chat, page }) => {
    await page.setViewportSize(MOBILE);
    await chat.open();
    await chat.send('delete record rec-48');
    const card = chat.approvalCard('delete-record');
    await expect(card).toHaveAttribute('data-state', 'pending');
    // More conversation below the card pushes it out of view.
    for (let i = 1; i <= 3; i += 1) {
      await chat.send(`/tool lookup-customer {"customerId":"cus-${i}"}`);
      await expect(page.getByTestId('tool-call')).toHaveCount(i);
      await expect(page.getByTestId('composer-send')).toBeDisabled();
    }
    await expect(chat.lastAssistant()).toContainText('lookup-customer:');
    const reminder = page.getByTestId('pending-reminder');
    await expect(reminder).toHaveText('1 action waiting for you');
    await expect(card).not.toBeInViewport();
    await screenshotBoth(page, 'chat-pending-reminder');

    await reminder.click();
    await expect(card).toBeInViewport();
    await expect(card).toBeFocused();
    await expect(reminder).toHaveCount(0);
    // Reachable by keyboard from the card.
    await page.keyboard.press('Tab');
    await expect(card.getByRole('button', { name: 'Approve' })).toBeFocused();
  });
});

test.describe('chat: sending and errors', () => {
  test('a send that fails keeps the draft and offers Retry, which sends it', async ({ chat, page, context }) => {
    await chat.open();
    await expect(page.getByTestId('composer-input')).toBeEditable();
    await context.setOffline(true);
    await chat.send('look up customer cus-2');
    const error = page.getByTestId('chat-error');
    await expect(error).toContainText('Your message was not sent');
    await expect(page.getByTestId('composer-input')).toHaveValue('look up customer cus-2');
    await expect(page.getByTestId('message-user')).toHaveCount(0);

    await context.setOffline(false);
    await page.getByTestId('chat-error-retry').click();
    await expect(page.getByTestId('chat-error')).toHaveCount(0);
    await expect(page.getByTestId('message-user')).toHaveCount(1);
    await expect(chat.lastAssistant()).toContainText('Alan Turing');
    await expect(page.getByTestId('composer-input')).toHaveValue('');
  });

  test('tool results and tool errors read as text, never as JSON', async ({ chat, page }) => {
    await chat.open();
    await chat.send('/tool lookup-customer {"customerId":"cus-1"}\n/tool lookup-customer {"customerId":""}');
    const calls = page.getByTestId('tool-call');
    await expect(calls).toHaveCount(2);
    await expect(calls.nth(0).getByTestId('tool-result')).toHaveText(/has \d+ orders/);
    await calls.nth(0).getByText('Details').click();
    const details = calls.nth(0).getByTestId('tool-result-details');
    await expect(details).toContainText('Grace Hopper');
    await expect(details).toContainText('ord-');
    const error = calls.nth(1).getByTestId('tool-error');
    await expect(error).toContainText('customerId');
    for (const text of [await details.innerText(), await error.innerText()]) {
      expect(text).not.toMatch(/[{}[\]"]/);
    }
  });

  test('a signed-out visit to / is redirected by the server straight to sign-in; no chat is rendered', async ({ browser }) => {
    const context = await browser.newContext();
    const response = await context.request.get('/', { maxRedirects: 0 });
    expect(response.status()).toBe(307);
    expect(response.headers().location).toBe('/sign-in?next=%2F');

    const page = await context.newPage();
    const documents: string[] = [];
    page.on('response', (r) => {
      if (r.request().resourceType() === 'document') documents.push(new URL(r.url()).pathname);
    });
    await page.goto('/');
    await expect(page).toHaveURL(/\/sign-in\?next=%2F$/);
    expect(documents).toEqual(['/', '/sign-in']);
    // A direct link to a chat is refused the same way, before its loading outline is sent.
    const direct = await context.request.get('/chat/some-thread', { maxRedirects: 0 });
    expect(direct.status()).toBe(307);
    expect(direct.headers().location).toBe('/sign-in?next=%2Fchat%2Fsome-thread');
    expect(await direct.text()).not.toContain('Loading chat');
    await context.close();
  });
});

test.describe('chat: Markdown', () => {
  test('assistant text is Markdown; raw HTML is shown as text, never run; javascript: links are not links', async ({ chat, page }) => {
    await chat.open();
    await page.evaluate(() => ((window as unknown as { __xss: number }).__xss = 0));
    await chat.send(
      [
        '/tool lookup-customer {"customerId":"**bold-id**"}',
        '/tool lookup-customer {"customerId":"<img src=x onerror=window.__xss=1>"}',
        '/tool lookup-customer {"customerId":"<script>window.__xss=2</script>"}',
        '/tool lookup-customer {"customerId":"[tap me](javascript:window.__xss=3)"}',
        '/tool lookup-customer {"customerId":"[docs](https://example.com/docs)"}',
      ].join('\n'),
    );
    const text = chat.lastAssistant().getByTestId('assistant-text');
    await expect(text).toContainText('docs');
    await expect(text.locator('strong', { hasText: 'bold-id' })).toHaveCount(1);
    await expect(text).toContainText('<img src=x onerror=window.__xss=1>');
    await expect(text).toContainText('<script>window.__xss=2</script>');
    await expect(text.locator('img, script')).toHaveCount(0);
    await expect(text.getByText('tap me')).toBeVisible();
    await expect(text.getByRole('link', { name: 'tap me' })).toHaveCount(0);
    await expect(text.locator('[href^="javascript:"]')).toHaveCount(0);
    const safe = text.getByRole('link', { name: 'docs' });
    await expect(safe).toHaveAttribute('href', 'https://example.com/docs');
    await expect(safe).toHaveAttribute('rel', /noreferrer/);
    await page.getByText('tap me').click();
    expect(await page.evaluate(() => (window as unknown as { __xss: number }).__xss)).toBe(0);
  });
});

test.describe('chat: streaming after a decision', () => {
  let slow: ExtraServer;
  test.beforeAll(async () => {
    slow = await startServer({ port: E2E_PORT + 8, env: { SCRIPTED_MODEL_DELAY_MS: '120' } });
  });
  test.afterAll(async () => {
    await slow?.kill();
  });

  test('after Approve, the continuation’s text arrives word by word, not all at once', async ({ browser, db }) => {
    expect(await db.recordExists('rec-49')).toBe(true);
    const context = await browser.newContext({ baseURL: slow.url });
    await signIn(context.request, ACCOUNTS.ada, slow.url);
    const page = await context.newPage();
    const chat = new ChatPage(page);
    await chat.open();
    await chat.send('delete record rec-49');
    const card = chat.approvalCard('delete-record');
    await expect(card).toHaveAttribute('data-state', 'pending');

    // Record every length the answer's text has on screen while it arrives.
    await page.evaluate(() => {
      const seen: number[] = [];
      (window as unknown as { seen: number[] }).seen = seen;
      const log = document.querySelector('[role="log"]')!;
      new MutationObserver(() => {
        const texts = [...log.querySelectorAll('[data-testid="message-assistant"]')].at(-1)?.querySelectorAll('[data-testid="assistant-text"]');
        const length = texts ? [...texts].map((el) => el.textContent ?? '').join('').length : 0;
        if (seen.at(-1) !== length) seen.push(length);
      }).observe(log, { subtree: true, childList: true, characterData: true });
    });
    await card.getByTestId('approve-button').click();
    await expect(chat.lastAssistant()).toContainText('Record rec-49 was deleted.');
    const seen = await page.evaluate(() => (window as unknown as { seen: number[] }).seen);
    const final = seen.at(-1)!;
    const partial = seen.filter((length) => length > 0 && length < final);
    expect(partial.length, `text lengths seen: ${seen.join(', ')}`).toBeGreaterThanOrEqual(2);
    await context.close();
  });
});
