import { DEMO_POLICIES } from '../lib/demo/policies';
import { policiesSchema } from '../lib/policies/rules';
import type { APIRequestContext, Browser } from '@playwright/test';
import { ACCOUNTS, contextAs, expect, test, type Db } from './support';
import { checkAccessible, DESKTOP, InboxPage, MOBILE, screenshotBoth } from './ui';

const demoRules = policiesSchema.parse({ rules: DEMO_POLICIES }).rules;

type QuorumCall = { run_id: string; tool_call_id: string };

/** Ada asks for a refund of 1,100 on ord-2001 (a quorum of two reviewers, the order reset first): its thread and waiting call. */
async function quorumRefund(db: Db, request: APIRequestContext): Promise<{ threadId: string; call: QuorumCall }> {
  await db.query(`UPDATE orders SET refunded = 0, status = 'paid' WHERE id = 'ord-2001'`);
  const threadId = `quorum-${crypto.randomUUID()}`;
  const started = await request.post('/api/agents/ops-agent/generate', { data: { messages: 'refund order ord-2001 for 1100', threadId, resourceId: 'user-ada' } });
  expect(started.status()).toBe(200);
  const [call] = await db.query<QuorumCall>(
    `SELECT root_run_id AS run_id, root_tool_call_id AS tool_call_id FROM pending_tool_calls WHERE thread_id = $1 AND status = 'pending'`,
    [threadId],
  );
  return { threadId, call };
}

/** `email` approves the call through the runs route, in a browser context of their own, and reads the answer to its end. */
async function approveAs(browser: Browser, email: string, call: QuorumCall) {
  const reviewer = await contextAs(browser, email);
  const decided = await reviewer.request.post(`/api/runs/${call.run_id}/tool-calls/${encodeURIComponent(call.tool_call_id)}/decision`, { data: { approved: true } });
  expect(decided.status(), email).toBe(200);
  await decided.text();
  await reviewer.close();
}

