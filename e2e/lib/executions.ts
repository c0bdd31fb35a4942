/** Reading n8n executions through the public API: waiting for them, their outcome, a node's output. */
import type { Execution, PublicApi } from './n8nApi.ts';
import { waitFor } from './waitFor.ts';

const unfinished = new Set(['new', 'running', 'waiting']);

/** Waits until the workflow has at least `count` executions and all of them ended; oldest first, with data. */
export async function waitForExecutions(api: PublicApi, workflowId: string, count: number, timeoutMs = 60_000): Promise<Execution[]> {
  return waitFor(
    async () => {
      const executions = await api.executions(workflowId, { includeData: true });
      if (executions.length < count || executions.some((execution) => unfinished.has(execution.status))) return undefined;
      return executions.sort((a, b) => Number(a.id) - Number(b.id));
    },
    { what: `${count} finished execution(s) of workflow ${workflowId}`, timeoutMs, intervalMs: 500 },
  );
}

/** Throws with n8n's own error message when the execution did not succeed. */
export function assertSucceeded(execution: Execution): void {
  if (execution.status === 'success') return;
  const error = execution.data?.resultData.error;
  const where = execution.data?.resultData.lastNodeExecuted;
  throw new Error(
    `execution ${execution.id} ended with status "${execution.status}"` +
      (error ? ` in node "${where}": ${error.message ?? ''} ${error.description ?? ''}` : ''),
  );
}

/** The JSON of every item that `nodeName` output (first run, main output 0). */
export function nodeOutput(execution: Execution, nodeName: string): Array<Record<string, any>> {
  const runs = execution.data?.resultData.runData[nodeName];
  if (!runs?.length) throw new Error(`node "${nodeName}" did not run in execution ${execution.id}`);
  return (runs[0].data?.main[0] ?? []).map((item) => item.json);
}
