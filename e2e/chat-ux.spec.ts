import { startServer, type ExtraServer } from './servers';
import { extraPort } from './config';
import { ACCOUNTS, ChatPage, expect, signIn, test } from './support';
import { checkAccessible, MOBILE } from './ui';

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

  test('on a Mac the decline hint names ⌘+Enter, and ⌘+Enter declines', async ({ chat, page, db }) => {
    // What a Mac's Chromium reports; the page reads it after hydration.
    await page.addInitScript(() => {
      Object.defineProperty(navigator, 'platform', { get: () => 'MacIntel' });
      Object.defineProperty(navigator, 'userAgentData', { get: () => ({ platform: 'macOS' }) });
    });
    await chat.open();
    await chat.send('delete record rec-48');
    const card = chat.approvalCard('delete-record');
    await expect(card).toHaveAttribute('data-state', 'pending');
    await card.getByTestId('decline-button').click();
    await expect(card.getByText('⌘+Enter declines · Esc cancels')).toBeVisible();
    await card.getByTestId('decline-reason').fill('kept on the Mac');
    await card.getByTestId('decline-reason').press('Meta+Enter');
    await expect(card).toHaveAttribute('data-state', 'declined');
    await expect(chat.lastAssistant()).toContainText('kept on the Mac');
    expect(await db.recordExists('rec-48')).toBe(true);
  });

  test('a pending card scrolled out of view gets a sticky reminder that jumps to it', async ({ chat, page }) => {
    await page.setViewportSize(MOBILE);
    await chat.open();
    await chat.send('delete record rec-48');
    const card = chat.approvalCard('delete-record');
    await expect(card).toHaveAttribute('data-state', 'pending');
    // More conversation below the card pushes it out of view.
    for (let i = 1; i <= 4; i += 1) {
      await chat.send(`/tool lookup-customer {"customerId":"cus-${i}"}`);
      await expect(page.getByTestId('tool-call')).toHaveCount(i);
      await expect(page.getByTestId('composer-send')).toBeDisabled();
    }
    await expect(chat.lastAssistant()).toContainText('lookup-customer:');
    const reminder = page.getByTestId('pending-reminder');
    await expect(reminder).toHaveText('1 action waiting for you');
    // Less than a fifth of it shows: it counts as out of view.
    await expect(card).not.toBeInViewport({ ratio: 0.2 });
    await checkAccessible(page, 'chat-pending-reminder');

    await reminder.click();
    await expect(card).toBeInViewport();
    await expect(card).toBeFocused();
    await expect(reminder).toHaveCount(0);
    // The keyboard goes on from the card into its controls.
    await page.keyboard.press('Tab');
    expect(await card.evaluate((el) => el !== document.activeElement && el.contains(document.activeElement))).toBe(true);
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

  test('approving a card already decided in another tab says it was you, and the card catches up', async ({ chat, page, context }) => {
    const threadId = await chat.open();
    await chat.send('delete record rec-35');
    await expect(chat.approvalCard('delete-record')).toHaveAttribute('data-state', 'pending');
    // A second tab on the same chat that hears nothing live, so its card stays stale.
    const other = await context.newPage();
    // The feed's URL carries `?since=<version>`: match the path, whatever the query.
    await other.route((url) => /^\/api\/chat\/[^/]+\/events$/.test(url.pathname), (route) => route.abort());
    const stale = new ChatPage(other);
    await stale.open(threadId);
    await expect(stale.approvalCard('delete-record')).toHaveAttribute('data-state', 'pending');

    await chat.approvalCard('delete-record').getByTestId('approve-button').click();
    await expect(chat.approvalCard('delete-record')).toHaveAttribute('data-state', 'approved');
    await stale.approvalCard('delete-record').getByTestId('approve-button').click();
    const error = other.getByTestId('chat-error');
    await expect(error).toContainText('You already approved this');
    await expect(error).toContainText('The card now shows your decision.');
    await expect(stale.approvalCard('delete-record')).toHaveAttribute('data-state', 'approved');
  });

  test('near the length limit the composer counts, and at it says that longer text is not kept', async ({ chat, page }) => {
    await chat.open();
    const input = page.getByTestId('composer-input');
    await expect(input).toBeEditable();
    await input.fill('x'.repeat(7_000));
    await expect(page.getByTestId('composer-count')).toHaveCount(0);
    await input.fill('x'.repeat(7_500));
    await expect(page.getByTestId('composer-count')).toHaveText('7,500 of 8,000 characters');
    // A paste longer than the limit: the box keeps 8,000 characters and says so.
    await input.fill('');
    await input.focus();
    await page.keyboard.insertText('y'.repeat(9_000));
    await expect(input).toHaveValue('y'.repeat(8_000));
    await expect(page.getByTestId('composer-count')).toContainText('8,000 of 8,000 characters: the limit. Text beyond it is not kept');
    // One character short of the limit, a pasted emoji (two UTF-16 units) does not fit: the box
    // keeps nothing of it, and says so.
    await input.fill('z'.repeat(7_999));
    await expect(page.getByTestId('composer-count')).toHaveText('7,999 of 8,000 characters');
    await input.evaluate((box: HTMLTextAreaElement) => {
      box.setSelectionRange(box.value.length, box.value.length);
      const data = new DataTransfer();
      data.setData('text/plain', '🙂');
      box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    });
    await expect(page.getByTestId('composer-count')).toContainText('7,999 of 8,000 characters: the limit. Text beyond it is not kept');
    await input.press('Backspace');
    await expect(page.getByTestId('composer-count')).toHaveText('7,998 of 8,000 characters');
    // The same emoji typed (not pasted) one short of the limit: dropped by the box, and said so.
    await page.keyboard.insertText('y');
    await expect(page.getByTestId('composer-count')).toHaveText('7,999 of 8,000 characters');
    await page.keyboard.insertText('🙂');
    await expect(input).toHaveValue('z'.repeat(7_998) + 'y');
    await expect(page.getByTestId('composer-count')).toContainText('7,999 of 8,000 characters: the limit. Text beyond it is not kept');
    await input.press('Backspace');
    await page.keyboard.insertText('yy');
    await expect(page.getByTestId('composer-count')).toContainText('8,000 of 8,000 characters: the limit.');
    await checkAccessible(page, 'composer-at-limit');
    await page.setViewportSize(MOBILE);
    await checkAccessible(page, 'composer-at-limit');
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
    // A direct link to a chat is redirected the same way (by HTTP, before its loading outline streams).
    const direct = await context.request.get('/chat/some-thread', { maxRedirects: 0 });
    expect(direct.status()).toBe(307);
    expect(direct.headers().location).toBe('/sign-in?next=%2Fchat%2Fsome-thread');
    await context.close();
  });
});