test.describe('approval policies as data', () => {
  // Every test here leaves the demo policies in force again (as a new version), for the tests after it.
  test.afterEach(async ({ browser }) => {
    const admin = await contextAs(browser, ACCOUNTS.alex);
    const response = await admin.request.put('/api/policies', { data: { rules: demoRules, note: 'e2e: back to the demo policies' } });
    expect(response.status()).toBe(200);
    await admin.close();
  });

  test('GET/PUT /api/policies: admins only, validated, versioned with who and the rules before', async ({ browser, request }) => {
    expect((await request.get('/api/policies')).status()).toBe(403);
    expect((await request.put('/api/policies', { data: { rules: [] } })).status()).toBe(403);

    const admin = await contextAs(browser, ACCOUNTS.alex);
    const before = await (await admin.request.get('/api/policies')).json();
    expect(before.rules.map((rule: { id: string }) => rule.id)).toEqual(demoRules.map((rule) => rule.id));

    const bad = await admin.request.put('/api/policies', {
      data: { rules: [{ id: 'x', name: 'x', tool: 'issue-refund', condition: 'args.amount >', outcome: { type: 'require', approvers: { quorum: 1 } } }] },
    });
    expect(bad.status()).toBe(400);
    const error = (await bad.json()).error;
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.details.map((issue: { path: (string | number)[] }) => issue.path.join('.'))).toEqual(
      expect.arrayContaining(['rules.0.condition', 'rules.0.outcome.approvers.quorum']),
    );
    // A condition that parses but cannot work (a type error, a number where true or false is needed) is refused too.
    const mistyped = await admin.request.put('/api/policies', {
      data: { rules: [{ id: 'x', name: 'x', tool: 'issue-refund', condition: "size(args) + 'a'", outcome: { type: 'require', approvers: 'reviewer' } }] },
    });
    expect(mistyped.status()).toBe(400);
    expect((await mistyped.json()).error.details).toEqual([expect.objectContaining({ path: ['rules', 0, 'condition'], message: expect.stringContaining('does not type-check') })]);
    // A base version from the future is not "someone saved since".
    const future = await admin.request.put('/api/policies', { data: { rules: demoRules, baseVersion: before.version + 50 } });
    expect(future.status()).toBe(422);
    expect((await future.json()).error).toMatchObject({ code: 'UNKNOWN_POLICY_VERSION', details: { version: before.version } });
    expect((await (await admin.request.get('/api/policies')).json()).version).toBe(before.version);

    const saved = await admin.request.put('/api/policies', { data: { rules: demoRules.slice(0, 1), baseVersion: before.version, note: 'only large refunds' } });
    expect(saved.status()).toBe(200);
    const after = await (await admin.request.get('/api/policies')).json();
    expect(after).toMatchObject({ version: before.version + 1, changedBy: 'admin-alex' });
    expect(after.changes[0]).toMatchObject({ version: before.version + 1, changedBy: 'admin-alex', note: 'only large refunds' });
    expect(after.changes[0].previous.map((rule: { id: string }) => rule.id)).toEqual(demoRules.map((rule) => rule.id));
    // The same rules again (Save clicked twice) change nothing: the version in force, no new version.
    const again = await admin.request.put('/api/policies', { data: { rules: demoRules.slice(0, 1), baseVersion: before.version + 1, note: 'twice' } });
    expect(again.status()).toBe(200);
    expect(await again.json()).toMatchObject({ version: before.version + 1, changed: false });
    const still = await (await admin.request.get('/api/policies')).json();
    expect(still.version).toBe(before.version + 1);
    expect(still.changes[0]).toMatchObject({ version: before.version + 1, note: 'only large refunds' });

    // An edit based on the version before is refused: someone saved since.
    const stale = await admin.request.put('/api/policies', { data: { rules: [], baseVersion: before.version } });
    expect(stale.status()).toBe(409);
    expect((await stale.json()).error.code).toBe('POLICY_CHANGED');
    await admin.close();
  });

  test('an admin adds a rule at /admin/policies; the next call waits and every screen states the rule', async ({ browser, chat, page }) => {
    const admin = await contextAs(browser, ACCOUNTS.alex);
    const editor = await admin.newPage();
    await editor.setViewportSize(DESKTOP);
    await editor.goto('/admin/policies');
    await expect(editor.getByRole('heading', { name: 'Approval policies' })).toBeVisible();
    await expect(editor.getByTestId('policy-rule')).toHaveCount(demoRules.length);
    await expect(editor.getByTestId('policy-rule-summary').first()).toHaveText('issue-refund · args.amount > 1000 → 2 reviewers');
    await checkAccessible(editor, 'policies');

    await editor.getByTestId('add-rule').click();
    const rule = editor.getByTestId('policy-rule').last();
    await rule.getByLabel('Name').fill('VIP look-ups');
    await rule.getByLabel('Rule id').fill('vip-lookups');
    await rule.getByLabel('Tool (glob)').fill('lookup-*');
    // A condition that does not parse is refused here, before anything is sent.
    await rule.getByLabel('Condition (CEL, optional)').fill('args.customerId ==');
    await editor.getByTestId('save-policies').click();
    await expect(rule.getByText(/condition does not parse/)).toBeVisible();
    await expect(editor.getByTestId('policy-invalid')).toHaveText(/One rule needs fixing/);
    // The pointer rests on Save after the click; axe measures the page, not a hovered button.
    await editor.mouse.move(0, 0);
    await expect(rule.getByLabel('Condition (CEL, optional)')).toHaveAttribute('aria-invalid', 'true');
    await checkAccessible(editor, 'policies-invalid');

    await rule.getByLabel('Condition (CEL, optional)').fill('args.customerId == "cus-2"');
    await rule.getByLabel('Who decides').selectOption('four-eyes');
    await editor.getByTestId('save-policies').click();
    await expect(editor.getByText(/Saved as version \d+/)).toBeVisible();
    const savedVersion = Number((await editor.getByText(/Saved as version \d+/).textContent())!.match(/version (\d+)/)![1]);
    // Save again without a change: the editor says nothing changed, and no version is added.
    await editor.getByTestId('save-policies').click();
    await expect(editor.getByText(`Nothing changed: these are the rules of version ${savedVersion}, still in force. No new version was saved.`)).toBeVisible();
    await expect(editor.getByTestId('policy-version')).toHaveText(`Version ${savedVersion} in force`);
    // A note alone is no change: the editor says it was not kept, and keeps it in the field.
    await editor.getByLabel(/^Note/).fill('only a note');
    await editor.getByTestId('save-policies').click();
    await expect(editor.getByText(/A note is kept only with a new version, so yours was not saved/)).toBeVisible();
    await expect(editor.getByLabel(/^Note/)).toHaveValue('only a note');
    await expect(editor.getByTestId('policy-version')).toHaveText(`Version ${savedVersion} in force`);
    await editor.getByLabel(/^Note/).fill('');
    await expect(editor.getByTestId('policy-change').first()).toContainText('added VIP look-ups');
    await editor.setViewportSize(MOBILE);
    await screenshotBoth(editor, 'policies');

    // Ada's next look-up of that customer waits, and the card says which rule and who decides.
    const why = 'customerId "cus-2" == "cus-2": reviewer required, not the requester';
    await chat.open();
    await chat.send('look up customer cus-2');
    const card = chat.approvalCard('lookup-customer');
    await expect(card).toHaveAttribute('data-state', 'pending');
    await expect(card.getByTestId('approval-why')).toHaveText(`Why it waits: ${why}`);
    await expect(card).not.toContainText('always asks');
    await page.setViewportSize(DESKTOP);
    await checkAccessible(page, 'chat-approval-why');

    // The reviewer's inbox states the same rule and its version; after Rita approves, the audit keeps it.
    const reviewer = await contextAs(browser, ACCOUNTS.rita);
    const inboxPage = await reviewer.newPage();
    const inbox = new InboxPage(inboxPage);
    await inbox.open();
    const toolCallId = await card.getAttribute('data-card-id');
    await inbox.select(toolCallId!);
    await expect(inboxPage.getByTestId('inbox-why')).toContainText(why);
    await expect(inboxPage.getByTestId('inbox-why')).toContainText(/policy version \d+/);
    await inboxPage.getByTestId('inbox-approve').click();
    await expect(inbox.row(toolCallId!)).toHaveCount(0);
    await reviewer.close();
    await expect(card).toHaveAttribute('data-state', 'approved');
    await expect(card.getByTestId('approval-why')).toHaveText(`Why it asked: ${why}`);

    const audit = await admin.newPage();
    await audit.goto('/audit');
    await audit.locator(`[data-testid="audit-row"][data-tool-call-id="${toolCallId}"]`).click();
    await expect(audit.getByTestId('audit-why').first()).toContainText(why);

    // The edit itself is an admin action in the audit: who changed which rule, between which versions.
    await audit.getByTestId('audit-tab-actions').click();
    await audit.getByLabel('Who', { exact: true }).fill('alex@example');
    await audit.getByLabel('Action', { exact: true }).selectOption('policy');
    await audit.getByTestId('actions-apply').click();
    await expect(audit).toHaveURL(/\/audit\/actions\?actor=alex%40example&action=policy/);
    const action = audit.locator(`[data-testid="admin-action"][data-target-id="${savedVersion}"]`);
    await expect(action.getByTestId('admin-action-text')).toHaveText(
      `Alex changed the approval policies from version ${savedVersion - 1} to ${savedVersion}: added “VIP look-ups” (vip-lookups)`,
    );
    await checkAccessible(audit, 'audit-admin-actions');
    await admin.close();
  });

  test('the demo policies: a refund of 250 states the amount rule, not a generic sentence', async ({ chat }) => {
    await chat.open();
    await chat.send('refund order ord-1042 for 250');
    const card = chat.approvalCard('issue-refund');
    await expect(card).toHaveAttribute('data-state', 'pending');
    await expect(card.getByTestId('approval-why')).toContainText('amount 250 > 100');
    await expect(card.getByTestId('approval-why')).toContainText('reviewer required, not the requester');
  });
});

