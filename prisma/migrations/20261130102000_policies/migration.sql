-- Approval policies as data: every change of the ordered rule list is a new version (who, when,
-- the rules before and after); pending calls keep the version and the evaluation that paused them.
CREATE TABLE "policy_versions" (
  "version"    INTEGER PRIMARY KEY,
  "rules"      JSONB NOT NULL,
  "previous"   JSONB,
  "changed_by" TEXT NOT NULL,
  "note"       TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

-- Calls of tools that a history rule watches, recorded when their policy is evaluated (under a
-- per-tool advisory lock), so later calls can sum what earlier ones executed or wait for.
CREATE TABLE "policy_call_ledger" (
  "id"           BIGSERIAL PRIMARY KEY,
  "tool_name"    TEXT NOT NULL,
  "agent_id"     TEXT NOT NULL,
  "run_id"       TEXT NOT NULL,
  "tool_call_id" TEXT NOT NULL,
  "thread_id"    TEXT NOT NULL,
  "requested_by" TEXT NOT NULL,
  "args"         JSONB NOT NULL,
  "created_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "policy_call_ledger_tool_name_created_at_idx" ON "policy_call_ledger" ("tool_name", "created_at");

ALTER TABLE "pending_tool_calls" ADD COLUMN "policy_version" INTEGER;
ALTER TABLE "pending_tool_calls" ADD COLUMN "policy_evaluation" JSONB;

-- Totals of earlier calls for a tool's history rules and the new call's ledger row, atomically:
-- the per-tool advisory lock is held until the calling statement commits, and a VOLATILE function
-- reads with a fresh snapshot after taking it, so concurrent calls of the tool (siblings of one
-- step, or other runs on other servers) each see every call recorded before them.
-- p_specs: [{ "sum": "amount", "by": "requester" | "thread" | "all" | "args.<path>", "windowHours": 24 }]
-- Returns [{ "sum": <number>, "count": <int> }] in the order of p_specs.
CREATE FUNCTION countersign_policy_history(
  p_tool TEXT, p_agent TEXT, p_run TEXT, p_call TEXT, p_thread TEXT, p_requester TEXT, p_args JSONB, p_specs JSONB
) RETURNS JSONB LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  spec JSONB;
  result JSONB := '[]'::jsonb;
  total NUMERIC;
  n INTEGER;
  sum_path TEXT[];
  by_path TEXT[];
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('countersign.policy-history'), hashtext(p_tool));
  FOR spec IN SELECT value FROM jsonb_array_elements(p_specs) LOOP
    sum_path := string_to_array(spec->>'sum', '.');
    by_path := CASE WHEN spec->>'by' LIKE 'args.%' THEN string_to_array(substr(spec->>'by', 6), '.') END;
    SELECT COALESCE(SUM(CASE WHEN jsonb_typeof(l.args #> sum_path) = 'number' THEN (l.args #>> sum_path)::numeric ELSE 0 END), 0), count(*)
      INTO total, n
      FROM policy_call_ledger l
     WHERE l.tool_name = p_tool
       AND l.created_at > now() - make_interval(secs => (spec->>'windowHours')::float8 * 3600)
       AND CASE spec->>'by'
             WHEN 'all' THEN TRUE
             WHEN 'requester' THEN l.requested_by = p_requester
             WHEN 'thread' THEN l.thread_id = p_thread
             ELSE (l.args #> by_path) IS NOT DISTINCT FROM (p_args #> by_path)
           END
       AND NOT EXISTS (
         SELECT 1 FROM pending_tool_calls p
          WHERE p.run_id = l.run_id AND p.tool_call_id = l.tool_call_id AND p.status = 'declined');
    result := result || jsonb_build_array(jsonb_build_object('sum', total, 'count', n));
  END LOOP;
  INSERT INTO policy_call_ledger (tool_name, agent_id, run_id, tool_call_id, thread_id, requested_by, args)
  VALUES (p_tool, p_agent, p_run, p_call, p_thread, p_requester, p_args);
  RETURN result;
END
$$;