test.describe('chat: Markdown', () => {
  test('assistant text is Markdown; raw HTML is shown as text, never run; javascript: links are not links', async ({ chat, page }) => {
    await chat.open();
    await page.evaluate(() => (window.name = 'untouched'));
    await chat.send(
      [
        '/tool lookup-customer {"customerId":"**bold-id**"}',
        '/tool lookup-customer {"customerId":"<img src=x onerror=window.name=1>"}',
        '/tool lookup-customer {"customerId":"<script>window.name=2</script>"}',
        '/tool lookup-customer {"customerId":"[tap me](javascript:window.name=3)"}',
        '/tool lookup-customer {"customerId":"[docs](https://example.com/docs)"}',
      ].join('\n'),
    );
    const text = chat.lastAssistant().getByTestId('assistant-text');
    await expect(text).toContainText('docs');
    await expect(text.locator('strong', { hasText: 'bold-id' })).toHaveCount(1);
    await expect(text).toContainText('<img src=x onerror=window.name=1>');
    await expect(text).toContainText('<script>window.name=2</script>');
    await expect(text.locator('img, script')).toHaveCount(0);
    await expect(text.getByText('tap me')).toBeVisible();
    await expect(text.getByRole('link', { name: 'tap me' })).toHaveCount(0);
    await expect(text.locator('[href^="javascript:"]')).toHaveCount(0);
    const safe = text.getByRole('link', { name: 'docs' });
    await expect(safe).toHaveAttribute('href', 'https://example.com/docs');
    await expect(safe).toHaveAttribute('rel', /noreferrer/);
    await text.getByText('tap me').click();
    expect(await page.evaluate(() => window.name)).toBe('untouched');
  });
});