test.describe('quorum and classifier in the browser', () => {
  test('a refund of 1,100 needs two reviewers: the chat counts "1 of 2 approvals" live, the second approval runs it', async ({ browser, chat, db, page }) => {
    await db.query(`UPDATE orders SET refunded = 0, status = 'paid' WHERE id = 'ord-2001'`);
    await page.setViewportSize(DESKTOP);
    await chat.open();
    await chat.send('refund order ord-2001 for 1100');
    const card = chat.approvalCard('issue-refund');
    await expect(card).toHaveAttribute('data-state', 'pending');
    await expect(card.getByTestId('approval-quorum')).toHaveText('0 of 2 approvals.');
    await expect(card.getByTestId('approval-why')).toContainText('amount 1100 > 1000');
    await expect(card.getByTestId('approval-why')).toContainText('2 different reviewers required, not the requester');
    const toolCallId = (await card.getAttribute('data-card-id'))!;

    for (const [email, count] of [[ACCOUNTS.rita, '1 of 2'], [ACCOUNTS.sam, null]] as const) {
      const reviewer = await contextAs(browser, email);
      const inboxPage = await reviewer.newPage();
      const inbox = new InboxPage(inboxPage);
      await inbox.open();
      await inbox.select(toolCallId);
      await inboxPage.getByTestId('inbox-approve').click();
      if (count) {
        await expect(inboxPage.getByText(/Your approval counted: 1 of 2/)).toBeVisible();
        await expect(inboxPage.getByTestId('inbox-quorum')).toContainText('1 of 2');
        // The requester's open chat shows the count without a reload.
        await expect(card.getByTestId('approval-quorum')).toHaveText('1 of 2 approvals.');
        await checkAccessible(page, 'chat-approval-quorum');
      } else {
        await expect(inbox.row(toolCallId)).toHaveCount(0);
      }
      await reviewer.close();
    }
    await expect(card).toHaveAttribute('data-state', 'approved');
    // The outcome names both reviewers, live and after a reload.
    await expect(card.getByTestId('approval-outcome')).toContainText(/Approved by Rita\b.* and Sam\b/);
    await expect(chat.lastAssistant()).toContainText('Refunded $1100');
    await page.reload();
    await expect(chat.approvalCard('issue-refund').getByTestId('approval-outcome')).toContainText(/Approved by Rita\b.* and Sam\b/);
    const decisions = await db.query<{ kind: string }>(
      `SELECT d.kind FROM decisions d JOIN pending_tool_calls p ON p.id = d.pending_call_id WHERE p.root_tool_call_id = $1 ORDER BY d.created_at`,
      [toolCallId],
    );
    expect(decisions.map((d) => d.kind)).toEqual(['vote', 'approval']);
    // Later tests refund this order again: leave it as seeded.
    await db.query(`UPDATE orders SET refunded = 0, status = 'paid' WHERE id = 'ord-2001'`);
  });

  test('a quorum call approved by Rita and Sam: the inbox’s and the audit’s read-only thread views name both, as the chat does', async ({ browser, db, request }) => {
    const { threadId, call } = await quorumRefund(db, request);
    for (const email of [ACCOUNTS.rita, ACCOUNTS.sam]) await approveAs(browser, email, call);
    await expect.poll(async () => (await db.query(`SELECT status FROM runs WHERE id = $1`, [call.run_id]))[0]?.status).toBe('completed');

    // Alex (an admin) reads both views, so neither reviewer is "you".
    const alex = await contextAs(browser, ACCOUNTS.alex);
    const admin = await alex.newPage();
    const bothNames = /Rita \(rita@example\.com\) and Sam \(sam@example\.com\)/;
    for (const size of [DESKTOP, MOBILE]) {
      await admin.setViewportSize(size);
      await admin.goto(`/inbox/threads/${threadId}`);
      await expect(admin.getByTestId('thread-read-only')).toBeVisible();
      await expect(admin.getByTestId('transcript-card')).toContainText('approved by');
      await expect(admin.getByTestId('transcript-card')).toContainText(bothNames);
      await checkAccessible(admin, 'inbox-thread-quorum');

      await admin.goto(`/audit/threads/${threadId}`);
      const decisions = admin.getByTestId('transcript-decision');
      await expect(decisions).toHaveCount(2);
      // Rita's vote is an approval that counted, not an answer to a question.
      await expect(admin.getByTestId('transcript-decision').filter({ hasText: 'Answered' })).toHaveCount(0);
      await expect(decisions.nth(0)).toContainText('Approved (1 of 2)');
      await expect(decisions.nth(0)).toContainText('Rita');
      await expect(decisions.nth(0)).not.toContainText('Sam');
      // The approval that filled the quorum names everyone who approved, as the chat's card does.
      await expect(decisions.nth(1)).toContainText('Approved (2 of 2)');
      await expect(decisions.nth(1)).toContainText(/Rita\s*<rita@example\.com>\s*and\s*Sam\s*<sam@example\.com>/);
      await checkAccessible(admin, 'audit-thread-quorum');
    }
    await alex.close();
    await db.query(`UPDATE orders SET refunded = 0, status = 'paid' WHERE id = 'ord-2001'`);
  });

  test('a half-approved quorum call: the inbox’s thread view counts "1 of 2 approvals … so far: Rita" as the chat does; the audit log and the Done tab show Rita’s vote as "Approved (1 of 2)", Sam’s approval as "Approved (2 of 2)"', async ({ browser, chat, db, page, request }) => {
    // Three browsers, four pages, each checked with axe in light and dark at two widths: on a busy
    // 2-core machine that takes longer than the default 90 s (it ran 1.6 min in the full suite).
    test.setTimeout(240_000);
    const { threadId, call } = await quorumRefund(db, request);
    const approve = (email: string) => approveAs(browser, email, call);
    await approve(ACCOUNTS.rita);

    // The requester's chat counts Rita's vote; the reviewers' read-only view says the same.
    await chat.open(threadId);
    const card = chat.approvalCard('issue-refund');
    await expect(card.getByTestId('approval-quorum')).toHaveText('1 of 2 approvals.');
    await expect(card).toContainText('2 different reviewers must approve this action (so far: Rita (rita@example.com)).');

    // Alex (an admin) reads every view, so Rita is never "you".
    const alex = await contextAs(browser, ACCOUNTS.alex);
    const admin = await alex.newPage();
    const voteOf = (testId: string, kind: string) => admin.locator(`[data-testid="${testId}"][data-tool-call-id="${call.tool_call_id}"][data-kind="${kind}"]`);
    for (const size of [DESKTOP, MOBILE]) {
      await admin.setViewportSize(size);
      await admin.goto(`/inbox/threads/${threadId}`);
      const line = admin.getByTestId('transcript-card');
      await expect(line).toContainText('waiting for a decision');
      await expect(line.getByTestId('transcript-quorum')).toHaveText('1 of 2 approvals. 2 different reviewers must approve this action (so far: Rita (rita@example.com)).');
      await checkAccessible(admin, 'inbox-thread-quorum-waiting');

      await admin.goto('/audit?toolName=issue-refund');
      const auditVote = voteOf(size === DESKTOP ? 'audit-row' : 'audit-item', 'vote');
      await expect(auditVote).toHaveCount(1);
      await expect(auditVote).toContainText('Approved (1 of 2)');
      await expect(auditVote).toContainText('Rita');
      await checkAccessible(admin, 'audit-quorum-vote');

      await admin.goto('/inbox?view=done&toolName=issue-refund');
      const doneVote = voteOf('done-row', 'vote');
      await expect(doneVote.getByTestId('done-outcome')).toHaveText('Approved (1 of 2)');
      await expect(doneVote.getByTestId('done-who')).toContainText(/^Approved \(1 of 2\) by Rita/);
      await checkAccessible(admin, 'inbox-done-quorum-vote');
    }

    // Sam's approval fills the quorum: his row counts 2 of 2, Rita's vote keeps its place.
    await approve(ACCOUNTS.sam);
    await expect.poll(async () => (await db.query(`SELECT status FROM runs WHERE id = $1`, [call.run_id]))[0]?.status).toBe('completed');
    for (const size of [DESKTOP, MOBILE]) {
      await admin.setViewportSize(size);
      await admin.goto('/audit?toolName=issue-refund');
      const rows = size === DESKTOP ? 'audit-row' : 'audit-item';
      await expect(voteOf(rows, 'vote')).toContainText('Approved (1 of 2)');
      await expect(voteOf(rows, 'approval')).toContainText('Approved (2 of 2)');
      await expect(voteOf(rows, 'approval')).toContainText('Sam');
      await checkAccessible(admin, 'audit-quorum-complete');

      await admin.goto('/inbox?view=done&toolName=issue-refund');
      await expect(voteOf('done-row', 'vote').getByTestId('done-outcome')).toHaveText('Approved (1 of 2)');
      await expect(voteOf('done-row', 'approval').getByTestId('done-outcome')).toHaveText('Approved (2 of 2)');
      await expect(voteOf('done-row', 'approval').getByTestId('done-who')).toContainText(/^Approved \(2 of 2\) by Sam/);
      await checkAccessible(admin, 'inbox-done-quorum-complete');
    }
    await alex.close();
    await page.reload();
    await expect(chat.approvalCard('issue-refund').getByTestId('approval-outcome')).toContainText(/Approved by Rita\b.* and Sam\b/);
    await db.query(`UPDATE orders SET refunded = 0, status = 'paid' WHERE id = 'ord-2001'`);
  });

  test('send-email is classified: the card shows the score, the rationale and the model', async ({ chat }) => {
    await chat.open();
    await chat.send('send email to a@b.co');
    const card = chat.approvalCard('send-email');
    await expect(card).toHaveAttribute('data-state', 'pending');
    await expect(card.getByTestId('approval-why')).toContainText(/rule "Emails": classifier score 0\.90 ≥ 0\.7, "send" suggests a destructive or money-moving action \(classifier local\/scripted-decision, \d+ ms/);
  });
});
