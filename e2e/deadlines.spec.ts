import type { Browser, BrowserContext } from '@playwright/test';
import { ACCOUNTS, ChatPage, contextAs, expect, test, type Db } from './support';
import { checkAccessible, DESKTOP, MOBILE } from './ui';

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

test.describe('deadlines in the inbox', () => {
  /** A requester of its own (so the inbox can be filtered down to this test's calls) asks for a reviewer-only refund and a delete with the demo's 10-minute deadline. */
  async function twoCalls(browser: Browser, db: Db) {
    const requester = await db.createAccount({ name: 'Deadline Tester' });
    const asker = await contextAs(browser, requester.email);
    const chat = new ChatPage(await asker.newPage());
    await chat.open();
    await chat.send('refund order ord-1042 for 250');
    const refundCard = chat.approvalCard('issue-refund');
    await expect(refundCard).toHaveAttribute('data-state', 'pending');
    const refundId = (await refundCard.getAttribute('data-card-id'))!;
    await chat.open();
    await chat.send('delete record rec-36');
    const deleteCard = chat.approvalCard('delete-record');
    await expect(deleteCard).toHaveAttribute('data-state', 'pending');
    const deleteId = (await deleteCard.getAttribute('data-card-id'))!;
    // The refund (no deadline) has waited longer than INBOX_OVERDUE_AFTER (24 h): overdue.
    await db.query(`UPDATE pending_tool_calls SET created_at = now() - interval '25 hours' WHERE root_tool_call_id = $1`, [refundId]);
    return { requester, asker, refundId, deleteId };
  }

  /** The requester withdraws what is still waiting (a withdrawal stays possible after an escalation). */
  async function withdrawAll(asker: BrowserContext, db: Db, ids: string[], origin: string) {
    for (const id of ids) {
      const run = (await db.query<{ run_id: string }>(`SELECT root_run_id AS run_id FROM pending_tool_calls WHERE root_tool_call_id = $1`, [id]))[0].run_id;
      const withdrawn = await asker.request.post(`/api/runs/${encodeURIComponent(run)}/tool-calls/${encodeURIComponent(id)}/decision`, {
        data: { approved: false, withdraw: true },
        headers: { origin },
      });
      expect(withdrawn.status()).toBe(200);
    }
    await expect
      .poll(async () => (await db.query(`SELECT status FROM pending_tool_calls WHERE root_tool_call_id = ANY($1)`, [ids])).map((row) => row.status))
      .toEqual(ids.map(() => 'declined'));
  }

  test('each call shows its age and deadline, an overdue one is marked "Overdue", the order lives in the URL with the filter', async ({ browser, db }) => {
    const { requester, asker, refundId, deleteId } = await twoCalls(browser, db);
    const reviewer = await contextAs(browser, ACCOUNTS.rita);
    const page = await reviewer.newPage();
    await page.setViewportSize(DESKTOP);
    await page.goto(`/inbox?requester=${encodeURIComponent(requester.email)}`);
    const rows = page.getByTestId('inbox-row');
    const refundRow = page.locator(`[data-testid="inbox-row"][data-tool-call-id="${refundId}"]`);
    const deleteRow = page.locator(`[data-testid="inbox-row"][data-tool-call-id="${deleteId}"]`);
    await expect(rows).toHaveCount(2);
    await expect(refundRow.getByTestId('call-overdue')).toHaveText('Overdue');
    await expect(refundRow.getByTestId('call-age')).toHaveText('waiting 1 day');
    await expect(refundRow.getByTestId('call-age')).toHaveAttribute('title', /^Asked .+ GMT[+-]\d\d:\d\d/);
    await expect(deleteRow.getByTestId('call-overdue')).toHaveCount(0);
    await expect(deleteRow.getByTestId('call-deadline')).toHaveText(/^declined automatically in (9|10) minutes$/);
    await expect(deleteRow.getByTestId('call-deadline')).toHaveAttribute('title', /^Deadline .+ GMT[+-]\d\d:\d\d/);
    await expect(rows.first()).toHaveAttribute('data-tool-call-id', deleteId);

    // The order goes into the URL with the filter, and a reload keeps it.
    await page.getByTestId('inbox-sort').selectOption('oldest');
    await expect(page).toHaveURL(/[?&]sort=oldest/);
    await expect(page).toHaveURL(/[?&]requester=/);
    await expect(rows.first()).toHaveAttribute('data-tool-call-id', refundId);
    await page.getByTestId('inbox-sort').selectOption('deadline');
    await expect(page).toHaveURL(/[?&]sort=deadline/);
    await expect(rows.first()).toHaveAttribute('data-tool-call-id', deleteId);
    await page.reload();
    await expect(page.getByTestId('inbox-sort')).toHaveValue('deadline');
    await expect(rows.first()).toHaveAttribute('data-tool-call-id', deleteId);
    await checkAccessible(page, 'inbox-overdue');
    await page.setViewportSize(MOBILE);
    await expect(refundRow.getByTestId('call-overdue')).toBeVisible();
    await checkAccessible(page, 'inbox-overdue');

    await withdrawAll(asker, db, [refundId, deleteId], new URL(page.url()).origin);
    await Promise.all([asker.close(), reviewer.close()]);
  });

  test('an escalated call shows a reviewer why only admins may decide it, without Approve; the server answers 403 ESCALATED_TO_ADMINS', async ({ browser, db }) => {
    const { requester, asker, refundId, deleteId } = await twoCalls(browser, db);
    const reviewer = await contextAs(browser, ACCOUNTS.rita);
    const page = await reviewer.newPage();
    await page.goto(`/inbox?requester=${encodeURIComponent(requester.email)}`);
    const refundRow = page.locator(`[data-testid="inbox-row"][data-tool-call-id="${refundId}"]`);
    await expect(refundRow).toBeVisible();
    // The refund's deadline escalates it: live, it is the admins' now.
    await db.query(`UPDATE pending_tool_calls SET deadline_at = now() + interval '1 second', deadline_action = 'escalate' WHERE root_tool_call_id = $1`, [refundId]);
    await expect(refundRow.getByTestId('inbox-escalated')).toHaveText('Escalated to admins', { timeout: 15_000 });
    await refundRow.locator('button[aria-expanded]').click();
    await expect(page.getByTestId('escalated-notice')).toContainText('only an admin can approve or decline it now');
    await expect(page.getByTestId('inbox-approve')).toHaveCount(0);
    const runId = (await refundRow.getAttribute('data-run-id'))!;
    const refused = await reviewer.request.post(`/api/runs/${encodeURIComponent(runId)}/tool-calls/${encodeURIComponent(refundId)}/decision`, {
      data: { approved: true },
      headers: { origin: new URL(page.url()).origin },
    });
    expect(refused.status()).toBe(403);
    expect((await refused.json()).error.code).toBe('ESCALATED_TO_ADMINS');
    expect((await db.query(`SELECT status FROM pending_tool_calls WHERE root_tool_call_id = $1`, [refundId]))[0].status).toBe('pending');

    await withdrawAll(asker, db, [refundId, deleteId], new URL(page.url()).origin);
    await Promise.all([asker.close(), reviewer.close()]);
  });
});