test.describe('chat: streaming after a decision', () => {
  let slow: ExtraServer;
  test.beforeAll(async () => {
    slow = await startServer({ port: extraPort(8), env: { SCRIPTED_MODEL_DELAY_MS: '120' } });
  });
  test.afterAll(async () => {
    await slow?.kill();
  });

  test('after a decision — in the chat or by a reviewer — the continuation’s text arrives word by word, not all at once', async ({ browser, db }) => {
    expect(await db.recordExists('rec-49')).toBe(true);
    const context = await browser.newContext({ baseURL: slow.url });
    await signIn(context.request, ACCOUNTS.ada, slow.url);
    const page = await context.newPage();
    const chat = new ChatPage(page);
    await chat.open();

    /** Records every length the newest answer's text has on screen while it arrives. */
    const watchAnswer = () =>
      page.evaluate(() => {
        const seen: number[] = [];
        (window as unknown as { seen: number[] }).seen = seen;
        const log = document.querySelector('[role="log"]')!;
        new MutationObserver(() => {
          const texts = [...log.querySelectorAll('[data-testid="message-assistant"]')].at(-1)?.querySelectorAll('[data-testid="assistant-text"]');
          const length = texts ? [...texts].map((el) => el.textContent ?? '').join('').length : 0;
          if (seen.at(-1) !== length) seen.push(length);
        }).observe(log, { subtree: true, childList: true, characterData: true });
      });
    const expectPartialTextSeen = async () => {
      const seen = await page.evaluate(() => (window as unknown as { seen: number[] }).seen);
      const final = seen.at(-1)!;
      expect(seen.filter((length) => length > 0 && length < final).length, `text lengths seen: ${seen.join(', ')}`).toBeGreaterThanOrEqual(2);
    };

    // Approved in the chat: the decision's own response streams.
    await chat.send('delete record rec-49');
    const card = chat.approvalCard('delete-record');
    await expect(card).toHaveAttribute('data-state', 'pending');
    await watchAnswer();
    await card.getByTestId('approve-button').click();
    await expect(chat.lastAssistant().getByTestId('assistant-text')).toHaveText('delete-record: Record rec-49 was deleted.');
    await expect(page.getByTestId('chat-error')).toHaveCount(0);
    await expectPartialTextSeen();

    // Approved by a reviewer elsewhere: the open chat follows the run as it streams.
    await chat.send('refund order ord-1043 for 150');
    const refund = chat.approvalCard('issue-refund');
    await expect(refund).toHaveAttribute('data-state', 'pending');
    const [pending] = (await db.pendingCalls({ toolName: 'issue-refund', status: 'pending' })).slice(-1);
    await watchAnswer();
    const rita = await browser.newContext({ baseURL: slow.url });
    await signIn(rita.request, ACCOUNTS.rita, slow.url);
    const decided = await rita.request.post(`/api/runs/${pending.run_id}/tool-calls/${pending.tool_call_id}/decision`, {
      data: { approved: false, reason: 'refunds above the order total are not possible' },
    });
    expect(decided.status()).toBe(200);
    await rita.close();
    await expect(refund).toHaveAttribute('data-state', 'declined');
    await expect(chat.lastAssistant().getByTestId('assistant-text')).toContainText('refunds above the order total are not possible');
    await expectPartialTextSeen();
    await context.close();
  });
});
