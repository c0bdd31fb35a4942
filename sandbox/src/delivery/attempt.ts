/** What became of one HTTP attempt. */
export interface AttemptOutcome {
  /** The receiver's HTTP status; null when it did not answer in time or could not be reached. */
  status: number | null;
  error: string | null;
  durationMs: number;
  /** The sandbox is stopping: the attempt was abandoned and does not count. */
  abandoned: boolean;
}

export interface AttemptRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Aborted when the sandbox stops. */
  stopSignal: AbortSignal;
}

const USER_AGENT = 'messenger-bot-builder-sandbox';

/**
 * POSTs one delivery. Redirects are not followed (a 3xx counts as a failed attempt), and the
 * receiver's answer body is discarded: only its status matters.
 */
export async function sendAttempt(request: AttemptRequest): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
  const timeout = AbortSignal.timeout(request.timeoutMs);
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...request.headers },
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.any([request.stopSignal, timeout]),
    });
    await response.body?.cancel().catch(() => undefined);
    const ok = response.status >= 200 && response.status < 300;
    return { status: response.status, error: ok ? null : `receiver answered ${response.status}`, durationMs: elapsed(), abandoned: false };
  } catch (error) {
    if (request.stopSignal.aborted) return { status: null, error: 'sandbox stopped', durationMs: elapsed(), abandoned: true };
    const message = timeout.aborted ? `no answer within ${request.timeoutMs} ms` : `request failed: ${describeNetworkError(error)}`;
    return { status: null, error: message, durationMs: elapsed(), abandoned: false };
  }
}

/** The cause of a fetch failure (e.g. ECONNREFUSED), never the URL (its query may carry a token). */
function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return cause && typeof cause.code === 'string' ? cause.code : 'the request could not be sent';
}
