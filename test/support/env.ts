import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * n8n-core keeps its instance settings (encryption key, ...) in N8N_USER_FOLDER and reads it
 * when first loaded: this module must be imported before n8n-core.
 */
if (!process.env.N8N_USER_FOLDER) {
	const folder = mkdtempSync(join(tmpdir(), 'n8n-harness-'));
	process.env.N8N_USER_FOLDER = folder;
	// The folder made here goes when the test file ends (under jest) or when the process exits (benchmark workers).
	const removeFolder = () => rmSync(folder, { recursive: true, force: true });
	const { afterAll } = globalThis as { afterAll?: (hook: () => void) => void };
	if (afterAll) afterAll(removeFolder);
	else process.once('exit', removeFolder);
}
process.env.N8N_RUNNERS_ENABLED ??= 'false';
process.env.N8N_DIAGNOSTICS_ENABLED ??= 'false';
process.env.N8N_LOG_LEVEL ??= 'silent';
