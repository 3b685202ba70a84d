import { ACCOUNTS, contextAs, expect, test } from './support';

/*
 * Deadlines are acted on by the job queue's worker inside the test server (JOBS_IN_PROCESS, the
 * default). The deadline is set on the waiting call's row as a data policy sets it (the columns);
 * the trigger schedules its job, and the NOTIFY that follows tells the open chat and inbox.
 */
test.describe('deadlines', () => {
  test('a call nobody decided is declined at its deadline: the open chat shows the card declined with the reason, and the answer carries it', async ({ chat, db, page }) => {
    await chat.open();
    await chat.send('delete record rec-34');
    const card = chat.approvalCard('delete-record');
    await expect(card).toHaveAttribute('data-state', 'pending');
    const callId = (await card.getAttribute('data-card-id'))!;
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

    await db.query(
      // As a rule with a 4-second deadline and no stated reason would (replacing the demo policy's 10 minutes).
      `UPDATE pending_tool_calls SET deadline_at = created_at + interval '4 seconds', deadline_action = 'decline', deadline_reason = NULL
       WHERE root_tool_call_id = $1 AND status = 'pending'`,
      [callId],
    );
    // The waiting card says what will happen, live.
    await expect(card.getByTestId('approval-deadline')).toContainText('Declined automatically at');

    await expect(card).toHaveAttribute('data-state', 'declined', { timeout: 15_000 });
    const outcome = card.getByTestId('approval-outcome');
    await expect(outcome).toContainText('Declined by Countersign (deadline)');
    await expect(outcome).toContainText('No reviewer decided within 4 seconds, so it was declined automatically.');
    await expect(chat.lastAssistant()).toContainText('I did not run delete-record: No reviewer decided within 4 seconds');
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(await db.recordExists('rec-34')).toBe(true);
    const decisions = await db.query(
      `SELECT d.kind, d.actor_id, d.actor_role, d.reason FROM decisions d JOIN pending_tool_calls p ON p.id = d.pending_call_id WHERE p.root_tool_call_id = $1`,
      [callId],
    );
    expect(decisions).toEqual([
      { kind: 'decline', actor_id: 'system', actor_role: 'system', reason: 'No reviewer decided within 4 seconds, so it was declined automatically.' },
    ]);

    // A reload shows the same.
    await page.reload();
    await expect(chat.approvalCard('delete-record').getByTestId('approval-outcome')).toContainText('No reviewer decided within 4 seconds');
  });

  test('escalation: the reviewer-only call is assigned to admins at its deadline, live in the inbox and the chat', async ({ browser, chat, db }) => {
    await chat.open();
    await chat.send('refund order ord-1042 for 250');
    const card = chat.approvalCard('issue-refund');
    await expect(card).toHaveAttribute('data-state', 'pending');
    const callId = (await card.getAttribute('data-card-id'))!;

    const admin = await contextAs(browser, ACCOUNTS.alex);
    const inbox = await admin.newPage();
    await inbox.goto('/inbox');
    const row = inbox.locator(`[data-testid="inbox-row"][data-tool-call-id="${callId}"]`);
    await expect(row).toBeVisible();
    await expect(row.getByTestId('inbox-escalated')).toHaveCount(0);

    await db.query(
      `UPDATE pending_tool_calls SET deadline_at = now() + interval '2 seconds', deadline_action = 'escalate'
       WHERE root_tool_call_id = $1 AND status = 'pending'`,
      [callId],
    );
    await expect(row.getByTestId('inbox-escalated')).toHaveText('Escalated to admins', { timeout: 15_000 });
    await expect(card.getByTestId('approval-deadline')).toHaveAttribute('data-escalated', 'true');
    await expect(card.getByTestId('approval-deadline')).toContainText('Escalated to admins');
    await expect(card).toHaveAttribute('data-state', 'pending');
    const [row_] = await db.query(`SELECT assigned_to_role, escalated_at IS NOT NULL AS escalated FROM pending_tool_calls WHERE root_tool_call_id = $1`, [callId]);
    expect(row_).toEqual({ assigned_to_role: 'admin', escalated: true });
    await admin.close();
  });
});
