import { ACCOUNTS, contextAs, expect, test } from './support';

test.describe('a destructive request pauses for approval', () => {
  test('approve in the chat: the row is deleted, the answer reports it, the card reads Approved', async ({ chat, db, page }) => {
    await chat.open();
    await chat.send('delete record rec-42');
    const card = chat.approvalCard('delete-record');
    await expect(card).toHaveAttribute('data-state', 'pending');
    expect(JSON.parse((await card.getAttribute('data-args'))!)).toEqual({ id: 'rec-42' });
    expect(await db.recordExists('rec-42')).toBe(true);

    await card.getByTestId('approve-button').click();
    await expect(card).toHaveAttribute('data-state', 'approved');
    await expect(card.getByTestId('approval-outcome')).toContainText('Approved');
    await expect(chat.lastAssistant()).toContainText('Record rec-42 was deleted');
    expect(await db.recordExists('rec-42')).toBe(false);

    // A reload restores the decided card and the answer from the server.
    await page.reload();
    await expect(chat.approvalCard('delete-record')).toHaveAttribute('data-state', 'approved');
    await expect(chat.lastAssistant()).toContainText('Record rec-42 was deleted');
  });

  test('decline with a reason: the row stays, the answer carries the reason, the card reads Declined with it', async ({ chat, db, page }) => {
    await chat.open();
    await chat.send('delete record rec-42');
    const card = chat.approvalCard('delete-record');
    await expect(card).toHaveAttribute('data-state', 'pending');

    await card.getByTestId('decline-button').click();
    await card.getByTestId('decline-reason').fill('keep it for the audit');
    await card.getByTestId('decline-confirm').click();
    await expect(card).toHaveAttribute('data-state', 'declined');
    await expect(card.getByTestId('approval-outcome')).toContainText('Declined');
    await expect(card.getByTestId('approval-outcome')).toContainText('keep it for the audit');
    await expect(chat.lastAssistant()).toContainText('keep it for the audit');
    expect(await db.recordExists('rec-42')).toBe(true);

    await page.reload();
    await expect(chat.approvalCard('delete-record').getByTestId('approval-outcome')).toContainText('keep it for the audit');
  });

  test('a suspended tool asks for a city: empty answers are refused by the form and the server, Paris answers', async ({ chat, db, page }) => {
    await chat.open();
    await chat.send("what's the weather?");
    const card = chat.questionCard('get-weather');
    await expect(card).toHaveAttribute('data-state', 'pending');
    await expect(card).toContainText('Which city');

    // The form refuses an empty city: nothing is sent, the card stays pending.
    await card.getByTestId('question-submit').click();
    await expect(card).toHaveAttribute('data-state', 'pending');

    // The server refuses it too (422) and the call stays pending.
    const [pending] = await db.pendingCalls({ toolName: 'get-weather', status: 'pending' }).then((rows) => rows.slice(-1));
    const refused = await page.request.post(`/api/runs/${pending.run_id}/tool-calls/${pending.tool_call_id}/resume`, {
      data: { resumeData: { city: '' } },
    });
    expect(refused.status()).toBe(422);
    expect((await refused.json()).error.code).toBe('INVALID_RESUME_DATA');
    expect((await db.pendingCalls({ toolName: 'get-weather', status: 'pending' })).map((row) => row.tool_call_id)).toContain(
      pending.tool_call_id,
    );

    await card.getByLabel('city').fill('Paris');
    await card.getByTestId('question-submit').click();
    await expect(card).toHaveAttribute('data-state', 'answered');
    await expect(chat.lastAssistant()).toContainText('Weather in Paris: sunny, 21 °C');
  });

  test('the reviewer approves from the inbox in another browser context; the user sees it after a reload', async ({ browser, chat, db, page }) => {
    const threadId = await chat.open();
    await chat.send('delete record rec-7');
    await expect(chat.approvalCard('delete-record')).toHaveAttribute('data-state', 'pending');
    const [pending] = (await db.pendingCalls({ toolName: 'delete-record', status: 'pending' })).slice(-1);

    const reviewer = await contextAs(browser, ACCOUNTS.rita);
    const inbox = await reviewer.newPage();
    await inbox.goto('/inbox');
    const row = inbox.locator(`[data-testid="inbox-row"][data-tool-call-id="${pending.tool_call_id}"]`);
    await expect(row).toBeVisible();
    await expect(row).toContainText('delete-record');
    await row.click();
    await inbox.getByTestId('inbox-approve').click();
    await expect(row).toHaveCount(0);
    await reviewer.close();

    await expect.poll(() => db.recordExists('rec-7')).toBe(false);
    await page.goto(`/chat/${threadId}`);
    await expect(chat.approvalCard('delete-record')).toHaveAttribute('data-state', 'approved');
    await expect(chat.lastAssistant()).toContainText('Record rec-7 was deleted');
  });
});
