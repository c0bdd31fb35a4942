/** Options of one sandbox instance; the command line maps its flags onto these. */
export interface SandboxOptions {
  host?: string;
  /** 0 picks any free port. */
  port?: number;
  /** A fixed account key; a random one is made otherwise. */
  adminKey?: string;
  /** SQLite file that keeps state across restarts; in memory when absent. */
  dataFile?: string;
  /** Requests per second per key (token bucket); 0 turns limiting off. */
  rateLimit?: number;
  /** Rows a list keeps before the oldest is trimmed. */
  rowCap?: number;
  /** IANA time zone of the account (CreationDate of list rows). */
  timezone?: string;
  /** Seconds to wait before each redelivery of a failed hook delivery. */
  retrySchedule?: number[];
  /** Milliseconds a hook receiver has to answer a delivery. */
  deliveryTimeoutMs?: number;
  /** How deliveries are signed by JWT: HS256 with the hook secret, or the account's ES256/EdDSA key. */
  signingAlgorithm?: 'HS256' | 'ES256' | 'EdDSA';
  /** Milliseconds between two messages of a broadcast leaving its queue. */
  broadcastIntervalMs?: number;
  /** Demo data (bots, projects, chains, stages, a list, a catalog, subscribers). */
  seed?: boolean;
  /** Print a line per request. */
  verbose?: boolean;
}

export type ResolvedOptions = Required<Omit<SandboxOptions, 'dataFile' | 'adminKey'>> &
  Pick<SandboxOptions, 'dataFile' | 'adminKey'>;

export const DEFAULT_RETRY_SCHEDULE = [5, 30, 120, 600, 3600];

export function resolveOptions(options: SandboxOptions): ResolvedOptions {
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 8787,
    adminKey: options.adminKey,
    dataFile: options.dataFile,
    rateLimit: options.rateLimit ?? 10,
    rowCap: options.rowCap ?? 10000,
    timezone: options.timezone ?? 'UTC',
    retrySchedule: options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE,
    deliveryTimeoutMs: options.deliveryTimeoutMs ?? 10000,
    signingAlgorithm: options.signingAlgorithm ?? 'HS256',
    broadcastIntervalMs: options.broadcastIntervalMs ?? 1000,
    seed: options.seed ?? true,
    verbose: options.verbose ?? false,
  };
}
