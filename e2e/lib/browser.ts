/** Headless Chromium from the system (Debian's `chromium` package), driven by playwright-core. */
import { existsSync } from 'node:fs';
import { chromium, selectors, type Browser } from 'playwright-core';

export const chromiumPath = process.env.E2E_CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
	// n8n marks its elements with data-test-id (not Playwright's default data-testid).
	selectors.setTestIdAttribute('data-test-id');
	if (!existsSync(chromiumPath)) {
		throw new Error(
			`no Chromium at ${chromiumPath}: install it (\`apt-get install -y chromium\`) or set E2E_CHROMIUM_PATH`,
		);
	}
	return chromium.launch({
		executablePath: chromiumPath,
		headless: true,
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-background-networking',
			'--disable-component-update',
			'--no-first-run',
		],
	});
}
