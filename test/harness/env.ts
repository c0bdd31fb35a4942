import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * n8n-core keeps its instance settings (encryption key, ...) in N8N_USER_FOLDER and reads it
 * when first loaded: this module must be imported before n8n-core.
 */
if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = mkdtempSync(join(tmpdir(), 'n8n-harness-'));
}
process.env.N8N_RUNNERS_ENABLED ??= 'false';
process.env.N8N_DIAGNOSTICS_ENABLED ??= 'false';
process.env.N8N_LOG_LEVEL ??= 'silent';
